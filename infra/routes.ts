/**
 * The one route table. It feeds the CDK stack (one Lambda and one HTTP API route per entry),
 * the local server (`local/server.ts`) and the docs, so the three cannot drift apart.
 *
 * Data only: no CDK or AWS imports. Handler bundles do not import it: each gets its own route as
 * a build-time constant (`routeDefine` in `infra/bundling.ts`).
 */

/** Who may call a route. */
export type RouteAuth = 'none' | 'apiKey';

/**
 * Where a route may be called:
 * - `tenant`: `/path`, `/<tenantId>/path` and `/appid-public/<tenantId>/path`; a tenant other than
 *   `public` is checked to exist beside the request (SPEC §2's 400 when it does not);
 * - `tenantLookup`: the same paths, for a handler that reads its tenant itself and answers for a
 *   missing one (the core's `TENANT_NOT_FOUND_ERROR`), so no check runs beside it;
 * - `app`: app-wide; a tenant segment other than `public` is refused with 403;
 * - `appFromToken`: app-wide calls that take their tenant from a token or a session handle
 *   (session verify, refresh…): a tenant segment is accepted and ignored, neither checked nor
 *   refused, as the core; the paths of `app` (`/path`, `/<tenantId>/path`).
 */
export type RouteScope = 'tenant' | 'tenantLookup' | 'app' | 'appFromToken';

/** A secret a function reads from SSM Parameter Store in AWS. */
export type RouteSecret = 'apiKeys' | 'signerKey' | 'passwordMigration' | 'sessionExchange';

export interface RouteDef {
  /** Stable id; also the bundle folder (`dist/functions/<id>/index.js`) and the Lambda's logical name. */
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Lower-case path without tenant segment. */
  readonly path: string;
  /** Handler entry file, relative to the repository root. */
  readonly entry: string;
  readonly auth: RouteAuth;
  readonly scope: RouteScope;
  /** `read` routes get read-only DynamoDB permissions. */
  readonly access: 'none' | 'read' | 'write';
  readonly secrets: readonly RouteSecret[];
  /** Verifies or computes password hashes: needs the Argon2 native binary and more memory. */
  readonly hashesPasswords: boolean;
  /** Bulk endpoints accept 6 MB bodies as the event carries them (see `BULK_MAX_BODY_BYTES`), the rest 1 MiB. */
  readonly maxBodyBytes: number;
  /** The 413 text when a body is over `maxBodyBytes` (a generic one when absent). */
  readonly tooLargeText?: string;
  /** Takes thousands of users per request: more memory (a whole vCPU) and time (`infra/sizing.ts`). */
  readonly bulk: boolean;
  /**
   * May read a whole user list: a count (`countList`), or a page filtered by recipe where few
   * users match. Its time grows with the users, so it gets the API's whole wait (`infra/sizing.ts`).
   */
  readonly readsWholeList: boolean;
  readonly summary: string;
}

const MIB = 1024 * 1024;

/**
 * Bulk bodies (SPEC §15: up to 6 MB, Lambda's request limit). Lambda takes at most 6 MiB
 * (6,291,456 bytes) per invocation, and API Gateway hands it the body as a JSON string inside the
 * event, every `"` and `\` escaped (typical bulk users grow by about 11 %). So a bulk body is
 * measured as it travels in the event (`eventBodyBytes` in `lib/http/body-size.ts`): 6 MB there
 * leaves room for the headers (at most 10 KB in an HTTP API) and the request context, so a body
 * over the limit reaches the function and gets this 413 until its event is over 6 MiB (about
 * 6.28 MB of body as the event carries it), when Lambda refuses it before any code runs.
 * `test/unit/bulk-body-limit.test.ts` checks it.
 */
export const BULK_MAX_BODY_BYTES = 6_000_000;
export const BULK_TOO_LARGE_TEXT = 'Request body is larger than 6 MB: send fewer users per request';
const bulk = { maxBodyBytes: BULK_MAX_BODY_BYTES, tooLargeText: BULK_TOO_LARGE_TEXT, bulk: true } as const;

function route(def: Pick<RouteDef, 'id' | 'method' | 'path' | 'entry' | 'summary'> & Partial<RouteDef>): RouteDef {
  return {
    auth: 'apiKey',
    scope: 'tenant',
    access: 'read',
    secrets: def.auth === 'none' ? [] : ['apiKeys'],
    hashesPasswords: false,
    maxBodyBytes: MIB,
    bulk: false,
    readsWholeList: false,
    ...def,
  };
}

