import { accountInfoOf, byJoinOrder, tenantsOf, timeJoinedOf } from '../auth-user';
import { ATTR, keys, timeSortKey, userListShard, type Key } from '../keys';
import type { AccountInfo, AuthUser, IdentityKind, LoginMethodView, UserRecord } from '../model';
import type { LoginRef, UserWriteResult } from '../ports';
import { TooManyItemsError } from '../errors';
import { ifAbsent, ifVersion, MAX_TRANSACTION_ITEMS, type DynamoContext, type TaggedWrite, type TxItem } from './transact';

/**
 * Every item of a user follows from the user itself (its login methods and whether it is
 * primary): `itemsOfUser` derives them, `userChangeWrites` turns two states into the writes
 * between them, and the consistency checker compares the table with the derivation. So no write
 * path can forget a guard, a link or a claim.
 */

export const ITEM_TYPE = {
  loginMethod: 'loginMethod',
  link: 'link',
  guard: 'guard',
  primaryInfo: 'primaryInfo',
  listEntry: 'listEntry',
  emailEntry: 'emailEntry',
  phoneEntry: 'phoneEntry',
  passwordMigrationEntry: 'passwordMigrationEntry',
} as const;

/** An item a user's state implies, with what writing or deleting it means. */
export type DerivedItem =
  | { readonly role: 'loginMethod'; readonly key: Key; readonly item: Record<string, unknown>; readonly loginMethod: UserRecord }
  | { readonly role: 'link'; readonly key: Key; readonly item: Record<string, unknown> }
  | { readonly role: 'guard'; readonly key: Key; readonly item: Record<string, unknown>; readonly identity: IdentityKind; readonly ownerId: string; readonly copyOf?: string }
  | { readonly role: 'primaryInfo'; readonly key: Key; readonly item: Record<string, unknown>; readonly identity: IdentityKind }
  | { readonly role: 'entry'; readonly key: Key; readonly item: Record<string, unknown>; readonly copyOf?: string };

/**
 * The guard items a login method holds: one per unique identity per tenant, within its recipe,
 * and its external user id (one per app).
 */
export function guardsOf(lm: UserRecord): { key: Key; identity: IdentityKind }[] {
  const guards: { key: Key; identity: IdentityKind }[] = [];
  if (lm.externalUserId !== undefined) guards.push({ key: keys.externalIdGuard(lm.externalUserId), identity: 'externalUserId' });
  for (const tenantId of lm.tenantIds) {
    if (lm.recipeId === 'thirdparty' && lm.thirdParty) {
      guards.push({ key: keys.thirdPartyGuard(tenantId, lm.thirdParty.id, lm.thirdParty.userId), identity: 'thirdParty' });
    }
    if (lm.recipeId !== 'thirdparty' && lm.email !== undefined) {
      guards.push({ key: keys.emailGuard(tenantId, lm.recipeId, lm.email), identity: 'email' });
    }
    if (lm.recipeId === 'passwordless' && lm.phoneNumber !== undefined) {
      guards.push({ key: keys.phoneGuard(tenantId, lm.phoneNumber), identity: 'phone' });
    }
  }
  return guards;
}

/**
 * A guard item: the login method holding the identity and, when that login method is linked to
 * another user, that user's id (`primaryUserId`), so a sign-in reads the user's partition at once
 * instead of following the link (one round trip less; rewritten when the login method is linked or
 * unlinked). The email-password email guard also carries the password hash, so sign-in reads the
 * guard and verifies at once; and it and the third-party identity's guard carry, for a login
 * method on its own (not primary, not linked), a copy of it (`loginMethodCopy`, storage format 4;
 * with its version since format 7), so sign-in answers from that one read instead of reading the
 * user's partition too, and a sign-in that changes it (a rehash, a provider's newly verified or
 * changed email) writes from it. The third-party identity's guard of a primary user's login method
 * (its own or a linked one) carries a copy too, naming the primary user (`primaryUserId` in the
 * copy, storage format 8), so a sign-in that newly verifies its email writes from it beside the
 * read of the user (`primaryLoginMarkWrites`). Both copies are derived here, so every write that
 * changes the hash or the login method rewrites them in the same transaction, at the version it
 * writes (one item more in a write that changes such a login method without touching its guard: a
 * verified email, a tenant, an external id, or any change to the login methods of its primary user
 * that adds or removes an item, which writes every login method of that user).
 */
