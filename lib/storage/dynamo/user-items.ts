import { accountInfoOf, byJoinOrder, tenantsOf, timeJoinedOf } from '../auth-user';
import { keys, timeSortKey, userListShard, type Key } from '../keys';
import type { AccountInfo, AuthUser, IdentityKind, RecipeId, UserRecord } from '../model';
import { decodeLogin, snapshotOf, storedLogin, type StoredSnapshot } from './login-codec';
import { readString, type Stored } from './stored-fields';

/**
 * Every item of a user follows from the user itself (its login methods and whether it is
 * primary): `itemsOfUser` derives them, `userChangeWrites` turns two states into the writes
 * between them, and the consistency checker compares the table with the derivation. So no write
 * path can forget a guard, a link or a claim.
 */

/**
 * The storage format every item derived from a user carries (`fmt`): writers write this one;
 * `sweepFormats` re-derives the items of an older one. `lib/storage/README.md` ("Formats") lists
 * each format, what it changed and why.
 */
export const CURRENT_FORMAT = 2;

export const ITEM_TYPE = {
  loginMethod: 'loginMethod',
  link: 'link',
  guard: 'guard',
  claim: 'claim',
  listEntry: 'listEntry',
  emailEntry: 'emailEntry',
  phoneEntry: 'phoneEntry',
  passwordMigrationEntry: 'passwordMigrationEntry',
} as const;

interface ItemBase extends Key {
  readonly fmt: number;
}

/** A login method in its user's partition, with the user's list places it carries (see `loginMethodItem`). */
export interface LoginMethodItem extends ItemBase, UserRecord {
  readonly type: typeof ITEM_TYPE.loginMethod;
  /** The primary user holding it, when it is in one. */
  readonly primaryUserId?: string;
  readonly gsi1pk?: string;
  readonly gsi1sk?: string;
  readonly listRecipeIds?: string[];
  readonly appRecipeIds?: string[];
  readonly gsi2pk?: string;
  readonly gsi2sk?: string;
}

/** Where a login method linked to another user lives. */
export interface LinkItem extends ItemBase {
  readonly type: typeof ITEM_TYPE.link;
  readonly userId: string;
  readonly primaryUserId: string;
  /** The linked login method's external id, when mapped (format 2: a new session answers with it). */
  readonly externalUserId?: string;
  /** The primary user's external id (its own login method's), when mapped (format 2). */
  readonly primaryExternalUserId?: string;
}

/** A unique identity, held by one login method (`userId`, its recipe user id). */
export interface GuardItem extends ItemBase {
  readonly type: typeof ITEM_TYPE.guard;
  readonly userId: string;
  /** The primary user the login method is linked to (not set for the primary user's own). */
  readonly linkedTo?: string;
  /** The email-password email guard's copy of the hash, so sign-in verifies from the guard. */
  readonly passwordHash?: string;
  /** On an external id's guard of a linked login method: the primary user's external id, when mapped (format 2). */
  readonly primaryExternalUserId?: string;
  readonly snapshot?: StoredSnapshot;
}

/** A primary user's claim on one piece of account info in one tenant (SPEC §11). */
export interface ClaimItem extends ItemBase {
  readonly type: typeof ITEM_TYPE.claim;
  readonly primaryUserId: string;
}

/** The user's place in the list of a tenant that no login method of its carries. */
export interface ListEntryItem extends ItemBase {
  readonly type: typeof ITEM_TYPE.listEntry;
  readonly ownerUserId: string;
  readonly gsi1pk: string;
  readonly gsi1sk: string;
  readonly listRecipeIds: string[];
}

/** A login method's email or phone among a tenant's, where its item does not index it. */
export interface IdentityEntryItem extends ItemBase {
  readonly type: typeof ITEM_TYPE.emailEntry | typeof ITEM_TYPE.phoneEntry;
  readonly ownerUserId: string;
  readonly gsi2pk: string;
  readonly gsi2sk: string;
  readonly snapshot?: StoredSnapshot;
}