export const ROUTES: readonly RouteDef[] = [
  route({
    id: 'hello',
    method: 'GET',
    path: '/hello',
    entry: 'functions/core/hello.ts',
    // App-wide: a health check reads no tenant data, and a tenant segment would need a table
    // read (the tenant check) that this function has no permission for in AWS.
    auth: 'none',
    scope: 'app',
    access: 'none',
    summary: 'Health check, no API key.',
  }),
  route({
    id: 'api-version',
    method: 'GET',
    path: '/apiversion',
    entry: 'functions/core/api-version.ts',
    scope: 'app',
    access: 'none',
    summary: 'CDI versions this service speaks.',
  }),
  route({
    id: 'tenant-create',
    method: 'PUT',
    path: '/recipe/multitenancy/tenant/v2',
    entry: 'functions/multitenancy/create-tenant.ts',
    scope: 'app',
    access: 'write',
    summary: 'Create a tenant, or set its first and secondary factors (idempotent).',
  }),
  route({
    id: 'tenant-get',
    method: 'GET',
    path: '/recipe/multitenancy/tenant/v2',
    entry: 'functions/multitenancy/get-tenant.ts',
    scope: 'tenantLookup',
    access: 'read',
    summary: "A tenant's login configuration (first factors, third-party providers with their secrets), as the SDK reads it before every sign-in.",
  }),
  route({
    id: 'tenant-list',
    method: 'GET',
    path: '/recipe/multitenancy/tenant/list/v2',
    entry: 'functions/multitenancy/list-tenants.ts',
    scope: 'app',
    summary: 'List tenants.',
  }),
  route({
    id: 'tenant-remove',
    method: 'POST',
    path: '/recipe/multitenancy/tenant/remove',
    entry: 'functions/multitenancy/remove-tenant.ts',
    scope: 'app',
    access: 'write',
    summary: 'Remove a tenant, with its third-party providers.',
  }),
  route({
    id: 'tenant-thirdparty-config-put',
    method: 'PUT',
    path: '/recipe/multitenancy/config/thirdparty',
    entry: 'functions/multitenancy/create-or-update-third-party-config.ts',
    access: 'write',
    summary: "Create or replace one of a tenant's third-party providers (SPEC §22); its body holds client secrets, never logged.",
  }),
  route({
    id: 'tenant-thirdparty-config-remove',
    method: 'POST',
    path: '/recipe/multitenancy/config/thirdparty/remove',
    entry: 'functions/multitenancy/remove-third-party-config.ts',
    access: 'write',
    summary: "Remove one of a tenant's third-party providers.",
  }),
  route({
    id: 'tenant-user-associate',
    method: 'POST',
    path: '/recipe/multitenancy/tenant/user',
    entry: 'functions/multitenancy/associate-user.ts',
    access: 'write',
    summary: 'Add a login method to the tenant: it signs in there, unless the tenant already has its email, phone or identity.',
  }),
  route({
    id: 'tenant-user-disassociate',
    method: 'POST',
    path: '/recipe/multitenancy/tenant/user/remove',
    entry: 'functions/multitenancy/disassociate-user.ts',
    access: 'write',
    summary: 'Take a login method out of the tenant, with its role assignments and sessions there.',
  }),
  route({
    id: 'passwordless-create-code',
    method: 'POST',
    path: '/recipe/signinup/code',
    entry: 'functions/passwordless/create-code.ts',
    access: 'write',
    summary: 'Create a passwordless code for an email, a phone number or an existing device.',
  }),
  route({
    id: 'passwordless-consume-code',
    method: 'POST',
    path: '/recipe/signinup/code/consume',
    entry: 'functions/passwordless/consume-code.ts',
    access: 'write',
    summary: 'Consume a code; signs the passwordless user in or creates it.',
  }),
  route({
    id: 'passwordless-check-code',
    method: 'POST',
    path: '/recipe/signinup/code/check',
    entry: 'functions/passwordless/check-code.ts',
    access: 'write',
    summary: 'Check a code without consuming it (wrong guesses still count).',
  }),
  route({
    id: 'passwordless-list-codes',
    method: 'GET',
    path: '/recipe/signinup/codes',
    entry: 'functions/passwordless/list-codes.ts',
    summary: 'Pending passwordless devices and their codes, by email, phone number, deviceId or preAuthSessionId.',
  }),
  route({
    id: 'passwordless-remove-code',
    method: 'POST',
    path: '/recipe/signinup/code/remove',
    entry: 'functions/passwordless/remove-code.ts',
    access: 'write',
    summary: 'Remove one passwordless code (by codeId) or a whole device (by preAuthSessionId).',
  }),
  route({
    id: 'passwordless-remove-codes',
    method: 'POST',
    path: '/recipe/signinup/codes/remove',
    entry: 'functions/passwordless/remove-codes.ts',
    access: 'write',
    summary: 'Remove every pending passwordless device of an email or phone number.',
  }),
  route({
    id: 'emailpassword-import',
    method: 'POST',
    path: '/recipe/user/passwordhash/import',
    entry: 'functions/emailpassword/import-password-hash.ts',
    access: 'write',
    secrets: ['apiKeys', 'signerKey'],
    summary: 'Import an email-password user with a BCrypt, Argon2 or vendor (Firebase) scrypt hash.',
  }),
  route({
    id: 'emailpassword-signin',
    method: 'POST',
    path: '/recipe/signin',
    entry: 'functions/emailpassword/sign-in.ts',
    // The password migration secret only when a source is configured (`infra/constructs/route-function.ts`).
    access: 'write',
    secrets: ['apiKeys', 'signerKey', 'passwordMigration'],
    hashesPasswords: true,
    summary: 'Sign an email-password user in (rehashes imported hashes on success; migrates passwords of users imported without a hash).',
  }),
  route({
    id: 'emailpassword-password-migration-count',
    method: 'GET',
    path: '/recipe/user/passwordmigration/count',
    entry: 'functions/emailpassword/password-migration-count.ts',
    readsWholeList: true,
    summary: 'How many users of the tenant still wait for password migration at sign-in.',
  }),
  route({
    id: 'emailpassword-signup',
    method: 'POST',
    path: '/recipe/signup',
    entry: 'functions/emailpassword/sign-up.ts',
    access: 'write',
    hashesPasswords: true,
    summary: 'Create an email-password user.',
  }),
  route({
    id: 'emailpassword-create-reset-token',
    method: 'POST',
    path: '/recipe/user/password/reset/token',
    entry: 'functions/emailpassword/create-reset-token.ts',
    access: 'write',
    summary: 'A single-use token to reset the password of a user (any tenant of the app may use it).',
  }),
  route({
    id: 'emailpassword-consume-reset-token',
    method: 'POST',
    path: '/recipe/user/password/reset/token/consume',
    entry: 'functions/emailpassword/consume-reset-token.ts',
    access: 'write',
    summary: 'Use a password reset token up (every reset token of its user with it); changes no password.',
  }),
  route({
    id: 'user-update',
    method: 'PUT',
    path: '/recipe/user',
    entry: 'functions/users/update-user.ts',
    scope: 'app',
    access: 'write',
    secrets: ['apiKeys'],
    hashesPasswords: true,
    summary: 'Update a user: `rid: passwordless` (email, phone) or emailpassword (email, password).',
  }),
  route({
    id: 'user-get-by-recipe',
    method: 'GET',
    path: '/recipe/user',
    entry: 'functions/users/get-recipe-user.ts',
    summary: 'Read a user by id, email, phone or third-party identity, routed by `rid`.',
  }),
  route({
    id: 'user-get',
    method: 'GET',
    path: '/user/id',
    entry: 'functions/users/get-user.ts',
    scope: 'app',
    summary: 'Read a user by id.',
  }),
  route({
    id: 'users-by-account-info',
    method: 'GET',
    path: '/users/by-accountinfo',
    entry: 'functions/users/list-users-by-account-info.ts',
    summary: 'Users of the tenant matching an email, phone number or third-party identity.',
  }),
  route({
    id: 'thirdparty-signinup',
    method: 'POST',
    path: '/recipe/signinup',
    entry: 'functions/thirdparty/sign-in-up.ts',
    access: 'write',
    summary: 'Sign a third-party user in, or create it; updates a changed email.',
  }),
  route({
    id: 'users-list',
    method: 'GET',
    path: '/users',
    entry: 'functions/users/list-users.ts',
    readsWholeList: true,
    summary:
      "A page of the tenant's users in join order (`limit`, `paginationToken`, `timeJoinedOrder`, `includeRecipeIds`), or the dashboard's search (`email`, `phone`, `provider`).",
  }),
  route({
    id: 'user-search-tags',
    method: 'GET',
    path: '/user/search/tags',
    entry: 'functions/users/search-tags.ts',
    scope: 'app',
    access: 'none',
    summary: 'The tags `GET /users` searches by (the dashboard).',
  }),
  route({
    id: 'users-count',
    method: 'GET',
    path: '/users/count',
    entry: 'functions/users/count-users.ts',
    readsWholeList: true,
    summary: 'How many users the tenant (or, with `includeAllTenants`, the app) has.',
  }),
  route({
    id: 'user-remove',
    method: 'POST',
    path: '/user/remove',
    entry: 'functions/users/remove-user.ts',
    scope: 'app',
    access: 'write',
    summary:
      'Remove a user (`removeAllLinkedAccounts`, default true: with every linked login method) and every uniqueness record it holds, in one transaction.',
  }),
  route({
    id: 'accountlinking-primary-check',
    method: 'GET',
    path: '/recipe/accountlinking/user/primary/check',
    entry: 'functions/accountlinking/can-create-primary-user.ts',
    scope: 'app',
    summary: 'Whether a login method can become a primary user (`recipeUserId`).',
  }),
  route({
    id: 'accountlinking-primary',
    method: 'POST',
    path: '/recipe/accountlinking/user/primary',
    entry: 'functions/accountlinking/create-primary-user.ts',
    scope: 'app',
    access: 'write',
    summary: 'Make a login method a primary user, claiming its account info in its tenants.',
  }),
  route({
    id: 'accountlinking-link-check',
    method: 'GET',
    path: '/recipe/accountlinking/user/link/check',
    entry: 'functions/accountlinking/can-link-accounts.ts',
    scope: 'app',
    summary: 'Whether a login method can be linked to a primary user (`recipeUserId`, `primaryUserId`).',
  }),
  route({
    id: 'accountlinking-link',
    method: 'POST',
    path: '/recipe/accountlinking/user/link',
    entry: 'functions/accountlinking/link-accounts.ts',
    scope: 'app',
    access: 'write',
    summary: 'Link a login method to a primary user.',
  }),
  route({
    id: 'accountlinking-unlink',
    method: 'POST',
    path: '/recipe/accountlinking/user/unlink',
    entry: 'functions/accountlinking/unlink-account.ts',
    scope: 'app',
    access: 'write',
    summary: "Unlink a login method from its primary user (the primary user's own login method is deleted).",
  }),
  route({
    id: 'usermetadata-get',
    method: 'GET',
    path: '/recipe/user/metadata',
    entry: 'functions/usermetadata/get-user-metadata.ts',
    scope: 'app',
    summary: "A user id's metadata (`{}` when none).",
  }),
  route({
    id: 'usermetadata-update',
    method: 'PUT',
    path: '/recipe/user/metadata',
    entry: 'functions/usermetadata/update-user-metadata.ts',
    scope: 'app',
    access: 'write',
    summary: "Shallow-merge `metadataUpdate` into a user id's metadata (`null` deletes a key).",
  }),
  route({
    id: 'usermetadata-remove',
    method: 'POST',
    path: '/recipe/user/metadata/remove',
    entry: 'functions/usermetadata/remove-user-metadata.ts',
    scope: 'app',
    access: 'write',
    summary: "Remove a user id's metadata.",
  }),
  route({
    id: 'useridmapping-create',
    method: 'POST',
    path: '/recipe/userid/map',
    entry: 'functions/useridmapping/create-user-id-mapping.ts',
    scope: 'app',
    access: 'write',
    summary: 'Map a login method to the id the previous provider gave it.',
  }),
  route({
    id: 'useridmapping-get',
    method: 'GET',
    path: '/recipe/userid/map',
    entry: 'functions/useridmapping/get-user-id-mapping.ts',
    scope: 'app',
    summary: 'The mapping of a SuperTokens or external user id (`userIdType`).',
  }),
  route({
    id: 'useridmapping-remove',
    method: 'POST',
    path: '/recipe/userid/map/remove',
    entry: 'functions/useridmapping/remove-user-id-mapping.ts',
    scope: 'app',
    access: 'write',
    summary: 'Remove a user id mapping.',
  }),
  route({
    id: 'useridmapping-update-info',
    method: 'PUT',
    path: '/recipe/userid/external-user-id-info',
    entry: 'functions/useridmapping/update-external-user-id-info.ts',
    scope: 'app',
    access: 'write',
    summary: 'Set or clear the free text kept with a user id mapping.',
  }),
  route({
    id: 'emailverification-create-token',
    method: 'POST',
    path: '/recipe/user/email/verify/token',
    entry: 'functions/emailverification/create-token.ts',
    access: 'write',
    summary: 'A single-use token proving an email of a login method, in this tenant.',
  }),
  route({
    id: 'emailverification-verify',
    method: 'POST',
    path: '/recipe/user/email/verify',
    entry: 'functions/emailverification/verify-email.ts',
    access: 'write',
    summary: 'Verify an email with a token (`method: token`).',
  }),
  route({
    id: 'emailverification-is-verified',
    method: 'GET',
    path: '/recipe/user/email/verify',
    entry: 'functions/emailverification/is-verified.ts',
    scope: 'app',
    summary: 'Whether an email of a login method is verified.',
  }),
  route({
    id: 'emailverification-revoke-tokens',
    method: 'POST',
    path: '/recipe/user/email/verify/token/remove',
    entry: 'functions/emailverification/revoke-tokens.ts',
    access: 'write',
    summary: 'Revoke every email verification token of a login method and email in this tenant.',
  }),
  route({
    id: 'emailverification-unverify',
    method: 'POST',
    path: '/recipe/user/email/verify/remove',
    entry: 'functions/emailverification/unverify.ts',
    scope: 'app',
    access: 'write',
    summary: 'Mark an email of a login method unverified.',
  }),
  route({
    id: 'userroles-create-role',
    method: 'PUT',
    path: '/recipe/role',
    entry: 'functions/userroles/create-role.ts',
    scope: 'app',
    access: 'write',
    summary: 'Create a role, or add permissions to it.',
  }),
  route({ id: 'userroles-list-roles', method: 'GET', path: '/recipe/roles', entry: 'functions/userroles/list-roles.ts', scope: 'app', summary: 'Every role.' }),
  route({
    id: 'userroles-remove-role',
    method: 'POST',
    path: '/recipe/role/remove',
    entry: 'functions/userroles/remove-role.ts',
    scope: 'app',
    access: 'write',
    summary: 'Remove a role, its permissions, and it from every user.',
  }),
  route({
    id: 'userroles-role-permissions',
    method: 'GET',
    path: '/recipe/role/permissions',
    entry: 'functions/userroles/role-permissions.ts',
    scope: 'app',
    summary: 'The permissions of a role.',
  }),
  route({
    id: 'userroles-remove-permissions',
    method: 'POST',
    path: '/recipe/role/permissions/remove',
    entry: 'functions/userroles/remove-permissions.ts',
    scope: 'app',
    access: 'write',
    summary: 'Remove permissions (or all) from a role.',
  }),
  route({
    id: 'userroles-permission-roles',
    method: 'GET',
    path: '/recipe/permission/roles',
    entry: 'functions/userroles/permission-roles.ts',
    scope: 'app',
    summary: 'The roles holding a permission.',
  }),
  route({
    id: 'userroles-add-user-role',
    method: 'PUT',
    path: '/recipe/user/role',
    entry: 'functions/userroles/add-user-role.ts',
    access: 'write',
    summary: 'Give a user id a role in this tenant.',
  }),
  route({
    id: 'userroles-remove-user-role',
    method: 'POST',
    path: '/recipe/user/role/remove',
    entry: 'functions/userroles/remove-user-role.ts',
    access: 'write',
    summary: 'Take a role from a user id in this tenant.',
  }),
  route({
    id: 'userroles-user-roles',
    method: 'GET',
    path: '/recipe/user/roles',
    entry: 'functions/userroles/user-roles.ts',
    summary: 'The roles of a user id in this tenant.',
  }),
  route({
    id: 'userroles-role-users',
    method: 'GET',
    path: '/recipe/role/users',
    entry: 'functions/userroles/role-users.ts',
    summary: 'The user ids holding a role in this tenant.',
  }),
  // TOTP (SPEC §20): app-wide devices, checks per tenant (the rate limit and used codes are).
  route({
    id: 'totp-device-create',
    method: 'POST',
    path: '/recipe/totp/device',
    entry: 'functions/totp/create-device.ts',
    scope: 'app',
    access: 'write',
    summary: 'Create an unverified TOTP device (its secret in this answer only); replaces an unverified one of the same name.',
  }),
  route({
    id: 'totp-device-rename',
    method: 'PUT',
    path: '/recipe/totp/device',
    entry: 'functions/totp/rename-device.ts',
    scope: 'app',
    access: 'write',
    summary: 'Rename a TOTP device.',
  }),
  route({
    id: 'totp-device-list',
    method: 'GET',
    path: '/recipe/totp/device/list',
    entry: 'functions/totp/list-devices.ts',
    scope: 'app',
    summary: "A user id's TOTP devices, oldest first, without secrets.",
  }),
  route({
    id: 'totp-device-remove',
    method: 'POST',
    path: '/recipe/totp/device/remove',
    entry: 'functions/totp/remove-device.ts',
    scope: 'app',
    access: 'write',
    summary: "Remove a TOTP device (the last one takes the user id's TOTP data).",
  }),
  route({
    id: 'totp-device-import',
    method: 'POST',
    path: '/recipe/totp/device/import',
    entry: 'functions/totp/import-device.ts',
    scope: 'app',
    access: 'write',
    summary: "Import a verified TOTP device from an old provider's base32 secret.",
  }),
  route({
    id: 'totp-device-verify',
    method: 'POST',
    path: '/recipe/totp/device/verify',
    entry: 'functions/totp/verify-device.ts',
    access: 'write',
    summary: 'Verify a TOTP device with a code of its own (rate-limited per user and tenant).',
  }),
  route({
    id: 'totp-verify',
    method: 'POST',
    path: '/recipe/totp/verify',
    entry: 'functions/totp/verify-code.ts',
    access: 'write',
    summary: "Check a code of the user's verified TOTP devices (rate-limited, each code once).",
  }),
  // WebAuthn (SPEC §21): options and ceremonies per tenant; a user's passkeys app-wide, as the SDK calls them.
  route({
    id: 'webauthn-options-register',
    method: 'POST',
    path: '/recipe/webauthn/options/register',
    entry: 'functions/webauthn/register-options.ts',
    access: 'write',
    summary: 'Registration options for an email (challenge, RP, user handle), stored for the sign-up or credential registration.',
  }),
  route({
    id: 'webauthn-options-signin',
    method: 'POST',
    path: '/recipe/webauthn/options/signin',
    entry: 'functions/webauthn/sign-in-options.ts',
    access: 'write',
    summary: 'Sign-in options (a challenge for a discoverable passkey), stored for the sign-in.',
  }),
  route({
    id: 'webauthn-options-get',
    method: 'GET',
    path: '/recipe/webauthn/options',
    entry: 'functions/webauthn/get-options.ts',
    summary: 'Stored WebAuthn options of this tenant, expired or not.',
  }),
  route({
    id: 'webauthn-options-remove',
    method: 'DELETE',
    path: '/recipe/webauthn/options/remove',
    entry: 'functions/webauthn/remove-options.ts',
    access: 'write',
    summary: 'Remove stored WebAuthn options.',
  }),
  route({
    id: 'webauthn-signup',
    method: 'POST',
    path: '/recipe/webauthn/signup',
    entry: 'functions/webauthn/sign-up.ts',
    access: 'write',
    summary: "Verify a passkey's registration and create a webauthn user with the options' email.",
  }),
  route({
    id: 'webauthn-signin',
    method: 'POST',
    path: '/recipe/webauthn/signin',
    entry: 'functions/webauthn/sign-in.ts',
    access: 'write',
    summary: 'Verify an assertion and sign its passkey’s user in (the counter and the options’ use in one write; one byte-identical repeat answered).',
  }),
  route({
    id: 'webauthn-credential-register',
    method: 'POST',
    path: '/recipe/webauthn/user/credential/register',
    entry: 'functions/webauthn/register-credential.ts',
    scope: 'app',
    access: 'write',
    summary: 'Verify a registration and add the passkey to a webauthn login method.',
  }),
  route({
    id: 'webauthn-credential-list',
    method: 'GET',
    path: '/recipe/webauthn/user/credential/list',
    entry: 'functions/webauthn/list-credentials.ts',
    scope: 'app',
    summary: "A webauthn login method's passkeys.",
  }),
  route({
    id: 'webauthn-credential-get',
    method: 'GET',
    path: '/recipe/webauthn/user/credential',
    entry: 'functions/webauthn/get-credential.ts',
    scope: 'app',
    summary: 'One passkey of a webauthn login method.',
  }),
  route({
    id: 'webauthn-credential-remove',
    method: 'DELETE',
    path: '/recipe/webauthn/user/credential/remove',
    entry: 'functions/webauthn/remove-credential.ts',
    scope: 'app',
    access: 'write',
    summary: 'Remove a passkey from its login method (its key goes with its guard).',
  }),
  route({
    id: 'webauthn-recover-token',
    method: 'POST',
    path: '/recipe/webauthn/user/recover/token',
    entry: 'functions/webauthn/generate-recover-token.ts',
    access: 'write',
    summary: 'An account recovery token for a user and an email in this tenant (stored as its SHA-256).',
  }),
  route({
    id: 'webauthn-recover-token-consume',
    method: 'POST',
    path: '/recipe/webauthn/user/recover/token/consume',
    entry: 'functions/webauthn/consume-recover-token.ts',
    access: 'write',
    summary: 'Consume a recovery token once (every token of its email goes with it); its user id and email.',
  }),
  route({
    id: 'webauthn-recover-user',
    method: 'GET',
    path: '/recipe/webauthn/user/recover',
    entry: 'functions/webauthn/get-recover-user.ts',
    summary: "A recovery token's user and its webauthn login method in this tenant, not consuming it.",
  }),
  route({
    id: 'webauthn-user-email',
    method: 'PUT',
    path: '/recipe/webauthn/user/email',
    entry: 'functions/webauthn/update-email.ts',
    access: 'write',
    summary: "Change a webauthn login method's email (its guards move with it).",
  }),
  route({
    id: 'bulkimport-stage',
    method: 'POST',
    path: '/bulk-import/users',
    entry: 'functions/bulkimport/stage-users.ts',
    scope: 'app',
    access: 'write',
    secrets: ['apiKeys', 'signerKey'],
    ...bulk,
    summary: 'Stage up to 10,000 users for import (all validated first; nothing is staged if one is invalid).',
  }),
  route({
    id: 'bulkimport-list',
    method: 'GET',
    path: '/bulk-import/users',
    entry: 'functions/bulkimport/list-rows.ts',
    scope: 'app',
    summary: 'Staged rows, newest first (`status`, `limit`, `paginationToken`); hashes and passwords never shown.',
  }),
  route({
    id: 'bulkimport-count',
    method: 'GET',
    path: '/bulk-import/users/count',
    entry: 'functions/bulkimport/count-rows.ts',
    scope: 'app',
    summary: 'How many staged rows there are (`status`): exact.',
  }),
  route({
    id: 'bulkimport-import',
    method: 'POST',
    path: '/bulk-import/import',
    entry: 'functions/bulkimport/import-user.ts',
    scope: 'app',
    access: 'write',
    secrets: ['apiKeys', 'signerKey'],
    hashesPasswords: true,
    summary: 'Import one bulk user now, in one transaction (as the worker imports a staged row).',
  }),
  route({
    id: 'bulkimport-remove',
    method: 'POST',
    path: '/bulk-import/users/remove',
    entry: 'functions/bulkimport/remove-rows.ts',
    scope: 'app',
    access: 'write',
    summary: 'Remove staged rows by id (at most 500), in any status.',
  }),
  // Sessions and JWT (SPEC §18). Every one may make a missing or due signing key (`KeyRing`), so
  // even the reading ones write. Verify, refresh and the per-handle calls take the tenant from the
  // token or handle (`appFromToken`).
  ...sessionRoutes(),
];