export function guardItem(user: AuthUser, lm: UserRecord, key: Key, identity: IdentityKind): Record<string, unknown> {
  const carriesHash = lm.recipeId === 'emailpassword' && identity === 'email';
  const thirdParty = lm.recipeId === 'thirdparty' && identity === 'thirdParty';
  const copy =
    (carriesHash || thirdParty) && onItsOwn(user, lm)
      ? loginMethodCopy(lm)
      : thirdParty && user.isPrimary
        ? { ...loginMethodCopy(lm), primaryUserId: user.id }
        : undefined;
  return {
    ...key,
    type: ITEM_TYPE.guard,
    userId: lm.userId,
    ...(user.id !== lm.userId ? { primaryUserId: user.id } : {}),
    ...(carriesHash ? { passwordHash: lm.passwordHash } : {}),
    ...(copy ? { loginMethod: copy } : {}),
  };
}

/** A login method that is its user: not primary, not linked (what a copy of it can answer for). */
const onItsOwn = (user: AuthUser, lm: UserRecord): boolean => !user.isPrimary && user.id === lm.userId;

/**
 * What a sign-in answers about a login method, as its guard keeps it: every attribute of the
 * login method item that the user object shows or sign-in checks, in one order (so equal login
 * methods give equal copies), and its version (since storage format 7: a sign-in that changes the
 * login method writes at that version from the copy, as from the item), without the hash (the
 * guard's own `passwordHash`). For an email-password or third-party login method, the copy and
 * the guard's hash are the whole item: nothing else is stored on it.
 */
export function loginMethodCopy(lm: UserRecord): Record<string, unknown> {
  return {
    userId: lm.userId,
    recipeId: lm.recipeId,
    tenantIds: [...lm.tenantIds],
    timeJoined: lm.timeJoined,
    ...(lm.email !== undefined ? { email: lm.email } : {}),
    ...(lm.thirdParty !== undefined ? { thirdParty: { id: lm.thirdParty.id, userId: lm.thirdParty.userId } } : {}),
    verifiedEmails: [...lm.verifiedEmails],
    phoneVerified: lm.phoneVerified,
    ...(lm.passwordMigration !== undefined ? { passwordMigration: { markedAt: lm.passwordMigration.markedAt } } : {}),
    ...(lm.externalUserId !== undefined ? { externalUserId: lm.externalUserId } : {}),
    ...(lm.externalUserIdInfo !== undefined ? { externalUserIdInfo: lm.externalUserIdInfo } : {}),
    version: lm.version,
  };
}

/**
 * What consume's first try needs of a passwordless login method, on each entry that indexes it in
 * gsi2 where its own item does not (its email in another tenant, its phone beside an email):
 * every attribute of its item, the version and the consumes' marks included, so the consume
 * answers and writes at that version from the index alone, as it does from the login method's own
 * item (a stale copy fails the write's version condition, as a stale item does); and, for a
 * primary user's login method, that user's id, since the answer is then the whole user, read
 * beside the write (storage format 5 for a login method on its own, 6 for a primary user's).
 * `userChangeWrites` writes the entry whenever it writes the login method, at the version it
 * writes.
 */
function passwordlessCopy(lm: UserRecord, primaryUserId: string | undefined): Record<string, unknown> {
  return {
    ...loginMethodCopy(lm),
    ...(lm.phoneNumber !== undefined ? { phoneNumber: lm.phoneNumber } : {}),
    ...(lm.codesConsumedAt !== undefined ? { codesConsumedAt: lm.codesConsumedAt } : {}),
    ...(primaryUserId !== undefined ? { primaryUserId } : {}),
  };
}

/**
 * The whole login method (with its version) an item's copy holds, and the primary user holding it
 * if the copy names one: an entry's copy of a passwordless login method (`passwordlessCopy`), or a
 * guard's (`guardItem`; the hash, which an email-password guard keeps beside its copy, is not
 * added here: `loginMethodOfCopy`).
 */
export function loginMethodOfEntry(entry: Record<string, unknown>): { loginMethod: UserRecord; primaryUserId?: string } | undefined {
  const copy = entry.loginMethod as Record<string, unknown> | null | undefined;
  if (copy === null || typeof copy !== 'object' || typeof copy.version !== 'number') return undefined;
  return { loginMethod: loginMethodFromItem(copy), ...(typeof copy.primaryUserId === 'string' ? { primaryUserId: copy.primaryUserId } : {}) };
}