/** A login method waiting for password migration at sign-in, in one tenant's list of those (SPEC §16). */
export interface PasswordMigrationEntryItem extends ItemBase {
  readonly type: typeof ITEM_TYPE.passwordMigrationEntry;
  readonly recipeUserId: string;
  readonly gsi1pk: string;
  readonly gsi1sk: string;
}

export type EntryItem = ListEntryItem | IdentityEntryItem | PasswordMigrationEntryItem;
export type UserItem = LoginMethodItem | LinkItem | GuardItem | ClaimItem | EntryItem;

/** An item a user's state implies, with what writing or deleting it means. */
export type DerivedItem =
  | { readonly role: 'loginMethod'; readonly key: Key; readonly item: LoginMethodItem; readonly loginMethod: UserRecord }
  | { readonly role: 'link'; readonly key: Key; readonly item: LinkItem }
  | { readonly role: 'guard'; readonly key: Key; readonly item: GuardItem; readonly identity: IdentityKind; readonly snapshotOf?: string }
  | { readonly role: 'claim'; readonly key: Key; readonly item: ClaimItem; readonly identity: IdentityKind }
  | { readonly role: 'entry'; readonly key: Key; readonly item: EntryItem; readonly snapshotOf?: string };

/**
 * The attribute naming who an item belongs to, and that id: a write over it or a delete of it
 * holds only while it still names the same one. A guard names its login method, a pending
 * password migration its login method, the other entries their user, links and claims the
 * primary user.
 */
export function ownerOf(item: UserItem): { readonly attribute: string; readonly id: string } {
  switch (item.type) {
    case ITEM_TYPE.guard:
    case ITEM_TYPE.loginMethod:
      return { attribute: 'userId', id: item.userId };
    case ITEM_TYPE.passwordMigrationEntry:
      return { attribute: 'recipeUserId', id: item.recipeUserId };
    case ITEM_TYPE.link:
    case ITEM_TYPE.claim:
      return { attribute: 'primaryUserId', id: item.primaryUserId };
    default:
      return { attribute: 'ownerUserId', id: item.ownerUserId };
  }
}

/**
 * Which items carry a snapshot of a login method (the whole login method, version included,
 * written in the same transaction as it), and the round-trip budget each one serves
 * (`test/integration/round-trips.test.ts` counts them). `holder`: `alone` for a login method that
 * is its user (not primary, not linked), `any` also for a primary user's login method, its own or
 * linked, whose snapshot then names the primary user. Nothing else holds a copy of a login method.
 */
export const SNAPSHOT_CARRIERS: readonly {
  readonly item: 'guard' | 'emailEntry' | 'phoneEntry';
  readonly recipe: RecipeId;
  readonly identity: IdentityKind;
  readonly holder: 'alone' | 'any';
  readonly serves: string;
}[] = [
  {
    item: 'guard',
    recipe: 'emailpassword',
    identity: 'email',
    holder: 'alone',
    serves: 'email-password sign-in in 1 call (the guard, with the hash beside the snapshot); a rehash or a migrated password written from it, 2',
  },
  {
    item: 'guard',
    recipe: 'thirdparty',
    identity: 'thirdParty',
    holder: 'any',
    serves: "third-party sign-in in 1 call alone (2 when it changes); a primary user's in 2 round trips, also when the provider newly verifies the email",
  },
  {
    item: 'emailEntry',
    recipe: 'passwordless',
    identity: 'email',
    holder: 'any',
    serves: 'passwordless consume in 3 round trips through the index, in a tenant beyond the login method’s first',
  },
  {
    item: 'phoneEntry',
    recipe: 'passwordless',
    identity: 'phone',
    holder: 'any',
    serves: 'passwordless consume in 3 round trips through the index, by the phone of a login method with an email too, or in a tenant beyond its first',
  },
];

