import type { CodesConsumedAt, RecipeId, UserRecord } from '../model';
import type { LoginSnapshot } from '../ports/users';
import {
  isObject,
  isString,
  isStrings,
  optional,
  readNumber,
  readOptionalString,
  readStrings,
  readString,
  required,
  StoredItemError,
  type Reader,
  type Stored,
} from './stored-fields';

/**
 * How a login method is stored, in one place: its item and every snapshot of it (a guard's or an
 * index entry's copy) hold the same fields, written by `storedLogin` and read by `decodeLogin`.
 * `FIELDS` has one reader per field of `UserRecord`, so a field added there fails to compile
 * until it is added here, and then reaches the item and every snapshot at once.
 */

const RECIPES: readonly RecipeId[] = ['emailpassword', 'thirdparty', 'passwordless', 'webauthn'];

const FIELDS: { readonly [K in keyof UserRecord]-?: Reader<UserRecord[K]> } = {
  userId: readString,
  recipeId: required((v): v is RecipeId => RECIPES.includes(v as RecipeId), 'a recipe id'),
  tenantIds: readStrings,
  timeJoined: readNumber,
  email: readOptionalString,
  phoneNumber: readOptionalString,
  thirdParty: optional((v): v is { id: string; userId: string } => isObject(v) && isString(v.id) && isString(v.userId), 'a provider and user id'),
  verifiedEmails: readStrings,
  phoneVerified: required((v): v is boolean => typeof v === 'boolean', 'true or false'),
  passwordHash: readOptionalString,
  passwordMigration: optional((v): v is { markedAt: number } => isObject(v) && typeof v.markedAt === 'number', 'a migration mark'),
  externalUserId: readOptionalString,
  externalUserIdInfo: readOptionalString,
  codesConsumedAt: optional(
    (v): v is Record<string, CodesConsumedAt> =>
      isObject(v) && Object.values(v).every((c) => isObject(c) && Object.values(c).every((t) => typeof t === 'number')),
    'consume times by tenant',
  ),
  webauthnCredentialIds: optional(isStrings, 'a list of strings'),
  version: readNumber,
};

const FIELD_NAMES = Object.keys(FIELDS) as (keyof UserRecord)[];

/** A login method's stored fields, in one order (so equal login methods store equally), absent ones left out. */
export function storedLogin(lm: UserRecord): UserRecord {
  const stored: Record<string, unknown> = {};
  for (const name of FIELD_NAMES) if (lm[name] !== undefined) stored[name] = lm[name];
  return stored as unknown as UserRecord;
}

/** The login method stored in an item or a snapshot. */
export function decodeLogin(stored: Stored): UserRecord {
  const lm: Record<string, unknown> = {};
  for (const name of FIELD_NAMES) {
    const value = (FIELDS[name] as Reader<unknown>)(stored[name], name);
    if (value !== undefined) lm[name] = value;
  }
  return lm as unknown as UserRecord;
}

/**
 * A snapshot as a guard or an entry stores it (attribute `snapshot`): the whole login method but
 * its hash (which only the email-password email guard holds, beside the snapshot), and the
 * primary user holding it, if any.
 */
export type StoredSnapshot = Omit<UserRecord, 'passwordHash'> & { readonly primaryUserId?: string };

export function snapshotOf(lm: UserRecord, primaryUserId: string | undefined): StoredSnapshot {
  const { passwordHash: _hash, ...rest } = storedLogin(lm);
  return primaryUserId === undefined ? rest : { ...rest, primaryUserId };
}

/** The snapshot an item holds, with the hash the item keeps beside it; `undefined` when it holds none. */
export function readSnapshot(item: Stored): LoginSnapshot | undefined {
  const { snapshot } = item;
  if (snapshot === undefined) return undefined;
  if (!isObject(snapshot)) throw new StoredItemError('snapshot', 'a login method');
  const loginMethod = decodeLogin({ ...snapshot, passwordHash: item.passwordHash });
  const primaryUserId = readOptionalString(snapshot.primaryUserId, 'snapshot.primaryUserId');
  return primaryUserId === undefined ? { loginMethod } : { loginMethod, primaryUserId };
}