/**
 * The login method a guard's copy holds (see `loginMethodCopy`), with the guard's hash: whole, with
 * its version, since storage format 7 (`isWholeLoginMethod`); without it when stored before.
 */
export function loginMethodOfCopy(guard: Record<string, unknown>): LoginMethodView | UserRecord | undefined {
  const copy = guard.loginMethod as Record<string, unknown> | null | undefined;
  if (copy === null || typeof copy !== 'object') return undefined;
  const lm = loginMethodFromItem({ ...copy, passwordHash: guard.passwordHash });
  if (typeof copy.version === 'number') return lm;
  const { version: _none, ...view } = lm;
  return view;
}

/**
 * The primary user's login method a third-party identity's guard copies (storage format 8), with
 * that user's id; `undefined` for any other guard.
 */
export function primaryLoginOfGuard(guard: Record<string, unknown>): { primaryUserId: string; loginMethod: UserRecord } | undefined {
  const copy = loginMethodOfEntry(guard);
  return copy?.primaryUserId === undefined ? undefined : { primaryUserId: copy.primaryUserId, loginMethod: copy.loginMethod };
}

/** The login method a guard item names, and the user holding it. */
export function loginRefOf(guard: Record<string, unknown>): LoginRef {
  const recipeUserId = guard.userId as string;
  return { recipeUserId, userId: (guard.primaryUserId as string | undefined) ?? recipeUserId };
}

const IDENTITY_OF: Record<AccountInfo['kind'], IdentityKind> = { email: 'email', phone: 'phone', thirdParty: 'thirdParty' };

/** Account info as a string, to tell two pieces apart in a set. */
const infoId = (info: AccountInfo): string => JSON.stringify(info);

/**
 * The pieces of account info a primary user claims in each of its tenants: every email, phone
 * number and third-party identity of any of its login methods, in every tenant of any of them
 * (the core's rule: a primary user conflicts with another that shares a tenant and an identifier,
 * wherever in its tenants the identifier sits).
 */
export function claimsOf(user: AuthUser): { tenantId: string; info: AccountInfo }[] {
  if (!user.isPrimary) return [];
  const infos = new Map<string, AccountInfo>();
  for (const lm of user.loginMethods) for (const info of accountInfoOf(lm)) infos.set(infoId(info), info);
  return tenantsOf(user).flatMap((tenantId) => [...infos.values()].map((info) => ({ tenantId, info })));
}

/**
 * The login method item. It lives in its user's partition. In each tenant, the user's oldest login
 * method there carries the user's place in the tenant's user list (gsi1, at the user's time joined,
 * with the recipes the user has in that tenant), so a primary user is listed and counted once per
 * tenant. The user's oldest login method also carries every recipe the user has (`appRecipeIds`):
 * counting the users of the whole app counts only those entries, so a primary user in several
 * tenants counts once. The item carries the entries of the login method's first tenant
 * (`tenantIds[0]`); a login method in several tenants (bulk import) has entry items for the others.
 */
function loginMethodItem(user: AuthUser, lm: UserRecord, listsTenant: boolean, listsApp: boolean): Record<string, unknown> {
  const tenantId = lm.tenantIds[0];
  const listRecipeIds = recipesIn(user, tenantId);
  return {
    ...keys.loginMethod(user.id, lm.userId),
    type: ITEM_TYPE.loginMethod,
    userId: lm.userId,
    recipeId: lm.recipeId,
    tenantIds: lm.tenantIds,
    timeJoined: lm.timeJoined,
    email: lm.email,
    phoneNumber: lm.phoneNumber,
    thirdParty: lm.thirdParty,
    verifiedEmails: lm.verifiedEmails,
    phoneVerified: lm.phoneVerified,
    passwordHash: lm.passwordHash,
    passwordMigration: lm.passwordMigration,
    externalUserId: lm.externalUserId,
    externalUserIdInfo: lm.externalUserIdInfo,
    codesConsumedAt: lm.codesConsumedAt,
    version: lm.version,
    primaryUserId: user.isPrimary ? user.id : undefined,
    ...(listsTenant
      ? {
          [ATTR.gsi1pk]: keys.usersOfTenant(tenantId, userListShard(user.id)),
          [ATTR.gsi1sk]: keys.userListPosition(timeJoinedOf(user), user.id),
          listRecipeIds,
        }
      : {}),
    appRecipeIds: listsApp ? [...new Set(user.loginMethods.map((other) => other.recipeId))].sort() : undefined,
    [ATTR.gsi2pk]:
      lm.email !== undefined ? keys.usersWithEmail(tenantId, lm.email) : lm.phoneNumber !== undefined ? keys.usersWithPhone(tenantId, lm.phoneNumber) : undefined,
    [ATTR.gsi2sk]: lm.email !== undefined || lm.phoneNumber !== undefined ? identitySortKey(lm) : undefined,
  };
}