function sessionRoutes(): RouteDef[] {
  const session = (def: Pick<RouteDef, 'id' | 'method' | 'path' | 'entry' | 'summary'> & Partial<RouteDef>) => route({ access: 'write', ...def });
  return [
    session({
      id: 'session-create',
      method: 'POST',
      path: '/recipe/session',
      entry: 'functions/session/create-session.ts',
      summary: 'Create a session for a user id: access token v5, refresh token, anti-CSRF token when asked.',
    }),
    session({
      id: 'session-verify',
      method: 'POST',
      path: '/recipe/session/verify',
      entry: 'functions/session/verify-session.ts',
      scope: 'appFromToken',
      summary: 'Verify an access token; the first use after a refresh promotes it (new access token).',
    }),
    session({
      id: 'session-refresh',
      method: 'POST',
      path: '/recipe/session/refresh',
      entry: 'functions/session/refresh-session.ts',
      scope: 'appFromToken',
      summary: 'New tokens for a refresh token; an old one is `TOKEN_THEFT_DETECTED`.',
    }),
    session({
      id: 'session-regenerate',
      method: 'POST',
      path: '/recipe/session/regenerate',
      entry: 'functions/session/regenerate-session.ts',
      scope: 'appFromToken',
      summary: 'Store a new access-token payload and mint a token with the same expiry.',
    }),
    session({
      id: 'session-remove',
      method: 'POST',
      path: '/recipe/session/remove',
      entry: 'functions/session/remove-sessions.ts',
      summary: "Revoke sessions by handles, or a user's (across tenants and linked accounts by default).",
    }),
    session({
      id: 'session-get',
      method: 'GET',
      path: '/recipe/session',
      entry: 'functions/session/get-session.ts',
      access: 'read',
      scope: 'appFromToken',
      summary: 'A session by handle: user ids, both payloads, expiry, tenant.',
    }),
    session({
      id: 'session-user',
      method: 'GET',
      path: '/recipe/session/user',
      entry: 'functions/session/user-sessions.ts',
      access: 'read',
      summary: "The handles of a user's live sessions (across tenants and linked accounts by default).",
    }),
    session({
      id: 'session-data-update',
      method: 'PUT',
      path: '/recipe/session/data',
      entry: 'functions/session/update-session-data.ts',
      scope: 'appFromToken',
      summary: "Replace a session's data in the database.",
    }),
    session({
      id: 'jwt-data-update',
      method: 'PUT',
      path: '/recipe/jwt/data',
      entry: 'functions/session/update-jwt-data.ts',
      scope: 'appFromToken',
      summary: "Replace a session's stored access-token payload (issued tokens unchanged).",
    }),
    session({
      id: 'jwks',
      method: 'GET',
      path: '/.well-known/jwks.json',
      entry: 'functions/session/jwks.ts',
      auth: 'none',
      scope: 'app',
      secrets: [],
      summary: 'The public signing keys, no API key; `Cache-Control` until the next key is due.',
    }),
    session({
      id: 'jwt-jwks',
      method: 'GET',
      path: '/recipe/jwt/jwks',
      entry: 'functions/session/jwt-jwks.ts',
      scope: 'app',
      summary: 'The public signing keys with `status` (deprecated form).',
    }),
    session({
      id: 'session-exchange',
      method: 'POST',
      path: '/recipe/migration/session/exchange',
      entry: 'functions/migration/exchange-session.ts',
      // The issuers an operator keeps in SSM (those with an inline secret), beside the context's.
      secrets: ['apiKeys', 'sessionExchange'],
      summary: "Exchange an old provider's token (Firebase, Auth0, OIDC…) for its imported user, once (SPEC §19).",
    }),
    session({
      id: 'jwt-create',
      method: 'POST',
      path: '/recipe/jwt',
      entry: 'functions/session/create-jwt.ts',
      scope: 'app',
      summary: 'Sign a JWT (RS256) with the static key (or the current dynamic one).',
    }),
  ];
}

