/** Storage-level domain records. No DynamoDB types leak out of `lib/storage/dynamo`. */

export type RecipeId = 'emailpassword' | 'thirdparty' | 'passwordless' | 'webauthn';

/**
 * One login method (a "recipe user"): an email-password, third-party or passwordless account with
 * its own `recipeUserId` (`userId` here). On its own it is a user; account linking (SPEC §11)
 * groups several into one primary user (`AuthUser`).
 */
export interface UserRecord {
  /** The recipe user id. */
  readonly userId: string;
  readonly recipeId: RecipeId;
  readonly tenantIds: readonly string[];
  readonly timeJoined: number;
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdParty?: { readonly id: string; readonly userId: string };
  /**
   * The emails proven for this login method (SPEC §13: verification is per login method and
   * email): by a consumed code, a provider, a bulk row, or an email verification token. Its
   * `verified` is whether its current email is among them; a changed email starts unproven, and
   * one proven earlier counts again (as the core keeps a row per email).
   */
  readonly verifiedEmails: readonly string[];
  /** The current phone number was proven by a consumed code. */
  readonly phoneVerified: boolean;
  /** Stored password hash (email-password users only). Never leaves `lib/`. */
  readonly passwordHash?: string;
  /**
   * Imported without a hash (SPEC §16): the first sign-in asks the previous provider whether the
   * password is right and then stores the service's own hash, which clears this mark. Only an
   * email-password login method without a hash carries it.
   */
  readonly passwordMigration?: { readonly markedAt: number };
  /**
   * The id the previous provider gave this user (SPEC §12): unique in the app, and the login
   * method's id to the outside once set.
   */
  readonly externalUserId?: string;
  /** Free text the operator keeps with the mapping. */
  readonly externalUserIdInfo?: string;
  /**
   * Passwordless only: when a code of this login method's email or phone was last consumed, per
   * tenant (ms epoch). A consume ends every other pending code of that email or phone in that
   * tenant (SPEC §5, as the core deletes those devices): a device created before this time no
   * longer signs in (`isDeviceSuperseded`), which saves a consume the read and deletes of them.
   */
  readonly codesConsumedAt?: { readonly [tenantId: string]: CodesConsumedAt };
  /**
   * WebAuthn only (SPEC §21): the ids (base64url, unpadded) of its passkeys, oldest first. Each is
   * unique in the app (a guard item); its key and counter are kept beside that guard.
   */
  readonly webauthnCredentialIds?: readonly string[];
  /** Incremented on every write; conditional writes compare it (optimistic locking). */
  readonly version: number;
}

/**
 * A user as the API shows it: one login method on its own, or a primary user with every login
 * method linked to it (SPEC §11).
 */
export interface AuthUser {
  /**
   * The user's id: the primary user's id (the recipe user id of the login method that became
   * primary; it stays the id even after that login method is removed), else the one login
   * method's own id.
   */
  readonly id: string;
  readonly isPrimary: boolean;
  /** Oldest first (`timeJoined`, then recipe user id); exactly one unless `isPrimary`. */
  readonly loginMethods: readonly UserRecord[];
}

/**
 * A unique identity a login method holds, protected by a guard item: an email, phone number or
 * third-party identity per tenant and recipe, or an external user id or a passkey's credential id
 * per app.
 */
export type IdentityKind = 'email' | 'phone' | 'thirdParty' | 'externalUserId' | 'webauthnCredential';

/**
 * One piece of account info (SPEC §11): an email (any recipe), a phone number or a third-party
 * identity. No two primary users sharing a tenant may hold the same one.
 */
export type AccountInfo =
  | { readonly kind: 'email'; readonly email: string }
  | { readonly kind: 'phone'; readonly phoneNumber: string }
  | { readonly kind: 'thirdParty'; readonly thirdPartyId: string; readonly thirdPartyUserId: string };

/** Passwordless identity of a device. */
export type PasswordlessIdentity = { readonly email: string } | { readonly phoneNumber: string };

/** When a code sent to the email, and one sent to the phone number, was last consumed. */
export interface CodesConsumedAt {
  readonly email?: number;
  readonly phone?: number;
}