/** gsi2 sort key of a login method among those with its email or phone: join order. */
const identitySortKey = (lm: UserRecord): string => `${timeSortKey(lm.timeJoined)}#${lm.userId}`;

/**
 * A login method's entry in its user's partition that indexes its email or phone (`gsi2pk`) in a
 * tenant where its own item does not; a passwordless login method's carries a copy of it
 * (`passwordlessCopy`).
 */
function identityEntry(
  user: AuthUser,
  lm: UserRecord,
  type: typeof ITEM_TYPE.emailEntry | typeof ITEM_TYPE.phoneEntry,
  key: Key,
  gsi2pk: string,
): DerivedItem {
  const copied = lm.recipeId === 'passwordless';
  const copy = copied ? { loginMethod: passwordlessCopy(lm, user.isPrimary ? user.id : undefined) } : {};
  return {
    role: 'entry',
    key,
    item: { ...key, type, userId: user.id, [ATTR.gsi2pk]: gsi2pk, [ATTR.gsi2sk]: identitySortKey(lm), ...copy },
    ...(copied ? { copyOf: lm.userId } : {}),
  };
}

/** The recipes the user has in a tenant, sorted (what a list entry filters on). */
function recipesIn(user: AuthUser, tenantId: string): string[] {
  return [...new Set(user.loginMethods.filter((other) => other.tenantIds.includes(tenantId)).map((other) => other.recipeId))].sort();
}

/**
 * Every item the user implies: login methods, links, guards, (if primary) its claims, and for a
 * login method in several tenants its entries in the lists of the others: the user's place in a
 * tenant's list where no older login method put it, and its email among the tenant's emails; and
 * for a login method waiting for password migration, its entry in each of its tenants' lists of
 * those (SPEC §16: derived like the rest, so the write that clears the mark deletes them).
 */
export function itemsOfUser(user: AuthUser): DerivedItem[] {
  const items: DerivedItem[] = [];
  const listed = new Set<string>();
  for (const lm of [...user.loginMethods].sort(byJoinOrder)) {
    const listsTenant = !listed.has(lm.tenantIds[0]);
    const listsApp = listed.size === 0;
    listed.add(lm.tenantIds[0]);
    items.push({ role: 'loginMethod', key: keys.loginMethod(user.id, lm.userId), item: loginMethodItem(user, lm, listsTenant, listsApp), loginMethod: lm });
    for (const tenantId of lm.tenantIds.slice(1)) {
      if (!listed.has(tenantId)) {
        listed.add(tenantId);
        const key = keys.listEntry(user.id, tenantId);
        items.push({
          role: 'entry',
          key,
          item: {
            ...key,
            type: ITEM_TYPE.listEntry,
            userId: user.id,
            [ATTR.gsi1pk]: keys.usersOfTenant(tenantId, userListShard(user.id)),
            [ATTR.gsi1sk]: keys.userListPosition(timeJoinedOf(user), user.id),
            listRecipeIds: recipesIn(user, tenantId),
          },
        });
      }
      if (lm.email !== undefined) {
        items.push(identityEntry(user, lm, ITEM_TYPE.emailEntry, keys.emailEntry(user.id, tenantId, lm.userId), keys.usersWithEmail(tenantId, lm.email)));
      }
    }
    if (lm.phoneNumber !== undefined) {
      // Where the item's own gsi2 does not find it by its phone (consume's first try, SPEC §5).
      for (const tenantId of lm.email !== undefined ? lm.tenantIds : lm.tenantIds.slice(1)) {
        items.push(identityEntry(user, lm, ITEM_TYPE.phoneEntry, keys.phoneEntry(user.id, tenantId, lm.userId), keys.usersWithPhone(tenantId, lm.phoneNumber)));
      }
    }
    if (lm.passwordMigration) {
      for (const tenantId of lm.tenantIds) {
        const key = keys.passwordMigrationEntry(user.id, tenantId, lm.userId);
        items.push({
          role: 'entry',
          key,
          item: {
            ...key,
            type: ITEM_TYPE.passwordMigrationEntry,
            userId: lm.userId,
            [ATTR.gsi1pk]: keys.usersWaitingForPassword(tenantId, userListShard(lm.userId)),
            [ATTR.gsi1sk]: `${timeSortKey(lm.passwordMigration.markedAt)}#${lm.userId}`,
          },
        });
      }
    }
    if (lm.userId !== user.id) {
      const key = keys.link(lm.userId);
      items.push({ role: 'link', key, item: { ...key, type: ITEM_TYPE.link, userId: lm.userId, primaryUserId: user.id } });
    }
    for (const { key, identity } of guardsOf(lm)) {
      const item = guardItem(user, lm, key, identity);
      items.push({ role: 'guard', key, item, identity, ownerId: lm.userId, ...(item.loginMethod !== undefined ? { copyOf: lm.userId } : {}) });
    }
  }
  for (const { tenantId, info } of claimsOf(user)) {
    const key = keys.primaryInfo(tenantId, info);
    items.push({
      role: 'primaryInfo',
      key,
      item: { ...key, type: ITEM_TYPE.primaryInfo, primaryUserId: user.id },
      identity: IDENTITY_OF[info.kind],
    });
  }
  return items;
}

