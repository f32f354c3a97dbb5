import { toE164 } from '../../phone/e164';
import { isKnownHashingAlgorithm, validateImportedHash, type ValidateImportedHashOptions } from '../../password/formats';
import { MAX_PASSWORD_BYTES } from '../../password/limits';
import type { BulkLoginMethod, BulkTotpDevice, BulkUser, JsonObject, RecipeId } from '../../storage/model';
import { defaultDeviceName } from '../totp/add-device';
import { canonicalSecret } from '../totp/base32';
import { MAX_SKEW } from '../totp/limits';
import { jsonValueProblems } from '../usermetadata/json-value';
import { MAX_JSON_DEPTH, MAX_METADATA_BYTES } from '../usermetadata/limits';
import { MAX_ROLE_LENGTH, MAX_ROLES_PER_USER } from '../userroles/limits';
import { FieldReader, isObject, normaliseEmail, shown, type Obj } from './bulk-fields';
import { parsePasskeys } from './bulk-webauthn';

/**
 * The bulk user of SPEC §15: validated and normalised, every error collected with the core's texts
 * (`<field> is required<sfx>`, `<field> should be of type <t><sfx>`, …), so an operator fixes a
 * whole export in one pass. Errors come in field order, the order of SPEC §15's table:
 * `externalUserId`, `userMetadata`, `userRoles`, `totpDevices`, `loginMethods`, then each login
 * method's `recipeId`, `tenantIds`, `isVerified`, `isPrimary`, `timeJoinedInMSSinceEpoch` and its
 * recipe's fields. A field's errors come together, its type first; a rule over several fields
 * (`Either … is required`) comes after the last of them. (The core reports the external id's
 * length and uniqueness, and a role's tenant missing from the login methods, after every login
 * method; and a login method's value errors after all its type errors.)
 */

/** What validating a user needs to know about the app and the request so far. */
export interface BulkValidationContext {
  /** Every tenant of the app (`public` included). */
  readonly tenants: ReadonlySet<string>;
  /** Every role of the app. */
  readonly roles: ReadonlySet<string>;
  /** Staging time: the default `timeJoined`, and the bound of a given one. */
  readonly now: number;
  /** A fresh recipe user id. */
  readonly newId: () => string;
  /** External user ids of the earlier users of this request (this one's is added). */
  readonly externalUserIds: Set<string>;
  readonly hashOptions: ValidateImportedHashOptions;
  /** A password migration source is configured (SPEC §16): login methods may come without a hash. */
  readonly passwordMigrationConfigured: boolean;
  /** `WEBAUTHN_RP_ID` (SPEC §21): the relying party ids whose passkeys may be imported. */
  readonly rpIds: readonly string[];
  /** Credential ids of the earlier passkeys of this request (this user's are added). */
  readonly credentialIds: Set<string>;
}

export type BulkUserResult = { readonly ok: true; readonly user: BulkUser } | { readonly ok: false; readonly errors: string[] };

/** A user may have at most this many login methods (one user is one transaction when imported). */
export const MAX_BULK_LOGIN_METHODS = 10;

/**
 * A user may have at most this many TOTP devices: each is one item of the transaction that imports
 * the user (100 items at most), and people use one or two authenticator apps, rarely more.
 */
export const MAX_BULK_TOTP_DEVICES = 10;

const MAX_EXTERNAL_ID = 128;
/** The core's bound of a TOTP device's name and secret. */
const MAX_TOTP_TEXT = 256;
const MAX_PHONE = 256;
const MAX_THIRD_PARTY_ID = 28;
const MAX_THIRD_PARTY_USER_ID = 256;
const MAX_PASSWORD_HASH = 512;

/**
 * A row's `hashingAlgorithm`: the value upper-cased (`BCRYPT`, `PBKDF2`, `SHA_CRYPT`), the vendor's
 * scrypt by the core's name for it.
 */
const algorithmLabel = (algorithm: string): string => (algorithm === 'vendor_scrypt' ? 'FIREBASE_SCRYPT' : algorithm.toUpperCase());

function normalisePhone(raw: string | undefined, errors: string[]): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.length > MAX_PHONE) {
    errors.push(`phoneNumber ${shown(raw)} is too long. Max length is ${MAX_PHONE}.`);
    return undefined;
  }
  const trimmed = raw.trim();
  try {
    if (!trimmed.startsWith('+')) throw new Error('no +');
    return toE164(trimmed);
  } catch {
    errors.push(`phoneNumber ${shown(raw)} must be in international format, for example +14155552671 for a passwordless recipe.`);
    return undefined;
  }
}