/** The snapshot the item `item` of login method `lm` carries (`SNAPSHOT_CARRIERS`), if any. */
function snapshotFor(user: AuthUser, lm: UserRecord, item: (typeof SNAPSHOT_CARRIERS)[number]['item'], identity: IdentityKind): StoredSnapshot | undefined {
  const carries = SNAPSHOT_CARRIERS.some(
    (c) => c.item === item && c.recipe === lm.recipeId && c.identity === identity && (c.holder === 'any' || !user.isPrimary),
  );
  return carries ? snapshotOf(lm, user.isPrimary ? user.id : undefined) : undefined;
}

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
 * A guard item: the login method holding the identity and, when it is linked to another user,
 * that user's id (`linkedTo`), so a sign-in reads the user's partition at once instead of
 * following the link. The email-password email guard also carries the password hash, so sign-in
 * verifies from it; and the guards `SNAPSHOT_CARRIERS` names carry a snapshot of the login
 * method, so a sign-in answers, and writes, from that one read.
 */
function guardItem(user: AuthUser, lm: UserRecord, key: Key, identity: IdentityKind): GuardItem {
  const snapshot = snapshotFor(user, lm, 'guard', identity);
  return {
    ...key,
    type: ITEM_TYPE.guard,
    fmt: CURRENT_FORMAT,
    userId: lm.userId,
    ...(user.id !== lm.userId ? { linkedTo: user.id } : {}),
    ...(user.id !== lm.userId && identity === 'externalUserId' ? primaryExternalId(user) : {}),
    ...(lm.recipeId === 'emailpassword' && identity === 'email' ? { passwordHash: lm.passwordHash } : {}),
    ...(snapshot ? { snapshot } : {}),
  };
}

/**
 * The primary user's external id (its own login method's; none once that login method is gone),
 * as links and linked external-id guards carry it: a new session of a linked login method answers
 * the primary user by it from that one item (SPEC §18, create in 2 calls).
 */