/** A pending passwordless sign-in: one email or phone, one or more codes. */
export interface DeviceRecord {
  /** base64url(SHA-256(deviceId bytes)); the device's key. The deviceId itself is never stored. */
  readonly preAuthSessionId: string;
  readonly tenantId: string;
  readonly email?: string;
  readonly phoneNumber?: string;
  /** Base64 32-byte salt mixed into link codes; never returned. */
  readonly linkCodeSalt: string;
  readonly failedAttempts: number;
  /** Latest expiry of the device's codes, ms epoch (TTL is derived from it). */
  readonly expiresAt: number;
  /**
   * The device's change counter: counted up by every resend and every removal of one of its codes
   * (absent on devices an older build made). Consuming or deleting the device is conditional on
   * it, so a code added after the read is never left without its device, and a code removed after
   * a consume read it never signs in.
   */
  readonly codeCount?: number;
}

/** One code of a device. Only the SHA-256 of its link code is stored. */
export interface CodeRecord {
  readonly preAuthSessionId: string;
  readonly linkCodeHash: string;
  readonly codeId: string;
  readonly timeCreated: number;
  readonly codeLifetime: number;
}

export interface TenantRecord {
  readonly tenantId: string;
  readonly createdAt: number;
  /** The login methods a user may start a sign-in with here (SPEC §18b); every one the app has when absent. */
  readonly firstFactors?: readonly string[];
  /** The factors every user must complete after the first one; none when absent. */
  readonly requiredSecondaryFactors?: readonly string[];
}

/**
 * One client of a tenant's third-party provider (SPEC §22), as the core keeps it: absent fields
 * are absent (never `null`); `clientType` `""` is absent, as the core's storage reads it back.
 * `clientSecret` and `additionalConfig` may hold secrets: never logged, never in a 400 text.
 */
export interface ProviderClient {
  readonly clientType?: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  /** `null` items only where `skipValidation` let them in, as the core keeps them. */
  readonly scope?: readonly (string | null)[];
  readonly forcePKCE?: boolean;
  /** Without `null` members (the core's serialiser drops them, at any depth). */
  readonly additionalConfig?: JsonObject;
}

/** Where a provider's user info finds the user id, email and whether it is verified. */
export interface UserInfoMapSide {
  readonly userId?: string;
  readonly email?: string;
  readonly emailVerified?: string;
}

/**
 * A tenant's third-party provider as the core stores and answers it (SPEC §22): its fields in
 * the core's order, absent ones absent, `clients` and both sides of `userInfoMap` always there.
 * The four param/header objects keep their `null` values.
 */
export interface ThirdPartyProvider {
  readonly thirdPartyId: string;
  readonly name?: string;
  readonly clients: readonly ProviderClient[];
  readonly authorizationEndpoint?: string;
  readonly authorizationEndpointQueryParams?: JsonObject;
  readonly tokenEndpoint?: string;
  readonly tokenEndpointBodyParams?: JsonObject;
  readonly userInfoEndpoint?: string;
  readonly userInfoEndpointQueryParams?: JsonObject;
  readonly userInfoEndpointHeaders?: JsonObject;
  readonly jwksURI?: string;
  readonly oidcDiscoveryEndpoint?: string;
  readonly requireEmail?: boolean;
  readonly userInfoMap: { readonly fromIdTokenPayload: UserInfoMapSide; readonly fromUserInfoAPI: UserInfoMapSide };
}

/**
 * A tenant with its third-party providers (SPEC §22), in the order they were added: what
 * `GET …/tenant/v2` answers. `providersVersion` counts the changes of the list (a write is
 * conditional on it); `providerBytes` is the stored JSON text of the providers (the cache's bound).
 */
export interface TenantConfigRecord extends TenantRecord {
  readonly providers: readonly ThirdPartyProvider[];
  readonly providersVersion: number;
  readonly providerBytes: number;
}

/** A tenant's factors as a `PUT` changes them: a list replaces, `null` clears, absent leaves as it is. */
export interface TenantFactorsChange {
  readonly firstFactors?: readonly string[] | null;
  readonly requiredSecondaryFactors?: readonly string[] | null;
}

/** The factor lists of a tenant (`TenantRecord`), by name. */
export const TENANT_FACTOR_LISTS = ['firstFactors', 'requiredSecondaryFactors'] as const;

/** A JSON object, as user metadata holds it. */
export type JsonObject = { [key: string]: unknown };

/** A user's metadata (SPEC §14), with the version conditional writes compare. */
export interface MetadataRecord {
  readonly metadata: JsonObject;
  readonly version: number;
}