/** `tenantIds` of a login method or role: trimmed, lower-cased, each must exist. */
function normaliseTenantIds(raw: readonly string[] | undefined, ctx: BulkValidationContext, sfx: string, errors: string[]): string[] {
  if (raw === undefined) return ['public'];
  const tenantIds: string[] = [];
  for (const given of raw) {
    const tenantId = given.trim().toLowerCase();
    if (!ctx.tenants.has(tenantId)) errors.push(`Invalid tenantId: ${shown(given)}${sfx}`);
    else if (!tenantIds.includes(tenantId)) tenantIds.push(tenantId);
  }
  return tenantIds;
}

/**
 * `userRoles`; a role's tenant other than `public` must be one of the login methods'
 * (`loginMethods`, read first for it).
 */
function parseRoles(
  reader: FieldReader,
  ctx: BulkValidationContext,
  loginMethods: readonly BulkLoginMethod[],
  errors: string[],
): { role: string; tenantIds: string[] }[] | undefined {
  const raw = reader.read<Obj[]>('userRoles', 'array of object', false);
  if (raw === undefined) return undefined;
  const roles: { role: string; tenantIds: string[] }[] = [];
  const sfx = ' for a user role.';
  for (const entry of raw) {
    const r = new FieldReader(entry, errors, sfx);
    const given = r.string('role', true);
    const role = given?.trim();
    if (given !== undefined && given.length > MAX_ROLE_LENGTH) errors.push(`role ${shown(given)} is too long. Max length is ${MAX_ROLE_LENGTH}.`);
    if (role !== undefined && !ctx.roles.has(role)) errors.push(`Role ${shown(role)} does not exist.`);
    const tenantIds = r.read<string[]>('tenantIds', 'array of string', true);
    if (role === undefined) continue;
    const tenants = normaliseTenantIds(tenantIds, ctx, sfx, errors);
    for (const tenantId of tenants) {
      if (tenantId !== 'public' && !loginMethods.some((lm) => lm.tenantIds.includes(tenantId))) {
        errors.push(`TenantId ${shown(tenantId)} for a user role does not exist in loginMethods.`);
      }
    }
    roles.push({ role, tenantIds: tenants });
  }
  const assignments = roles.reduce((n, r) => n + r.tenantIds.length, 0);
  if (assignments > MAX_ROLES_PER_USER) {
    errors.push(`userRoles assigns ${assignments} roles (role and tenant pairs): the maximum is ${MAX_ROLES_PER_USER}.`);
  }
  return roles;
}

/**
 * `totpDevices` (SPEC §20): the core's texts, and beyond the core a base32 check of the secret and
 * names unique within the user. No text ever shows a secret, not even one too long (the core's
 * echoes it). A device without a name gets the core's default, from the number of devices before it
 * upward, past every name of the user's devices, so a re-run names it the same.
 */
function parseTotpDevices(reader: FieldReader, errors: string[]): BulkTotpDevice[] | undefined {
  const raw = reader.read<Obj[]>('totpDevices', 'array of object', false);
  if (raw === undefined) return undefined;
  const sfx = ' for a totp device.';
  if (raw.length > MAX_BULK_TOTP_DEVICES) errors.push(`A user can have at most ${MAX_BULK_TOTP_DEVICES} totpDevices.`);
  const devices: (Omit<BulkTotpDevice, 'deviceName'> & { deviceName?: string })[] = [];
  const names = new Set<string>();
  for (const entry of raw) {
    const r = new FieldReader(entry, errors, sfx);
    const given = r.string('secretKey', true);
    const secretKey = given === undefined || given.length > MAX_TOTP_TEXT ? undefined : canonicalSecret(given);
    if (given !== undefined && given.length > MAX_TOTP_TEXT) errors.push(`TOTP secretKey is too long. Max length is ${MAX_TOTP_TEXT}.`);
    else if (given !== undefined && secretKey === undefined) errors.push(`secretKey is not valid base32${sfx}`);
    const period = r.read<number>('period', 'integer', false) ?? 30;
    if (period < 1) errors.push(`period should be > 0${sfx}`);
    const skew = r.read<number>('skew', 'integer', false) ?? 1;
    if (skew < 0) errors.push(`skew should be >= 0${sfx}`);
    if (skew > MAX_SKEW) errors.push(`skew should be <= ${MAX_SKEW}${sfx}`);
    const name = r.string('deviceName');
    const deviceName = name?.trim();
    if (name !== undefined && name.length > MAX_TOTP_TEXT) errors.push(`TOTP deviceName ${shown(name)} is too long. Max length is ${MAX_TOTP_TEXT}.`);
    if (deviceName !== undefined && names.has(deviceName))
      errors.push(`TOTP deviceName ${shown(deviceName)} is not unique. It is already used by another totp device.`);
    if (deviceName !== undefined) names.add(deviceName);
    if (secretKey !== undefined) devices.push({ secretKey, period, skew, ...(deviceName !== undefined ? { deviceName } : {}) });
  }
  return devices.map((d, i) => {
    if (d.deviceName !== undefined) return d as BulkTotpDevice;
    const deviceName = defaultDeviceName(i, names);
    names.add(deviceName);
    return { ...d, deviceName };
  });
}