/** What a Lambda function is, route or not: the part of a route the function itself needs. */
export type FunctionDef = Pick<RouteDef, 'id' | 'entry' | 'access' | 'secrets' | 'hashesPasswords' | 'bulk' | 'summary'> &
  Partial<Pick<RouteDef, 'method' | 'path' | 'readsWholeList'>>;

/** Functions no route calls: fed by the table's stream or by a schedule. */
export const BACKGROUND_FUNCTIONS: readonly FunctionDef[] = [
  {
    id: 'bulkimport-worker',
    entry: 'functions/bulkimport/worker.ts',
    access: 'write',
    secrets: [],
    hashesPasswords: true,
    bulk: true,
    summary: 'Imports staged bulk rows, fed by the table stream (SPEC §15).',
  },
  {
    id: 'bulkimport-sweeper',
    entry: 'functions/bulkimport/sweeper.ts',
    access: 'write',
    secrets: [],
    hashesPasswords: false,
    bulk: false,
    summary: 'Hands bulk rows a crash left NEW or PROCESSING to the worker again, every 5 minutes.',
  },
];

export const backgroundFunction = (id: string): FunctionDef => {
  const found = BACKGROUND_FUNCTIONS.find((f) => f.id === id);
  if (!found) throw new Error(`Unknown function id ${id}`);
  return found;
};

