import { accountInfoOf, byJoinOrder, tenantsOf, timeJoinedOf } from '../auth-user';
import { timeSortKey, userListShard, type Key } from '../keys';
import * as keys from '../keys';
import type { AccountInfo, AuthUser, IdentityKind, RecipeId, UserRecord } from '../model';
import { snapshotOf, storedLogin, type StoredSnapshot } from './login-codec';
import { ITEM_TYPE, type DerivedItem, type GuardItem, type IdentityEntryItem, type LinkItem, type LoginMethodItem } from './stored-user-items';

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
  {
    item: 'guard',
    recipe: 'webauthn',
    identity: 'webauthnCredential',
    holder: 'any',
    serves:
      "webauthn sign-in in 2 round trips: the credential's partition (this guard and the key beside it) read with the options, then the write; a primary user's partition read beside the write",
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
 * and its external user id and passkeys' credential ids (one per app). `attached`: items its
 * recipe's store keeps beside the guard (a passkey's key and counter), deleted with it.
 */
export function guardsOf(lm: UserRecord): { key: Key; identity: IdentityKind; attached?: Key }[] {
  const guards: { key: Key; identity: IdentityKind; attached?: Key }[] = [];
  if (lm.externalUserId !== undefined) guards.push({ key: keys.externalIdGuard(lm.externalUserId), identity: 'externalUserId' });
  for (const id of lm.webauthnCredentialIds ?? []) {
    guards.push({ key: keys.webauthnCredential(id), identity: 'webauthnCredential', attached: keys.webauthnCredentialKey(id) });
  }
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

/** Whether a login method is in a tenant: one in none is in no list, and counts for no recipe of the app. */
const inATenant = (lm: UserRecord): boolean => lm.tenantIds.length > 0;

/** gsi2 sort key of a login method among those with its email or phone: join order. */
const identitySortKey = (lm: UserRecord): string => `${timeSortKey(lm.timeJoined)}#${lm.userId}`;

/**
 * The login method item. It lives in its user's partition. In each tenant, the user's oldest login
 * method there carries the user's place in the tenant's user list (gsi1, at the user's time joined,
 * with the recipes the user has in that tenant), so a primary user is listed and counted once per
 * tenant. The user's oldest login method in a tenant also carries every recipe the user has in
 * its tenants (`appRecipeIds`): counting the users of the whole app counts only those entries, so a
 * primary user in several tenants counts once. The item carries the entries of the login method's
 * first tenant (`tenantIds[0]`); a login method in several tenants (bulk import, an association,
 * SPEC §22) has entry items for the others; one in none is in no list and no index.
 */
function loginMethodItem(user: AuthUser, lm: UserRecord, listsTenant: boolean, listsApp: boolean): LoginMethodItem {
  const tenantId = lm.tenantIds[0] as string | undefined;
  const gsi2pk =
    tenantId === undefined
      ? undefined
      : lm.email !== undefined
        ? keys.usersWithEmail(tenantId, lm.email)
        : lm.phoneNumber !== undefined
          ? keys.usersWithPhone(tenantId, lm.phoneNumber)
          : undefined;
  return {
    ...keys.loginMethod(user.id, lm.userId),
    type: ITEM_TYPE.loginMethod,
    fmt: CURRENT_FORMAT,
    ...storedLogin(lm),
    ...(user.isPrimary ? { primaryUserId: user.id } : {}),
    ...(listsTenant && tenantId !== undefined ? listPlace(user, tenantId) : {}),
    ...(listsApp ? { appRecipeIds: [...new Set(user.loginMethods.filter(inATenant).map((other) => other.recipeId))].sort() } : {}),
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
    // A login method in no tenant (SPEC §22: disassociated from its last) is in no list.
    const first = lm.tenantIds[0] as string | undefined;
    const listsTenant = first !== undefined && !listed.has(first);
    const listsApp = first !== undefined && listed.size === 0;
    if (first !== undefined) listed.add(first);
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
    for (const { key, identity, attached } of guardsOf(lm)) {
      const item = guardItem(user, lm, key, identity);
      items.push({ role: 'guard', key, item, identity, ...(item.snapshot ? { snapshotOf: lm.userId } : {}), ...(attached ? { attached } : {}) });
    }
  }
  for (const { tenantId, info } of claimsOf(user)) {
    const key = keys.claim(tenantId, info);
    items.push({ role: 'claim', key, item: { ...key, type: ITEM_TYPE.claim, fmt: CURRENT_FORMAT, primaryUserId: user.id }, identity: IDENTITY_OF[info.kind] });
  }
  return items;
}