/** Reads a login method item back into a record. */
export function loginMethodFromItem(item: Record<string, unknown>): UserRecord {
  return {
    userId: item.userId as string,
    recipeId: item.recipeId as UserRecord['recipeId'],
    tenantIds: item.tenantIds as string[],
    timeJoined: item.timeJoined as number,
    ...(item.email !== undefined ? { email: item.email as string } : {}),
    ...(item.phoneNumber !== undefined ? { phoneNumber: item.phoneNumber as string } : {}),
    ...(item.thirdParty !== undefined ? { thirdParty: item.thirdParty as { id: string; userId: string } } : {}),
    // Items written before email verification kept one flag for the current email.
    verifiedEmails: Array.isArray(item.verifiedEmails)
      ? (item.verifiedEmails as string[])
      : item.emailVerified === true && typeof item.email === 'string'
        ? [item.email]
        : [],
    phoneVerified: item.phoneVerified === true,
    ...(item.passwordHash !== undefined ? { passwordHash: item.passwordHash as string } : {}),
    ...(item.passwordMigration !== undefined ? { passwordMigration: item.passwordMigration as { markedAt: number } } : {}),
    ...(item.externalUserId !== undefined ? { externalUserId: item.externalUserId as string } : {}),
    ...(item.externalUserIdInfo !== undefined ? { externalUserIdInfo: item.externalUserIdInfo as string } : {}),
    ...(item.codesConsumedAt !== undefined ? { codesConsumedAt: item.codesConsumedAt as UserRecord['codesConsumedAt'] } : {}),
    version: item.version as number,
  };
}

/**
 * The user stored in one partition, from its login method items (`undefined` if it has none): a
 * primary user when they say so, else the one login method on its own.
 */
export function userFromItems(userId: string, items: readonly Record<string, unknown>[]): AuthUser | undefined {
  const lmItems = items.filter((i) => i.type === ITEM_TYPE.loginMethod);
  if (lmItems.length === 0) return undefined;
  return {
    id: userId,
    isPrimary: lmItems.some((i) => i.primaryUserId !== undefined),
    loginMethods: lmItems.map(loginMethodFromItem).sort(byJoinOrder),
  };
}

export type UserConflict = Exclude<UserWriteResult, { status: 'OK' }>;

const STALE: UserConflict = { status: 'STALE' };

/** A write's condition: the item still names this owner (a guard or entry its user, a link or claim its primary user). */
const ifOwner = (attribute: 'userId' | 'primaryUserId', ownerId: unknown) => ({
  ConditionExpression: '#owner = :owner',
  ExpressionAttributeNames: { '#owner': attribute },
  ExpressionAttributeValues: { ':owner': ownerId },
});