function parseMetadata(reader: FieldReader, errors: string[]): JsonObject | undefined {
  const metadata = reader.read<JsonObject>('userMetadata', 'object', false);
  if (metadata === undefined) return undefined;
  const problems = jsonValueProblems(metadata);
  if (problems.includes('NOT_UNICODE')) {
    errors.push('userMetadata is not valid Unicode: it holds a lone surrogate.');
    return undefined;
  }
  if (problems.includes('TOO_DEEP')) {
    errors.push(`userMetadata nests deeper than ${MAX_JSON_DEPTH} levels.`);
    return undefined;
  }
  const bytes = Buffer.byteLength(JSON.stringify(metadata), 'utf8');
  if (bytes > MAX_METADATA_BYTES) errors.push(`userMetadata is ${bytes} bytes of JSON: the maximum is ${MAX_METADATA_BYTES}.`);
  return metadata;
}

/**
 * The password of an email-password login method: a hash to store, a password to hash, or neither
 * with `migratePasswordOnSignIn` (SPEC §16: checked by the previous provider at the first sign-in).
 */
function parsePassword(
  obj: Obj,
  ctx: BulkValidationContext,
  errors: string[],
): Pick<BulkLoginMethod, 'passwordHash' | 'hashingAlgorithm' | 'plainTextPassword' | 'migratePasswordOnSignIn'> {
  const sfx = ' for an emailpassword recipe.';
  const r = new FieldReader(obj, errors, sfx);
  if (r.read<boolean>('migratePasswordOnSignIn', 'boolean', false) === true) {
    if (['passwordHash', 'hashingAlgorithm', 'plainTextPassword'].some((k) => r.has(k))) {
      errors.push(`migratePasswordOnSignIn cannot be combined with passwordHash, hashingAlgorithm or plainTextPassword${sfx}`);
    }
    if (!ctx.passwordMigrationConfigured) errors.push(`Password migration at sign-in is not configured${sfx}`);
    return { migratePasswordOnSignIn: true };
  }
  // The hash is checked with the algorithm: each field's errors are kept for its place.
  const hashErrors: string[] = [];
  const algorithmErrors: string[] = [];
  const passwordErrors: string[] = [];
  const hash = new FieldReader(obj, hashErrors, sfx).string('passwordHash');
  const algorithmName = new FieldReader(obj, algorithmErrors, sfx).string('hashingAlgorithm');
  const plainTextPassword = new FieldReader(obj, passwordErrors, sfx).string('plainTextPassword');
  let algorithm: string | undefined;
  if (algorithmName !== undefined) {
    const key = algorithmName.trim().toLowerCase();
    if (isKnownHashingAlgorithm(key)) algorithm = key;
    else algorithmErrors.push('Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, firebase_scrypt!');
  }
  if (plainTextPassword !== undefined && Buffer.byteLength(plainTextPassword, 'utf8') > MAX_PASSWORD_BYTES) {
    passwordErrors.push(`plainTextPassword is too long. Max length is ${MAX_PASSWORD_BYTES} bytes.`);
  }
  type Password = Pick<BulkLoginMethod, 'passwordHash' | 'hashingAlgorithm' | 'plainTextPassword'>;
  let password: Password = plainTextPassword !== undefined ? { plainTextPassword } : {};
  // A hash is stored only once parsed in full (SPEC §7): with its algorithm, or, beside a
  // plain-text password, with the algorithm its format shows.
  if (hash !== undefined && (algorithm !== undefined || (algorithmName === undefined && plainTextPassword !== undefined))) {
    if (hash.length > MAX_PASSWORD_HASH) {
      hashErrors.push(`passwordHash is too long. Max length is ${MAX_PASSWORD_HASH}.`);
    } else {
      const checked = validateImportedHash(hash.trim(), algorithm, ctx.hashOptions);
      if (!checked.ok) hashErrors.push(checked.message);
      else password = { passwordHash: checked.stored, hashingAlgorithm: algorithmLabel(checked.algorithm) };
    }
  }
  errors.push(...hashErrors, ...algorithmErrors, ...passwordErrors);
  if ((hash === undefined || algorithmName === undefined) && plainTextPassword === undefined) {
    errors.push(`Either (passwordHash, hashingAlgorithm) or plainTextPassword is required${sfx}`);
  }
  return password;
}

