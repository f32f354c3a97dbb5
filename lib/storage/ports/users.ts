import type { AccountInfo, AuthUser, IdentityKind, RecipeId, UserRecord } from '../model';

/** Result of a write that may hit a uniqueness guard or a concurrent change. */
export type UserWriteResult =
  | { readonly status: 'OK' }
  /** Another login method of the same recipe holds this identity in the tenant. */
  | { readonly status: 'IDENTITY_TAKEN'; readonly identity: IdentityKind }
  /** Another primary user holds this account info in one of the user's tenants (SPEC §11). */
  | { readonly status: 'ACCOUNT_INFO_TAKEN'; readonly identity: IdentityKind }
  /** A user changed (or vanished) since it was read. */
  | { readonly status: 'STALE' };

/**
 * Where a login method lives, as an item that holds no snapshot of it names it: its recipe user id,
 * and the id of the user holding it (a primary user's id when it is linked, else its own), so the
 * user is read at once.
 */
export interface LoginRef {
  readonly recipeUserId: string;
  readonly userId: string;
}

/**
 * A login method as an item found through one of its identities keeps it, written in the same
 * transaction as the login method: whole, version included, so a write can start from it. When
 * it is in a primary user, `primaryUserId` names that user, whose other login methods it does not
 * hold.
 */
export interface LoginSnapshot {
  readonly loginMethod: UserRecord;
  readonly primaryUserId?: string;
}

/** What a lookup by identity finds: a snapshot of the login method, or where it lives. */
export type FoundLogin = LoginSnapshot | LoginRef;

export const isSnapshot = (found: FoundLogin): found is LoginSnapshot => 'loginMethod' in found;

/** Where the login method a lookup found lives. */
export const refOf = (found: FoundLogin): LoginRef =>
  isSnapshot(found) ? { recipeUserId: found.loginMethod.userId, userId: found.primaryUserId ?? found.loginMethod.userId } : found;

/** An email-password login as its email guard holds it: the login, and the guard's copy of the hash. */
export type EmailPasswordLogin = FoundLogin & { readonly passwordHash?: string };

/** What a user id given to the API is: a SuperTokens id, an external user id, or either (SPEC §12). */
export type UserIdKind = 'SUPERTOKENS' | 'EXTERNAL' | 'ANY';

/** One piece of account info in one tenant: what a primary user claims. */
export interface TenantAccountInfo {
  readonly tenantId: string;
  readonly info: AccountInfo;
}

/** A user with one of its login methods. */
export interface UserWithLogin {
  readonly user: AuthUser;
  readonly loginMethod: UserRecord;
}

/**
 * A user by its id and a login method by its account info, read consistently through their keys,
 * and the writes of users: all that bulk import needs of users, so that its functions bundle none
 * of `UserStore`'s other reads and writes (esbuild keeps every method of a class it keeps).
 */
export interface UserAccounts {
  /**
   * The user with this id, read consistently: a primary user by its own id or by the recipe user
   * id of any of its login methods, or a login method on its own. `as` (default `ANY`) says what
   * the id is: a SuperTokens id, an external user id (SPEC §12), or either, a SuperTokens id
   * first (as the core: of an id that is both, the SuperTokens user wins).
   */
  getUser(userId: string, as?: UserIdKind): Promise<AuthUser | undefined>;
  /** The login method holding an email of a recipe (not third party) in a tenant (strongly consistent). */
  getLoginByEmail(tenantId: string, recipe: Exclude<RecipeId, 'thirdparty'>, email: string): Promise<LoginRef | undefined>;
  getLoginByPhone(tenantId: string, phoneNumber: string): Promise<LoginRef | undefined>;
  /**
   * The login method holding a third-party identity in a tenant (strongly consistent): its
   * snapshot, which its guard holds (`SNAPSHOT_CARRIERS`), so a sign-in answers and writes from
   * this one read.
   */
  getLoginByThirdParty(tenantId: string, thirdPartyId: string, thirdPartyUserId: string): Promise<FoundLogin | undefined>;
  /** Creates a login method on its own, with its guards, in one transaction. */
  createUser(loginMethod: UserRecord): Promise<UserWriteResult>;
  /**
   * Replaces the stored state of the `before` users with the `after` users in one transaction:
   * login methods, links, guards and primary-user claims all follow from the users, so linking,
   * unlinking, removing and changing a login method are each this one call. Every login method
   * written or removed is conditional on the version read (`STALE` otherwise); a new guard or
   * claim is conditional on being free (`IDENTITY_TAKEN`, `ACCOUNT_INFO_TAKEN`).
   */
  writeUsers(before: readonly AuthUser[], after: readonly AuthUser[]): Promise<UserWriteResult>;
  /**
   * Sets an email-password login method's hash (and the copy on its email guard). A primary or
   * linked user's: if it is still in this user and has the email it was read with (no version
   * check: the last import wins). One on its own (whose guard's snapshot holds its version), or
   * one waiting for password migration (SPEC §16, which stops waiting: its waiting entries go
   * too), is written by `writeUsers`, at the version read. `STALE` otherwise: the caller reads
   * again.
   */
  replacePasswordHash(user: AuthUser, loginMethod: UserRecord, passwordHash: string): Promise<UserWriteResult>;
}

/**
 * Users, their login methods, their uniqueness guards and the account info of primary users, read
 * through their keys and written in transactions: the write/derive family, which every function
 * that reads or changes a user takes. The reads off the indexes are families of their own, so a
 * function bundles only the ones it uses: `UserLookups` (by identity, gsi2), `UserLists` (a
 * tenant's list and counts, gsi1) and `UserSearch` (the dashboard's walk of that list).
 */
export interface UserStore extends UserAccounts {
  /**
   * The primary user claiming each piece of account info in its tenant, read consistently
   * (`undefined` where none does), in the order asked.
   */
  getPrimaryHolders(claims: readonly TenantAccountInfo[]): Promise<(string | undefined)[]>;
  /**
   * Writes a mark on a login method of a primary user from its snapshot, without the user
   * (`LoginMark`): its item at the next version, on the condition that it still holds the version
   * read, with its snapshots, in one transaction; `STALE` otherwise (unlinked, removed or changed
   * since: read again).
   */
  writeLoginMark(mark: LoginMark): Promise<UserWriteResult>;
  /**
   * The email-password login of an email in a tenant, read consistently from its guard: the hash,
   * and the login method's snapshot (one on its own, `SNAPSHOT_CARRIERS`), so sign-in answers from
   * this one read, or where it lives.
   */
  getEmailPasswordLogin(tenantId: string, email: string): Promise<EmailPasswordLogin | undefined>;
}

/** A change of users: the users before and after (see `writeUsers`). */
export interface UsersChange {
  readonly before: readonly AuthUser[];
  readonly after: readonly AuthUser[];
}

/**
 * A mark on a login method of a primary user, read from its snapshot without the user: its
 * verified emails or phone and its consumes' marks (`isLoginMark`), which only the login method's
 * own item and its snapshots hold.
 */
export interface LoginMark {
  readonly primaryUserId: string;
  readonly before: UserRecord;
  readonly after: UserRecord;
}

/** A change of a login method: of its users, or a mark written without its user. */
export type LoginWrite = UsersChange | LoginMark;