/**
 * An email verification token (SPEC §13). Only the SHA-256 of the token is stored; it proves one
 * email of one login method, in the tenant it was made in.
 */
export interface VerificationTokenRecord {
  readonly tokenHash: string;
  readonly tenantId: string;
  /** The login method whose email it proves (its recipe user id). */
  readonly recipeUserId: string;
  /** The user id as the request that made the token gave it (what verifying answers). */
  readonly userId: string;
  readonly email: string;
  readonly expiresAt: number;
}

/**
 * A password reset token (SPEC §18b). Only the SHA-256 of the token is stored. Per app, as in the
 * core: any tenant may consume it.
 */
export interface PasswordResetTokenRecord {
  readonly tokenHash: string;
  /**
   * The SuperTokens id it was made for (a recipe user id, or a primary user's id): an external id
   * given at creation is stored as the login method it names, so a change of mapping since does not
   * move the token, and consuming answers the mapping of that moment.
   */
  readonly userId: string;
  /** The email to reset the password of (normalised, SPEC §3). */
  readonly email: string;
  readonly expiresAt: number;
}

/**
 * A role (SPEC §14). `roleUid` tells incarnations apart: a role removed and created again is a new
 * role, and assignments of the old one (left by a removal that could not finish) never count for it.
 */
export interface RoleRecord {
  readonly role: string;
  readonly roleUid: string;
}

/** Where a staged bulk-import row is (SPEC §15): deleted once imported. */
export type BulkImportStatus = 'NEW' | 'PROCESSING' | 'FAILED';
export const BULK_IMPORT_STATUSES: readonly BulkImportStatus[] = ['NEW', 'PROCESSING', 'FAILED'];

/** One login method of a bulk user, validated and normalised (SPEC §15). */
export interface BulkLoginMethod {
  /** The recipe user id it will get, chosen at staging. */
  readonly superTokensUserId: string;
  readonly recipeId: RecipeId;
  readonly tenantIds: readonly string[];
  readonly isVerified: boolean;
  readonly isPrimary: boolean;
  readonly timeJoined: number;
  readonly email?: string;
  /** The hash as it will be stored (normalised by the §7 parser). Never returned. */
  readonly passwordHash?: string;
  /** `BCRYPT`, `ARGON2` or `FIREBASE_SCRYPT`, as the core shows it. */
  readonly hashingAlgorithm?: string;
  /** Hashed with the service's own Argon2id when the row is imported. Never returned. */
  readonly plainTextPassword?: string;
  /** No hash: the first sign-in checks the password with the previous provider (SPEC §16). */
  readonly migratePasswordOnSignIn?: boolean;
  readonly thirdPartyId?: string;
  readonly thirdPartyUserId?: string;
  readonly phoneNumber?: string;
  /** WebAuthn only (SPEC §21 passkey import): the passkeys' public parts, ids unique in the request. */
  readonly webauthnCredentials?: readonly BulkWebauthnCredential[];
}

/** A passkey of a bulk user (SPEC §21): only public data, nothing here can sign. */
export interface BulkWebauthnCredential {
  /** base64url, unpadded. */
  readonly credentialId: string;
  /** The COSE_Key, base64url unpadded; decoded and checked at validation. */
  readonly publicKey: string;
  /** Trimmed, lower-cased; one of `WEBAUTHN_RP_ID`. */
  readonly rpId: string;
  readonly counter: number;
  readonly transports: readonly string[];
  /** UUID, lower case. */
  readonly aaguid: string;
  /** Kept as given, never checked. */
  readonly userHandle?: string;
  readonly createdAt: number;
}

/** A user of a bulk import, validated and normalised (SPEC §15). */
export interface BulkUser {
  /** The row id: the primary login method's `superTokensUserId`. */
  readonly id: string;
  readonly externalUserId?: string;
  readonly userMetadata?: JsonObject;
  readonly userRoles?: readonly { readonly role: string; readonly tenantIds: readonly string[] }[];
  readonly totpDevices?: readonly BulkTotpDevice[];
  readonly loginMethods: readonly BulkLoginMethod[];
}

/** An authenticator app of a bulk user (SPEC §20), imported verified; its name unique within the user. */
export interface BulkTotpDevice {
  /** Trimmed, or the core's default name (`TOTP Device <n>`). */
  readonly deviceName: string;
  /** Canonical base32 (upper case, unpadded): never shown, logged or kept in a `FAILED` row. */
  readonly secretKey: string;
  readonly period: number;
  readonly skew: number;
}