function parseLoginMethod(obj: Obj, ctx: BulkValidationContext, errors: string[]): BulkLoginMethod | undefined {
  const r = new FieldReader(obj, errors, ' for a loginMethod.');
  const recipeId = r.string('recipeId', true);
  // The core's text, which names the core's recipes: webauthn is beyond it (SPEC §21).
  const known = recipeId === 'emailpassword' || recipeId === 'thirdparty' || recipeId === 'passwordless' || recipeId === 'webauthn';
  if (recipeId !== undefined && !known) {
    errors.push('Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!');
  }
  const tenantIds = r.read<string[]>('tenantIds', 'array of string', false);
  const tenants = normaliseTenantIds(tenantIds, ctx, ` for ${recipeId ?? 'null'} recipe.`, errors);
  if (tenantIds !== undefined && tenantIds.length === 0) errors.push('tenantIds cannot be empty for a loginMethod.');
  const isVerified = r.read<boolean>('isVerified', 'boolean', false) ?? false;
  const isPrimary = r.read<boolean>('isPrimary', 'boolean', false) ?? false;
  const timeJoined = r.read<number>('timeJoinedInMSSinceEpoch', 'integer', false, ' for a loginMethod');
  if (timeJoined !== undefined && timeJoined > ctx.now) errors.push('timeJoined cannot be in future for a loginMethod.');
  if (timeJoined !== undefined && timeJoined < 0) errors.push('timeJoined cannot be < 0 for a loginMethod.');
  if (!known) return undefined;

  const base = {
    superTokensUserId: ctx.newId(),
    recipeId: recipeId as RecipeId,
    tenantIds: tenants,
    isVerified,
    isPrimary,
    timeJoined: timeJoined ?? ctx.now,
  };
  if (recipeId === 'emailpassword') {
    const sfx = ' for an emailpassword recipe.';
    const email = normaliseEmail(new FieldReader(obj, errors, sfx).string('email', true), sfx, errors);
    const password = parsePassword(obj, ctx, errors);
    return { ...base, ...(email !== undefined ? { email } : {}), ...password };
  }
  if (recipeId === 'thirdparty') {
    const sfx = ' for a thirdparty recipe.';
    const tp = new FieldReader(obj, errors, sfx);
    const email = normaliseEmail(tp.string('email', true), sfx, errors);
    const thirdPartyId = tp.string('thirdPartyId', true);
    if (thirdPartyId !== undefined && thirdPartyId.length > MAX_THIRD_PARTY_ID) {
      errors.push(`thirdPartyId ${shown(thirdPartyId)} is too long. Max length is ${MAX_THIRD_PARTY_ID}.`);
    }
    const thirdPartyUserId = tp.string('thirdPartyUserId', true);
    if (thirdPartyUserId !== undefined && thirdPartyUserId.length > MAX_THIRD_PARTY_USER_ID) {
      errors.push(`thirdPartyUserId ${shown(thirdPartyUserId)} is too long. Max length is ${MAX_THIRD_PARTY_USER_ID}.`);
    }
    return {
      ...base,
      ...(email !== undefined ? { email } : {}),
      ...(thirdPartyId !== undefined ? { thirdPartyId } : {}),
      ...(thirdPartyUserId !== undefined ? { thirdPartyUserId } : {}),
    };
  }
  if (recipeId === 'webauthn') {
    const sfx = ' for a webauthn recipe.';
    const email = normaliseEmail(new FieldReader(obj, errors, sfx).string('email', true), sfx, errors);
    const webauthnCredentials = parsePasskeys(obj, ctx, errors);
    return { ...base, ...(email !== undefined ? { email } : {}), ...(webauthnCredentials !== undefined ? { webauthnCredentials } : {}) };
  }
  const sfx = ' for a passwordless recipe.';
  const pl = new FieldReader(obj, errors, sfx);
  const rawEmail = pl.string('email');
  const email = normaliseEmail(rawEmail, sfx, errors);
  const rawPhone = pl.string('phoneNumber');
  const phoneNumber = normalisePhone(rawPhone, errors);
  if (rawEmail === undefined && rawPhone === undefined) errors.push(`Either email or phoneNumber is required${sfx}`);
  return { ...base, ...(email !== undefined ? { email } : {}), ...(phoneNumber !== undefined ? { phoneNumber } : {}) };
}