/**
 * The user ids that leave the users written: a user's id or a login method's recipe user id that
 * none of the users answers to afterwards, and the external id of a login method that goes. An
 * external id dropped by a login method that stays (a mapping removed) is not among them: as in the
 * core, removing a mapping keeps what the app stored under the external id. The primary user's id
 * stays while the user has login methods. Another user may still answer to a leaving id (a forced
 * mapping made it that user's id too): `leavingIdWrites` keeps its data then.
 */
export function vanishedIds(before: readonly AuthUser[], after: readonly AuthUser[]): string[] {
  const remainingLoginMethods = new Set(after.flatMap((u) => u.loginMethods.map((lm) => lm.userId)));
  const remaining = new Set([...internalIdsOf(after), ...externalIdsOf(after)]);
  const leaving = before.flatMap((u) => [
    u.id,
    ...u.loginMethods.flatMap((lm) => (lm.externalUserId !== undefined && !remainingLoginMethods.has(lm.userId) ? [lm.userId, lm.externalUserId] : [lm.userId])),
  ]);
  return [...new Set(leaving)].filter((id) => !remaining.has(id));
}

/** The users' own ids and their login methods' recipe user ids. */
export const internalIdsOf = (users: readonly AuthUser[]): Set<string> => new Set(users.flatMap((u) => [u.id, ...u.loginMethods.map((lm) => lm.userId)]));

/** The external ids of the users' login methods. */
export const externalIdsOf = (users: readonly AuthUser[]): Set<string> =>
  new Set(users.flatMap((u) => u.loginMethods.flatMap((lm) => (lm.externalUserId !== undefined ? [lm.externalUserId] : []))));

/** What the table holds under an id that leaves the users written (see `vanishedIds`), read just before the write. */
export interface LeavingId {
  readonly id: string;
  /**
   * An item of another user that still answers to the id (the id's own user partition, or its
   * external id guard): the id is not gone, its data stays, and the write is conditional on that
   * item still being there.
   */
  readonly heldBy?: Key;
  /** Keys that must still be absent for the id to be gone (its external id guard, mapped by nobody when read). */
  readonly unclaimed: readonly Key[];
  /** The id's role assignments in every tenant. */
  readonly assignments: readonly Key[];
  /** The version of the id's assignment counter (`keys.userRolesVersion`); `undefined`: it had none. */
  readonly assignmentsVersion?: number;
}

/**
 * The writes for the data the app keeps under leaving ids (SPEC §14: removing a user removes its
 * metadata and role assignments), all conditional so the transaction serialises with what could
 * change the answer: an id another user still answers to keeps its data while that user's item
 * exists; a gone id loses its metadata and the assignments read, provided no assignment was added
 * since (the counter still at the version read, or still absent) and nobody has been mapped to it
 * since (its external id guard still absent). A failed condition is `STALE`: the caller reads again.
 */
export function leavingIdWrites(ctx: DynamoContext, leaving: readonly LeavingId[]): TaggedWrite<UserConflict>[] {
  const T = ctx.tableName;
  const check = (Key: Key, ConditionExpression: string): TaggedWrite<UserConflict> => ({ item: { ConditionCheck: { TableName: T, Key, ConditionExpression } }, onConditionFailed: STALE });
  return leaving.flatMap((l): TaggedWrite<UserConflict>[] => {
    if (l.heldBy) return [check(l.heldBy, 'attribute_exists(pk)')];
    const counter = keys.userRolesVersion(l.id);
    return [
      ...l.unclaimed.map((key) => check(key, 'attribute_not_exists(pk)')),
      // Deleting an absent item is harmless: these deletes need no condition.
      { item: { Delete: { TableName: T, Key: keys.metadata(l.id) } }, onConditionFailed: STALE },
      ...l.assignments.map((Key) => ({ item: { Delete: { TableName: T, Key } }, onConditionFailed: STALE })),
      l.assignmentsVersion === undefined
        ? check(counter, 'attribute_not_exists(pk)')
        : {
            item: { Delete: { TableName: T, Key: counter, ...ifVersion(l.assignmentsVersion) } },
            onConditionFailed: STALE,
          },
    ];
  });
}

const keyOf = (key: Key): string => `${key.pk}\u0000${key.sk}`;