/** A staged bulk user and where it is. */
export interface BulkImportRow {
  readonly user: BulkUser;
  readonly status: BulkImportStatus;
  readonly errorMessage?: string;
  /** Set once a failed row's user had become a primary user (the core's field). */
  readonly primaryUserId?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Attempts that ended in an internal error (the sweeper gives up on a row after a few). */
  readonly attempts?: number;
}

/** A session (SPEC §18): what the core keeps in `session_info`, and the primary user id at creation. */
export interface SessionRecord {
  /** UUID v4, plus `_<tenantId>` outside `public`. */
  readonly handle: string;
  readonly tenantId: string;
  /** The login method's id as the session was created with (the external id where mapped). */
  readonly recipeUserId: string;
  /** The primary user's id at creation (external where mapped): linking or unlinking revokes the session. */
  readonly userId: string;
  /** `sha256hex(sha256hex(current refresh token))`: never the token. */
  readonly refreshTokenHash2: string;
  readonly userDataInJWT: JsonObject;
  readonly userDataInDatabase: JsonObject;
  readonly createdAt: number;
  /** When the refresh token stops working; slides at each promotion. */
  readonly expiresAt: number;
  /** Signed with the static key (`useDynamicSigningKey: false`). */
  readonly useStaticKey: boolean;
}

/** An RSA signing key as kept in the table (SPEC §18): the private key never leaves `lib/`. */
export interface SigningKeyRecord {
  /** `d-<createdAt>` (dynamic) or `s-<uuid>` (static). */
  readonly kid: string;
  readonly createdAt: number;
  /** PKCS#8 PEM. */
  readonly privateKey: string;
  /** SPKI PEM. */
  readonly publicKey: string;
}

/** The dynamic keys (with their generation), the static key and the refresh-token key, as stored. */
export interface StoredSigningKeys {
  readonly dynamic: readonly (SigningKeyRecord & { readonly generation: number })[];
  readonly staticKey?: SigningKeyRecord;
  /** 32 random bytes, base64: the AES-256-GCM key refresh tokens are sealed with. */
  readonly refreshTokenKey?: string;
}

/**
 * WebAuthn options (SPEC §21): what a registration or sign-in ceremony must match, made by the
 * options endpoints. Registration options carry the email; sign-in options none.
 */
export interface WebauthnOptionsRecord {
  /** `webauthnGeneratedOptionsId`, a UUID. */
  readonly id: string;
  readonly tenantId: string;
  /** 32 random bytes, base64url unpadded. */
  readonly challenge: string;
  readonly origin: string;
  readonly rpId: string;
  readonly rpName: string;
  readonly email?: string;
  readonly timeout: number;
  readonly userVerification: string;
  readonly userPresence: boolean;
  readonly createdAt: number;
  readonly expiresAt: number;
  /**
   * The first assertion accepted on these options (its SHA-256, hex), and how many times it was
   * answered `OK` (1 or 2): the double call of SDK 24.0.0–24.0.2 (SPEC §21).
   */
  readonly spentBy?: string;
  readonly uses?: number;
}

/**
 * A WebAuthn account recovery token (SPEC §21). Only the SHA-256 of the token is stored. Per
 * tenant, as in the core: another tenant's path does not find it.
 */
export interface WebauthnRecoveryTokenRecord {
  /** SHA-256 of the token, hex. */
  readonly tokenHash: string;
  readonly tenantId: string;
  /** The SuperTokens id it was made for (an external id given at creation is stored as the id it maps to). */
  readonly userId: string;
  /** Normalised (SPEC §3); consuming a token ends every token of this email in its tenant. */
  readonly email: string;
  readonly expiresAt: number;
}

/** A passkey's public part and counter, kept beside its credential id's guard (SPEC §21). */
export interface WebauthnCredentialRecord {
  /** base64url, unpadded. */
  readonly credentialId: string;
  /** The webauthn login method holding it. */
  readonly recipeUserId: string;
  /** COSE_Key, base64url. */
  readonly publicKey: string;
  readonly counter: number;
  readonly rpId: string;
  readonly transports: readonly string[];
  /** UUID. */
  readonly aaguid: string;
  /** A passkey import's (SPEC §21): kept, never checked. */
  readonly userHandle?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}