/**
 * A route's recipe family: the folder of its handler under `functions/` (`functions/session/…` is
 * `session`). The stack deploys each family (its functions, their API routes and integrations,
 * their throttle alarms) as a nested stack of its own (`infra/constructs/route-family.ts`), so a
 * new family adds a stack rather than filling the one CloudFormation stack (500 resources).
 *
 * A function's name is fixed (`auth-core-<stage>-<route id>`), and so is each API route's key:
 * moving an existing route to another folder moves it to another stack, which CloudFormation
 * cannot do in one deploy (it creates in the new stack before it deletes from the old, and the
 * names collide). docs/DEPLOY.md, "Stacks", says how.
 */
export function routeFamily(route: Pick<RouteDef, 'id' | 'entry'>): string {
  const family = /^functions\/([a-z][a-z0-9]*)\/[^/]+\.ts$/.exec(route.entry)?.[1];
  if (family === undefined) throw new Error(`Route ${route.id}: entry ${route.entry} is not functions/<family>/<operation>.ts`);
  return family;
}

/** The 413 text of a route whose body is over `maxBodyBytes`. */
export function tooLargeText(route: RouteDef): string {
  return route.tooLargeText ?? `Request body is larger than ${route.maxBodyBytes} bytes`;
}

/**
 * What a route's handler reads at run time. Each handler bundle gets its own route as a constant
 * at build time (`routeDefine` in `infra/bundling.ts`), so no bundle carries this whole table.
 */
export type HandlerRoute = Pick<RouteDef, 'id' | 'method' | 'path' | 'auth' | 'scope' | 'maxBodyBytes' | 'bulk'> & {
  readonly tooLargeText: string;
};

export function handlerRouteOf(route: RouteDef): HandlerRoute {
  const { id, method, path, auth, scope, maxBodyBytes, bulk } = route;
  return { id, method, path, auth, scope, maxBodyBytes, bulk, tooLargeText: tooLargeText(route) };
}

/** Looks a route up by id; throws on an unknown id (a programming error caught by the tests). */
export function routeById(id: string): RouteDef {
  const found = ROUTES.find((r) => r.id === id);
  if (!found) throw new Error(`Unknown route id ${id}`);
  return found;
}