/** Items are built by one function each, so equal content serialises equally. */
const sameItem = (a: Record<string, unknown>, b: Record<string, unknown>): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The writes that turn the stored state of the `before` users into the `after` users, as one
 * transaction (all or none), with `leaving`, the writes for the data kept under the ids that leave
 * (`leavingIdWrites`; required when any id leaves, since only a read tells whether another user
 * still answers to it):
 * - a login method is written only if it is still at the version read (or, when new, absent), and
 *   its version goes up by one; a removed one is deleted only at the version read;
 * - when anything but login method contents changes (a login method, link, guard or claim appears
 *   or goes), every login method of the users is written, so two changes to one user made from the
 *   same read can never both succeed;
 * - a new guard or claim is written only if free, a released one deleted only if still ours;
 * - writes are ordered so the most telling failure comes first: a stale read, then a claim held by
 *   another primary user, then an identity held by another login method.
 */
export function userChangeWrites(
  ctx: DynamoContext,
  before: readonly AuthUser[],
  after: readonly AuthUser[],
  leaving?: readonly TaggedWrite<UserConflict>[],
): TaggedWrite<UserConflict>[] {
  if (leaving === undefined && vanishedIds(before, after).length > 0) {
    throw new Error('User ids leave in this write: their data needs the reads of UserStore.writeUsers');
  }
  const old = new Map(before.flatMap(itemsOfUser).map((d) => [keyOf(d.key), d]));
  const neu = new Map(after.flatMap(itemsOfUser).map((d) => [keyOf(d.key), d]));
  const oldVersions = new Map(before.flatMap((u) => u.loginMethods).map((lm) => [lm.userId, lm.version]));
  const structural = old.size !== neu.size || [...old.keys()].some((k) => !neu.has(k));
  const T = ctx.tableName;

  const stale: TaggedWrite<UserConflict>[] = [];
  const claims: TaggedWrite<UserConflict>[] = [];
  const guards: TaggedWrite<UserConflict>[] = [];
  const rest: TaggedWrite<UserConflict>[] = [];
  const put = (item: Record<string, unknown>, condition: Pick<NonNullable<TxItem['Put']>, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>): TxItem => ({
    Put: { TableName: T, Item: item, ...condition },
  });
  const ifAbsentOrOwner = (attribute: 'userId' | 'primaryUserId', ownerId: string) => ({
    ConditionExpression: 'attribute_not_exists(pk) OR #owner = :owner',
    ExpressionAttributeNames: { '#owner': attribute },
    ExpressionAttributeValues: { ':owner': ownerId },
  });
  // Guards name their login method, entries their user; links and claims the primary user.
  const ownerAttribute = (d: DerivedItem): 'userId' | 'primaryUserId' => (d.role === 'guard' || d.role === 'entry' ? 'userId' : 'primaryUserId');

  // The login methods written, at the version each gets: one more than read, or its own if new.
  const written = new Map<string, number>();
  for (const [k, n] of neu) {
    if (n.role !== 'loginMethod') continue;
    const o = old.get(k);
    const readVersion = oldVersions.get(n.loginMethod.userId);
    if (!o || o.role !== 'loginMethod' || structural || !sameItem(o.item, n.item)) {
      written.set(n.loginMethod.userId, readVersion === undefined ? n.loginMethod.version : readVersion + 1);
    }
  }

  for (const [k, derived] of neu) {
    const o = old.get(k);
    if (derived.role === 'loginMethod') {
      const version = written.get(derived.loginMethod.userId);
      if (version === undefined) continue;
      const item = { ...derived.item, version };
      stale.push({ item: put(item, o && o.role === 'loginMethod' ? ifVersion(o.loginMethod.version) : ifAbsent), onConditionFailed: STALE });
      continue;
    }
    // A guard's or an entry's copy of a login method goes with it, at the version written.
    const copyVersion = (derived.role === 'entry' || derived.role === 'guard') && derived.copyOf !== undefined ? written.get(derived.copyOf) : undefined;
    const n: DerivedItem =
      copyVersion === undefined ? derived : { ...derived, item: { ...derived.item, loginMethod: { ...(derived.item.loginMethod as object), version: copyVersion } } };
    if (o && sameItem(o.item, n.item)) continue;
    if (o) {
      // Same key, new content (a guard's hash copy, or the user it names): only while it is still ours.
      const owner = ownerAttribute(o);
      rest.push({ item: put(n.item, ifOwner(owner, o.item[owner])), onConditionFailed: STALE });
    } else if (n.role === 'link' || n.role === 'entry') {
      stale.push({ item: put(n.item, ifAbsent), onConditionFailed: STALE });
    } else if (n.role === 'primaryInfo') {
      claims.push({ item: put(n.item, ifAbsent), onConditionFailed: { status: 'ACCOUNT_INFO_TAKEN', identity: n.identity } });
    } else {
      guards.push({ item: put(n.item, ifAbsent), onConditionFailed: { status: 'IDENTITY_TAKEN', identity: n.identity } });
    }
  }
  for (const [k, o] of old) {
    if (neu.has(k)) continue;
    const condition =
      o.role === 'loginMethod' ? ifVersion(o.loginMethod.version) : ifAbsentOrOwner(ownerAttribute(o), o.item[ownerAttribute(o)] as string);
    (o.role === 'loginMethod' ? stale : rest).push({ item: { Delete: { TableName: T, Key: o.key, ...condition } }, onConditionFailed: STALE });
  }
  rest.push(...(leaving ?? []));
  const writes = [...stale, ...claims, ...guards, ...rest];
  if (writes.length > MAX_TRANSACTION_ITEMS) throw new TooManyItemsError(writes.length);
  return writes;
}