/** `loginMethods`: its own rules, then each login method's; the login methods of a known recipe. */
function parseLoginMethods(raw: Obj, ctx: BulkValidationContext, errors: string[]): BulkLoginMethod[] {
  const lmObjects = new FieldReader(raw, errors, '.').read<Obj[]>('loginMethods', 'array of object', true) ?? [];
  if (Object.hasOwn(raw, 'loginMethods') && Array.isArray(raw.loginMethods) && raw.loginMethods.length === 0) {
    errors.push('At least one loginMethod is required.');
  }
  if (lmObjects.filter((lm) => lm.isPrimary === true).length > 1) errors.push('No two loginMethods can have isPrimary as true.');
  if (lmObjects.length > MAX_BULK_LOGIN_METHODS) errors.push(`A user can have at most ${MAX_BULK_LOGIN_METHODS} loginMethods.`);
  return lmObjects.map((lm) => parseLoginMethod(lm, ctx, errors)).filter((lm): lm is BulkLoginMethod => lm !== undefined);
}

/** The primary login method: the `isPrimary` one, else the oldest (the first of equals). */
export function primaryLoginMethodOf<T extends Pick<BulkLoginMethod, 'isPrimary' | 'timeJoined'>>(loginMethods: readonly T[]): T {
  return loginMethods.find((lm) => lm.isPrimary) ?? loginMethods.reduce((oldest, lm) => (lm.timeJoined < oldest.timeJoined ? lm : oldest));
}

/** Validates and normalises one user of a bulk request. */
export function parseBulkUser(raw: unknown, ctx: BulkValidationContext): BulkUserResult {
  if (!isObject(raw)) return { ok: false, errors: ['A user should be of type object.'] };
  const errors: string[] = [];
  const r = new FieldReader(raw, errors, '.');
  const externalUserId = r.string('externalUserId');
  if (externalUserId !== undefined) {
    if (externalUserId.length > MAX_EXTERNAL_ID) errors.push(`externalUserId ${shown(externalUserId)} is too long. Max length is ${MAX_EXTERNAL_ID}.`);
    if (ctx.externalUserIds.has(externalUserId)) errors.push(`externalUserId ${shown(externalUserId)} is not unique. It is already used by another user.`);
    ctx.externalUserIds.add(externalUserId);
  }
  const userMetadata = parseMetadata(r, errors);
  // The login methods are read before the roles (a role's tenant must be one of theirs); their
  // errors keep their place, after the TOTP devices'.
  const loginMethodErrors: string[] = [];
  const parsed = parseLoginMethods(raw, ctx, loginMethodErrors);
  const userRoles = parseRoles(r, ctx, parsed, errors);
  const totpDevices = parseTotpDevices(r, errors);
  errors.push(...loginMethodErrors);
  if (errors.length > 0 || parsed.length === 0) return { ok: false, errors };
  return {
    ok: true,
    user: {
      id: primaryLoginMethodOf(parsed).superTokensUserId,
      ...(externalUserId !== undefined ? { externalUserId: externalUserId.trim() } : {}),
      ...(userMetadata !== undefined ? { userMetadata } : {}),
      ...(userRoles !== undefined ? { userRoles } : {}),
      ...(totpDevices?.length ? { totpDevices } : {}),
      loginMethods: parsed,
    },
  };
}
