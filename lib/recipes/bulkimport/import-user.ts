import { hashPassword } from '../../password/own-hash';
import { byJoinOrder, loginMethodOf } from '../../storage/auth-user';
import type { AuthUser, BulkLoginMethod, BulkUser, JsonObject, RoleRecord, UserRecord, WebauthnCredentialRecord } from '../../storage/model';
import { TooManyItemsError } from '../../storage/errors';
import type { BulkRowRef } from '../../storage/ports/bulk-import';
import type { BulkUserWriteResult } from '../../storage/ports/bulk-user-import';
import { refOf, type LoginRef } from '../../storage/ports/users';
import { retryOnRace, type Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { primaryLoginMethodOf } from './bulk-user';
import type { LaneRoles } from './lane-roles';

/**
 * What importing one bulk user came to: the user (`rowDone` when its row went in the same
 * transaction), the core's failure texts (SPEC §15), or, for a staged row, that the row was gone.
 */
export type BulkImportOutcome =
  | { readonly status: 'OK'; readonly user: ApiUser; readonly rowDone: boolean }
  | { readonly status: 'FAILED'; readonly errors: string[] }
  | { readonly status: 'ROW_GONE' };

type ImportDeps = Pick<Deps, 'userAccounts' | 'bulkUserImport' | 'metadata' | 'roleReader' | 'config' | 'clock'>;

/** The core's failure texts (`E0nn: …`), by what was taken. */
export const BULK_ERRORS = {
  identityTaken: (lm: BulkLoginMethod): string =>
    lm.recipeId === 'emailpassword'
      ? `E003: A user with email ${lm.email} already exists in emailpassword loginMethod.`
      : lm.recipeId === 'thirdparty'
        ? `E005: A user with thirdPartyId ${lm.thirdPartyId} and thirdPartyUserId ${lm.thirdPartyUserId} already exists in thirdparty loginMethod.`
        : lm.recipeId === 'webauthn'
          ? // The core has no code for it (its bulk import refuses webauthn): E006's words.
            `A user with email ${lm.email} already exists in webauthn loginMethod.`
          : lm.email !== undefined
            ? `E006: A user with email ${lm.email} already exists in passwordless loginMethod.`
            : `E007: A user with phoneNumber ${lm.phoneNumber} already exists in passwordless loginMethod.`,
  credentialTaken: (credentialId: string): string => `E040: A credential with id ${credentialId} already exists.`,
  accountInfoTaken: 'E027: there is a conflicting account info',
  externalIdTaken: (externalUserId: string): string => `E031: A user with externalId ${externalUserId} already exists`,
  roleGone: 'E034: Role does not exist! You need to pre-create the role before assigning it to the user.',
} as const;

/**
 * The login method a bulk login method becomes: its ids, identities, hash (or its wait for password
 * migration, marked at `now`) and verified state.
 */
function loginMethodRecord(lm: BulkLoginMethod, passwordHash: string | undefined, externalUserId: string | undefined, now: number): UserRecord {
  return {
    userId: lm.superTokensUserId,
    recipeId: lm.recipeId,
    tenantIds: lm.tenantIds,
    timeJoined: lm.timeJoined,
    ...(lm.email !== undefined ? { email: lm.email } : {}),
    ...(lm.phoneNumber !== undefined ? { phoneNumber: lm.phoneNumber } : {}),
    ...(lm.thirdPartyId !== undefined && lm.thirdPartyUserId !== undefined ? { thirdParty: { id: lm.thirdPartyId, userId: lm.thirdPartyUserId } } : {}),
    // `isVerified` proves the login method's email, or its phone when it has no email (SPEC §13).
    verifiedEmails: lm.isVerified && lm.email !== undefined ? [lm.email] : [],
    phoneVerified: lm.isVerified && lm.email === undefined && lm.phoneNumber !== undefined,
    ...(passwordHash !== undefined ? { passwordHash } : {}),
    ...(lm.migratePasswordOnSignIn === true ? { passwordMigration: { markedAt: now } } : {}),
    ...(externalUserId !== undefined ? { externalUserId } : {}),
    ...(lm.webauthnCredentials !== undefined ? { webauthnCredentialIds: lm.webauthnCredentials.map((c) => c.credentialId) } : {}),
    version: 1,
  };
}

/** The key items of a bulk user's passkeys (SPEC §21), each held by its webauthn login method. */
function passkeysOf(bulk: BulkUser, now: number): WebauthnCredentialRecord[] {
  return bulk.loginMethods.flatMap((lm) =>
    (lm.webauthnCredentials ?? []).map(({ createdAt, ...c }) => ({ ...c, recipeUserId: lm.superTokensUserId, createdAt, updatedAt: now })),
  );
}

/**
 * The users a bulk user becomes: with an `isPrimary` login method, one primary user holding all
 * of them; else each login method a user of its own (SPEC §15). The external id goes on the
 * primary login method.
 */
function usersOf(bulk: BulkUser, hashes: ReadonlyMap<string, string>, now: number): AuthUser[] {
  const primary = primaryLoginMethodOf(bulk.loginMethods);
  const records = bulk.loginMethods
    .map((lm) => loginMethodRecord(lm, hashes.get(lm.superTokensUserId) ?? lm.passwordHash, lm === primary ? bulk.externalUserId : undefined, now))
    .sort(byJoinOrder);
  if (bulk.loginMethods.some((lm) => lm.isPrimary)) return [{ id: primary.superTokensUserId, isPrimary: true, loginMethods: records }];
  return records.map((lm) => ({ id: lm.userId, isPrimary: false, loginMethods: [lm] }));
}

/** Who holds a bulk login method's identity, in the first of its tenants that has it. */
async function holderOf(deps: Pick<Deps, 'userAccounts'>, lm: BulkLoginMethod): Promise<LoginRef | undefined> {
  for (const tenantId of lm.tenantIds) {
    const ref =
      lm.recipeId === 'emailpassword'
        ? await deps.userAccounts.getLoginByEmail(tenantId, 'emailpassword', lm.email as string)
        : lm.recipeId === 'thirdparty'
          ? await deps.userAccounts
              .getLoginByThirdParty(tenantId, lm.thirdPartyId as string, lm.thirdPartyUserId as string)
              .then((found) => found && refOf(found))
          : lm.recipeId === 'webauthn'
            ? await deps.userAccounts.getLoginByEmail(tenantId, 'webauthn', lm.email as string)
            : lm.email !== undefined
              ? await deps.userAccounts.getLoginByEmail(tenantId, 'passwordless', lm.email)
              : await deps.userAccounts.getLoginByPhone(tenantId, lm.phoneNumber as string);
    if (ref) return ref;
  }
  return undefined;
}

type Existing = { readonly kind: 'NONE' } | { readonly kind: 'SAME'; readonly user: AuthUser } | { readonly kind: 'CONFLICT'; readonly error: string };

/**
 * Whether the bulk user is already here (SPEC §15, re-runs are safe): the user its external id
 * names holds every one of its login methods, or (without an external id) one user holds them all
 * as they would be grouped. Anything else already holding one of its identities or its external
 * id is a conflict, with the core's text.
 */
async function existing(deps: Pick<Deps, 'userAccounts' | 'bulkUserImport'>, bulk: BulkUser): Promise<Existing> {
  const first = await readExisting(deps, bulk);
  // Its reads are separate: a transaction that commits between them (the same user imported at
  // this very moment by another request) shows half a user, which looks like a conflict. So a
  // conflict is read a second time: that transaction has committed by then.
  return first.kind === 'CONFLICT' ? readExisting(deps, bulk) : first;
}

async function readExisting(deps: Pick<Deps, 'userAccounts' | 'bulkUserImport'>, bulk: BulkUser): Promise<Existing> {
  const credentialIds = bulk.loginMethods.flatMap((lm) => (lm.webauthnCredentials ?? []).map((c) => c.credentialId));
  const [holders, byExternalId, passkeys] = await Promise.all([
    Promise.all(bulk.loginMethods.map((lm) => holderOf(deps, lm))),
    bulk.externalUserId !== undefined ? deps.userAccounts.getUser(bulk.externalUserId, 'EXTERNAL') : Promise.resolve(undefined),
    credentialIds.length > 0 ? deps.bulkUserImport.getPasskeys(credentialIds) : Promise.resolve(new Map()),
  ]);
  const primaryIndex = bulk.loginMethods.indexOf(primaryLoginMethodOf(bulk.loginMethods));
  const linked = bulk.loginMethods.some((lm) => lm.isPrimary);
  // A passkey here is the run's when the login method holding the run's email holds it with the
  // run's key; held by another, or with another key, it is E040 (SPEC §21). One not here yet, of a
  // login method that is, makes that login method differ from the run's (its email is taken).
  let credentialTaken: string | undefined;
  let passkeysSame = true;
  bulk.loginMethods.forEach((lm, i) => {
    for (const c of lm.webauthnCredentials ?? []) {
      const held = passkeys.get(c.credentialId);
      if (held && (held.recipeUserId !== holders[i]?.recipeUserId || held.publicKey !== c.publicKey)) credentialTaken ??= c.credentialId;
      if (!held) passkeysSame = false;
    }
  });
  if (holders.every((h) => h !== undefined) && credentialTaken === undefined && passkeysSame) {
    const owner = holders[primaryIndex]?.userId as string;
    const grouped = linked ? holders.every((h) => h?.userId === owner) : new Set(holders.map((h) => h?.userId)).size === holders.length;
    const externalIdMatches = bulk.externalUserId === undefined || byExternalId?.id === owner;
    // The user is read only when it is the same one (the user its external id names is it).
    const user = grouped && externalIdMatches ? (byExternalId ?? (await deps.userAccounts.getUser(owner, 'SUPERTOKENS'))) : undefined;
    if (user) return { kind: 'SAME', user };
  }
  // Before the external id: the same user again with another key for its passkey is E040 (SPEC §21).
  if (credentialTaken !== undefined) return { kind: 'CONFLICT', error: BULK_ERRORS.credentialTaken(credentialTaken) };
  if (byExternalId) return { kind: 'CONFLICT', error: BULK_ERRORS.externalIdTaken(bulk.externalUserId as string) };
  const taken = bulk.loginMethods.findIndex((_, i) => holders[i] !== undefined);
  return taken >= 0 ? { kind: 'CONFLICT', error: BULK_ERRORS.identityTaken(bulk.loginMethods[taken]) } : { kind: 'NONE' };
}

/**
 * An already imported user gets the hashes of the run (as `passwordhash/import` replaces them; a
 * hash also ends a wait for password migration). A login method of the run without a hash leaves
 * the stored one as it is (SPEC §16: a user that has a hash keeps it).
 */
async function replaceChangedHashes(deps: Pick<Deps, 'userAccounts'>, user: AuthUser, bulk: BulkUser): Promise<boolean> {
  let current: AuthUser | undefined = user;
  for (const lm of bulk.loginMethods) {
    if (lm.recipeId !== 'emailpassword' || lm.passwordHash === undefined) continue;
    const stored = current?.loginMethods.find((s) => s.recipeId === 'emailpassword' && s.email === lm.email);
    if (!current || !stored || stored.passwordHash === lm.passwordHash) continue;
    if ((await deps.userAccounts.replacePasswordHash(current, stored, lm.passwordHash)).status !== 'OK') return false;
    // Ending a wait writes the user at the versions read: the next write needs the user as it is
    // now. (So does a new hash of a login method on its own, but that is its user's only one.)
    if (stored.passwordMigration) current = await deps.userAccounts.getUser(current.id, 'SUPERTOKENS');
  }
  return true;
}

/** Merges the bulk metadata into what the id has (a `null` value deletes the key, as an update does). */
function mergedMetadata(stored: JsonObject | undefined, update: JsonObject): JsonObject {
  const merged: JsonObject = { ...(stored ?? {}) };
  for (const [key, value] of Object.entries(update)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * Imports one validated bulk user (SPEC §15) in one transaction: its users (linked into a primary
 * user when it says so), external id, verified emails, metadata, roles and TOTP devices. A user
 * already here from an earlier run of the same export is a success that changes only a replaced
 * hash and its TOTP devices (in a transaction of their own); an
 * identity or external id held by another user is a failure with the core's text. Plain-text
 * passwords are hashed here, with the service's own Argon2id. The first try writes without reading
 * (a new user costs its one transaction); only a refused one reads what is there and tries again.
 */
export function importBulkUser(deps: ImportDeps, bulk: BulkUser): Promise<BulkImportOutcome>;
/** A staged row's import checks its roles on the row's lane (`BulkUserImportStore.importUser`): `laneRoles` makes their copies first. */
export function importBulkUser(deps: ImportDeps, bulk: BulkUser, row: BulkRowRef, laneRoles: LaneRoles): Promise<BulkImportOutcome>;
export async function importBulkUser(deps: ImportDeps, bulk: BulkUser, row?: BulkRowRef, laneRoles?: LaneRoles): Promise<BulkImportOutcome> {
  const hashes = new Map<string, string>();
  for (const lm of bulk.loginMethods) {
    if (lm.plainTextPassword !== undefined) hashes.set(lm.superTokensUserId, await hashPassword(lm.plainTextPassword, deps.config.password.ownHash));
  }
  const now = deps.clock.now();
  const users = usersOf(bulk, hashes, now);
  const primary = primaryLoginMethodOf(bulk.loginMethods);
  // Metadata, roles and TOTP devices are kept under the id the app knows the user by (SPEC §12, §14, §20).
  const appUserId = bulk.externalUserId ?? primary.superTokensUserId;
  // Verified: the user already signs in with them (SPEC §20).
  const devices = (bulk.totpDevices ?? []).map((d) => ({
    name: d.deviceName,
    secret: d.secretKey,
    period: d.period,
    skew: d.skew,
    verified: true,
    createdAt: now,
  }));
  const totp = (userId: string) => (devices.length > 0 ? { totp: { userId, devices } } : {});
  const passkeys = passkeysOf(bulk, now);

  /**
   * One try. Without `readFirst` the user is taken to be new and its id free of metadata (as nearly
   * every user of a first run is): the transaction alone, no read, and any refusal of a guard, a
   * claim or the metadata's absence answers `READ_FIRST`, for a try that reads what is there first
   * (the same user from an earlier run, a conflict with its text, metadata to merge into).
   */
  const attempt = async (readFirst: boolean): Promise<BulkImportOutcome | 'READ_FIRST' | undefined> => {
    if (readFirst) {
      const found = await existing(deps, bulk);
      if (found.kind === 'CONFLICT') return { status: 'FAILED', errors: [found.error] };
      if (found.kind === 'SAME') {
        if (!(await replaceChangedHashes(deps, found.user, bulk))) return undefined;
        const stored = await deps.userAccounts.getUser(found.user.id, 'SUPERTOKENS');
        if (!stored) return undefined;
        const user = toApiUser(stored);
        // A re-run replaces the devices of its names, under the id the app knows the user by now.
        if (devices.length > 0 && (await deps.bulkUserImport.importUser({ users: [], roles: [], ...totp(user.id) })).status !== 'OK') return undefined;
        return { status: 'OK', user, rowDone: false };
      }
    }

    const roleNames = [...new Set((bulk.userRoles ?? []).map((r) => r.role))];
    // The worker reads roles once per invocation and checks them on the row's lane (`LaneRoles`).
    const roleRecords = await Promise.all(roleNames.map((role) => (row && laneRoles ? laneRoles.forRow(role, row.id) : deps.roleReader.getRole(role))));
    if (roleRecords.some((r) => r === undefined)) return { status: 'FAILED', errors: [BULK_ERRORS.roleGone] };
    const roleOf = new Map(roleRecords.map((r) => [(r as RoleRecord).role, r as RoleRecord]));
    const roles = (bulk.userRoles ?? []).flatMap(({ role, tenantIds }) =>
      tenantIds.map((tenantId) => ({ tenantId, userId: appUserId, role: roleOf.get(role) as RoleRecord })),
    );

    let metadata: { userId: string; metadata: JsonObject; readVersion: number | undefined } | undefined;
    if (bulk.userMetadata !== undefined) {
      const stored = readFirst ? await deps.metadata.getMetadata(appUserId) : undefined;
      metadata = { userId: appUserId, metadata: mergedMetadata(stored?.metadata, bulk.userMetadata), readVersion: stored?.version };
    }

    let result: BulkUserWriteResult;
    try {
      result = await deps.bulkUserImport.importUser(
        { users, roles, ...(metadata ? { metadata } : {}), ...totp(appUserId), ...(passkeys.length > 0 ? { passkeys } : {}) },
        row,
      );
    } catch (err) {
      if (err instanceof TooManyItemsError) return { status: 'FAILED', errors: [err.message] };
      throw err;
    }
    switch (result.status) {
      case 'OK': {
        const imported = users.find((u) => loginMethodOf(u, primary.superTokensUserId)) as AuthUser;
        return { status: 'OK', user: toApiUser(imported), rowDone: row !== undefined };
      }
      case 'ROLE_GONE':
        // Read the roles again: a role removed fails the user (E034) there; one removed and made
        // again (a new incarnation) is given.
        if (laneRoles) {
          laneRoles.forget();
          return undefined;
        }
        return { status: 'FAILED', errors: [BULK_ERRORS.roleGone] };
      case 'ROW_GONE':
        return { status: 'ROW_GONE' };
      case 'ACCOUNT_INFO_TAKEN':
        if (!readFirst) return 'READ_FIRST';
        // Claims are written before guards: the same user imported a moment ago (or an identity
        // of it taken since) shows here first. Only a claim of another user's is E027.
        return (await existing(deps, bulk)).kind === 'NONE' ? { status: 'FAILED', errors: [BULK_ERRORS.accountInfoTaken] } : undefined;
      default:
        // An identity or the external id is taken, or the metadata is there (or changed): read.
        return readFirst ? undefined : 'READ_FIRST';
    }
  };

  let readFirst = false;
  return retryOnRace<BulkImportOutcome>('Importing the bulk user', async () => {
    const outcome = await attempt(readFirst);
    if (outcome !== 'READ_FIRST') return outcome;
    // Straight on, without the pause of a lost race: nothing was written.
    readFirst = true;
    return (await attempt(true)) as BulkImportOutcome | undefined;
  });
}