/** What a consume changes on a login method: nothing but its own item holds these for a primary user's. */
const MARK_ATTRIBUTES = ['verifiedEmails', 'phoneVerified', 'codesConsumedAt'] as const;

/**
 * The writes of a change to a login method of a primary user, from the login method alone
 * (`PrimaryLoginMark`: a consume, or a third-party sign-in newly verifying the email): an update
 * of its item's verified emails or phone and its consumes' marks, at the next version, on the
 * condition that the item holds the version read (a login method unlinked, removed or changed
 * since fails it, as `userChangeWrites`' put does), and the guards and entries holding a copy of
 * it (its third-party identity's guards, its passwordless email and phone entries) with their
 * copies at that version, while they are still its and the user's. Its list places and claims do
 * not depend on what such a change touches, so `userChangeWrites` of the whole user writes these
 * items alone, with the same content (`user-items.test.ts` checks both). Any other change throws:
 * it needs the user.
 */
export function primaryLoginMarkWrites(ctx: DynamoContext, primaryUserId: string, before: UserRecord, after: UserRecord): TaggedWrite<UserConflict>[] {
  const unmarked = new Set<string>([...MARK_ATTRIBUTES, 'version']);
  const rest = (lm: UserRecord) =>
    JSON.stringify(
      Object.entries(lm)
        .filter(([name, value]) => !unmarked.has(name) && value !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  if (before.userId !== after.userId || rest(before) !== rest(after)) {
    throw new Error(`Login method ${before.userId}: only verifications and a consume's marks are written without its user`);
  }
  const names: Record<string, string> = { '#version': 'version' };
  const values: Record<string, unknown> = { ':version': before.version, ':next': before.version + 1 };
  const set = ['#version = :next'];
  const remove: string[] = [];
  MARK_ATTRIBUTES.forEach((attribute, i) => {
    names[`#a${i}`] = attribute;
    if (after[attribute] === undefined) {
      remove.push(`#a${i}`);
    } else {
      set.push(`#a${i} = :a${i}`);
      values[`:a${i}`] = after[attribute];
    }
  });
  const update: TaggedWrite<UserConflict> = {
    item: {
      Update: {
        TableName: ctx.tableName,
        Key: keys.loginMethod(primaryUserId, after.userId),
        UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: '#version = :version',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    onConditionFailed: STALE,
  };
  // A copy follows from its user's id and its login method alone: a user of this login method
  // alone derives the same guards and entries as the whole user. A guard names its login method,
  // an entry its user.
  const written = { ...after, version: before.version + 1 };
  const copies = itemsOfUser({ id: primaryUserId, isPrimary: true, loginMethods: [written] }).filter(
    (d) => (d.role === 'entry' || d.role === 'guard') && d.copyOf === after.userId,
  );
  return [
    update,
    ...copies.map((d) => ({
      item: { Put: { TableName: ctx.tableName, Item: d.item, ...ifOwner('userId', d.role === 'guard' ? after.userId : primaryUserId) } },
      onConditionFailed: STALE,
    })),
  ];
}