function primaryExternalId(user: AuthUser): { primaryExternalUserId?: string } {
  const ext = user.loginMethods.find((l) => l.userId === user.id)?.externalUserId;
  return ext !== undefined ? { primaryExternalUserId: ext } : {};
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

/** The user's place in a tenant's list (gsi1), at its oldest time joined, with the recipes it has there. */
function listPlace(user: AuthUser, tenantId: string): { gsi1pk: string; gsi1sk: string; listRecipeIds: string[] } {
  return {
    gsi1pk: keys.usersOfTenant(tenantId, userListShard(user.id)),
    gsi1sk: keys.userListPosition(timeJoinedOf(user), user.id),
    listRecipeIds: [...new Set(user.loginMethods.filter((other) => other.tenantIds.includes(tenantId)).map((other) => other.recipeId))].sort(),
  };
}

/** gsi2 sort key of a login method among those with its email or phone: join order. */
const identitySortKey = (lm: UserRecord): string => `${timeSortKey(lm.timeJoined)}#${lm.userId}`;

/**
 * The login method item. It lives in its user's partition. In each tenant, the user's oldest login
 * method there carries the user's place in the tenant's user list (gsi1, at the user's time joined,
 * with the recipes the user has in that tenant), so a primary user is listed and counted once per
 * tenant. The user's oldest login method also carries every recipe the user has (`appRecipeIds`):
 * counting the users of the whole app counts only those entries, so a primary user in several
 * tenants counts once. The item carries the entries of the login method's first tenant
 * (`tenantIds[0]`); a login method in several tenants (bulk import) has entry items for the others.
 */
function loginMethodItem(user: AuthUser, lm: UserRecord, listsTenant: boolean, listsApp: boolean): LoginMethodItem {
  const tenantId = lm.tenantIds[0];
  const gsi2pk =
    lm.email !== undefined ? keys.usersWithEmail(tenantId, lm.email) : lm.phoneNumber !== undefined ? keys.usersWithPhone(tenantId, lm.phoneNumber) : undefined;
  return {
    ...keys.loginMethod(user.id, lm.userId),
    type: ITEM_TYPE.loginMethod,
    fmt: CURRENT_FORMAT,
    ...storedLogin(lm),
    ...(user.isPrimary ? { primaryUserId: user.id } : {}),
    ...(listsTenant ? listPlace(user, tenantId) : {}),
    ...(listsApp ? { appRecipeIds: [...new Set(user.loginMethods.map((other) => other.recipeId))].sort() } : {}),
    ...(gsi2pk !== undefined ? { gsi2pk, gsi2sk: identitySortKey(lm) } : {}),
  };
}

/**
 * A login method's entry in its user's partition that indexes its email or phone (`gsi2pk`) in a
 * tenant where its own item does not; a passwordless login method's carries a snapshot of it.
 */
function identityEntry(user: AuthUser, lm: UserRecord, kind: 'email' | 'phone', tenantId: string, value: string): DerivedItem {
  const key = kind === 'email' ? keys.emailEntry(user.id, tenantId, lm.userId) : keys.phoneEntry(user.id, tenantId, lm.userId);
  const snapshot = snapshotFor(user, lm, kind === 'email' ? 'emailEntry' : 'phoneEntry', kind);
  const item: IdentityEntryItem = {
    ...key,
    type: kind === 'email' ? ITEM_TYPE.emailEntry : ITEM_TYPE.phoneEntry,
    fmt: CURRENT_FORMAT,
    ownerUserId: user.id,
    gsi2pk: kind === 'email' ? keys.usersWithEmail(tenantId, value) : keys.usersWithPhone(tenantId, value),
    gsi2sk: identitySortKey(lm),
    ...(snapshot ? { snapshot } : {}),
  };
  return { role: 'entry', key, item, ...(snapshot ? { snapshotOf: lm.userId } : {}) };
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
          item: { ...key, type: ITEM_TYPE.listEntry, fmt: CURRENT_FORMAT, ownerUserId: user.id, ...listPlace(user, tenantId) },
        });
      }
      if (lm.email !== undefined) items.push(identityEntry(user, lm, 'email', tenantId, lm.email));
    }
    if (lm.phoneNumber !== undefined) {
      // Where the item's own gsi2 does not find it by its phone (consume's first try, SPEC §5).
      for (const tenantId of lm.email !== undefined ? lm.tenantIds : lm.tenantIds.slice(1))
        items.push(identityEntry(user, lm, 'phone', tenantId, lm.phoneNumber));
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
            fmt: CURRENT_FORMAT,
            recipeUserId: lm.userId,
            gsi1pk: keys.usersWaitingForPassword(tenantId, userListShard(lm.userId)),
            gsi1sk: `${timeSortKey(lm.passwordMigration.markedAt)}#${lm.userId}`,
          },
        });
      }
    }
    if (lm.userId !== user.id) {
      const key = keys.link(lm.userId);
      const item: LinkItem = {
        ...key,
        type: ITEM_TYPE.link,
        fmt: CURRENT_FORMAT,
        userId: lm.userId,
        primaryUserId: user.id,
        ...(lm.externalUserId !== undefined ? { externalUserId: lm.externalUserId } : {}),
        ...primaryExternalId(user),
      };
      items.push({ role: 'link', key, item });
    }
    for (const { key, identity } of guardsOf(lm)) {
      const item = guardItem(user, lm, key, identity);
      items.push({ role: 'guard', key, item, identity, ...(item.snapshot ? { snapshotOf: lm.userId } : {}) });
    }
  }
  for (const { tenantId, info } of claimsOf(user)) {
    const key = keys.claim(tenantId, info);
    items.push({ role: 'claim', key, item: { ...key, type: ITEM_TYPE.claim, fmt: CURRENT_FORMAT, primaryUserId: user.id }, identity: IDENTITY_OF[info.kind] });
  }
  return items;
}

/**
 * The user stored in one partition, from its login method items (`undefined` if it has none): a
 * primary user when they say so, else the one login method on its own.
 */
export function userFromItems(userId: string, items: readonly Stored[]): AuthUser | undefined {
  const lmItems = items.filter((i) => i.type === ITEM_TYPE.loginMethod);
  if (lmItems.length === 0) return undefined;
  return {
    id: userId,
    isPrimary: lmItems.some((i) => i.primaryUserId !== undefined),
    loginMethods: lmItems.map(decodeLogin).sort(byJoinOrder),
  };
}

/** The login method and user a guard names (see `guardItem`). */
export function refOfGuard(guard: Stored): { recipeUserId: string; userId: string } {
  const recipeUserId = readString(guard.userId, 'userId');
  return { recipeUserId, userId: guard.linkedTo === undefined ? recipeUserId : readString(guard.linkedTo, 'linkedTo') };
}
