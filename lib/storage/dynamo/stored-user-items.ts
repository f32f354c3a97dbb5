import { byJoinOrder } from '../auth-user';
import type { Key } from '../keys';
import type { AuthUser, IdentityKind, UserRecord } from '../model';
import { decodeLogin, type StoredSnapshot } from './login-codec';
import { readString, type Stored } from './stored-fields';

/**
 * A user's items as they are stored: their types, whom each belongs to, and the user read back
 * from its partition. What items a user implies is derived in `./user-items.ts` (`itemsOfUser`).
 */

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
  | {
      readonly role: 'guard';
      readonly key: Key;
      readonly item: GuardItem;
      readonly identity: IdentityKind;
      readonly snapshotOf?: string;
      /** An item its recipe's store keeps beside the guard (a passkey's key), deleted with it. */
      readonly attached?: Key;
    }
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
