import type {
  AccountInfo,
  AuthUser,
  BulkImportRow,
  BulkImportStatus,
  CodeRecord,
  DeviceRecord,
  IdentityKind,
  JsonObject,
  MetadataRecord,
  RoleRecord,
  SessionRecord,
  SigningKeyRecord,
  StoredSigningKeys,
  VerificationTokenRecord,
  PasswordResetTokenRecord,
  PasswordlessIdentity,
  RecipeId,
  TenantFactorsChange,
  TenantRecord,
  UserRecord,
} from './model';

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

/** A place in a tenant's join order: users are ordered by `timeJoined`, then by id. */
export interface UserListCursor {
  readonly timeJoined: number;
  readonly userId: string;
}

/** One page of a tenant's users. */
export interface UserListQuery {
  /** At most this many users. */
  readonly limit: number;
  /** `ASC`: oldest first; `DESC`: newest first. */
  readonly order: 'ASC' | 'DESC';
  /** Start strictly after this place (in `order`); from the first user when absent. */
  readonly after?: UserListCursor;
  /** Only users with a login method of one of these recipes in the tenant; every user when absent. */
  readonly recipeIds?: readonly RecipeId[];
}

/**
 * A walk over a tenant's users in join order that keeps the ones `accept` takes, up to `max` (the
 * dashboard's search, SPEC §18b).
 */
export interface UserScanQuery {
  /** `ASC`: oldest first; `DESC`: newest first. */
  readonly order: 'ASC' | 'DESC';
  /**
   * Only users with login methods of every one of these recipes in the tenant need be offered to
   * `accept` (a filter on the list entries, so the others are not sent at all); all when absent.
   */
  readonly withRecipes?: readonly RecipeId[];
  /**
   * What a login method on its own (not in a primary user) must hold to be offered to `accept`,
   * for each key given: `emailPrefixes`, an email starting with one of them or holding `@` and one
   * of them; `phonePrefixes`, a phone number starting with one of them (as stored: emails are
   * stored lower-case, SPEC §3). Checked by DynamoDB, so the others are not sent; a primary user is
   * always offered. Only narrows: `accept` decides.
   */
  readonly loginFilter?: { readonly emailPrefixes?: readonly string[]; readonly phonePrefixes?: readonly string[] };
  /** Whether a user (a primary user with all its login methods, of every tenant) is kept. */
  readonly accept: (user: AuthUser) => boolean;
  /** The walk stops once this many users are kept. */
  readonly max: number;
}

/** One page of a tenant's users; `next` (the place of its last user) only when another page follows. */
export interface UserListPage {
  readonly users: AuthUser[];
  readonly next?: UserListCursor;
}

/** A user with one of its login methods. */
export interface UserWithLogin {
  readonly user: AuthUser;
  readonly loginMethod: UserRecord;
}

/**
 * A user by its id and a login method by its account info, read consistently through their keys,
 * and the writes of users: all that bulk import needs of users, apart from `UserStore`'s index reads
 * (lists, counts, look-ups by index), so that its functions bundle none of those (esbuild keeps
 * every method of a class it keeps).
 */
export interface UserAccounts {
  /**
   * The user with this id, read consistently: a primary user by its own id or by the recipe user
   * id of any of its login methods, or a login method on its own. `as` (default `ANY`) says what
   * the id is: a SuperTokens id, an external user id (SPEC §12), or either, a SuperTokens id
   * first (as the core: of an id that is both, the SuperTokens user wins).
   */
  getUser(userId: string, as?: UserIdKind): Promise<AuthUser | undefined>;
  /** The login method holding an email-password or passwordless email in a tenant (strongly consistent). */
  getLoginByEmail(tenantId: string, recipe: 'emailpassword' | 'passwordless', email: string): Promise<LoginRef | undefined>;
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

/** Users, their login methods, their uniqueness guards and the account info of primary users. */
export interface UserStore extends UserAccounts {
  /** Users with a login method in the tenant that has this email (any recipe), each once. */
  listUsersByEmail(tenantId: string, email: string): Promise<AuthUser[]>;
  /**
   * The passwordless login method with this email or phone number in the tenant, found through
   * gsi2 (login method items by email, else by phone, and entries with a snapshot where the item is
   * not indexed so): one Query, where the guard takes two reads (the guard, then the user's
   * partition). **Eventually consistent**: the answer may be stale, or miss a login method just
   * made, so a caller writes only on conditions that catch that (the login method's version, a new
   * guard being free) and reads through the guard (`getLoginByEmail`, `getLoginByPhone`) when they
   * fail.
   */
  findPasswordlessLoginByIndex(tenantId: string, identity: PasswordlessIdentity): Promise<LoginSnapshot | undefined>;
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
  /**
   * A page of a tenant's users in join order (a primary user once, at its oldest login method's
   * time); `hasMore` tells whether another page follows.
   */
  listUsers(tenantId: string, query: UserListQuery): Promise<UserListPage>;
  /**
   * How many users a tenant has (a primary user once; of the given recipes, or all). With
   * `oncePerApp`, only the users whose oldest login method is in this tenant: summed over every
   * tenant, each user of the app counts once, also a primary user with login methods in several.
   */
  countUsers(tenantId: string, recipeIds?: readonly RecipeId[], oncePerApp?: boolean): Promise<number>;
  /**
   * How many email-password login methods in the tenant still wait for password migration at
   * sign-in (SPEC §16). Read off an index: a mark set or cleared a moment ago may not show yet.
   */
  countPasswordMigrations(tenantId: string): Promise<number>;
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

/** Passwordless devices and codes. */
export interface PasswordlessStore {
  createDevice(device: DeviceRecord, code: CodeRecord): Promise<void>;
  /** Adds a code to a device: `DEVICE_GONE` if the device no longer exists, `CODE_EXISTS` if that code was issued already. */
  addCode(code: CodeRecord, deviceExpiresAt: number): Promise<'OK' | 'DEVICE_GONE' | 'CODE_EXISTS'>;
  /** A device with all its codes, in one consistent read of its partition. */
  getDeviceWithCodes(preAuthSessionId: string): Promise<{ device: DeviceRecord; codes: CodeRecord[] } | undefined>;
  /** Counts a wrong guess; the device's new count, or `undefined` if the device is gone. */
  recordFailedAttempt(preAuthSessionId: string): Promise<number | undefined>;
  /**
   * Deletes a device and its codes. A resend or a removal racing it makes it read the device
   * again, so no code outlives its device.
   */
  deleteDevice(preAuthSessionId: string): Promise<void>;
  /**
   * Deletes a device with the codes read with it, conditional on the device being as read
   * (`DEVICE_CHANGED`: a resend or a removal changed it since; read again).
   */
  deleteReadDevice(device: DeviceRecord, codes: readonly CodeRecord[]): Promise<'OK' | 'DEVICE_CHANGED'>;
  /** The preAuthSessionId of the device holding the code with this id (read consistently), or `undefined`. */
  getDeviceOfCode(codeId: string): Promise<string | undefined>;
  /**
   * Deletes one code of a device that keeps others, conditional on the device being as read
   * (`DEVICE_CHANGED`: read again); the device's `codeCount` goes up, so a consume that read the
   * code before fails its transaction and reads the device again.
   */
  removeCode(device: DeviceRecord, code: CodeRecord): Promise<'OK' | 'DEVICE_CHANGED'>;
  /** preAuthSessionIds of the pending devices of one email or phone in a tenant. */
  listDevicesOfIdentity(tenantId: string, identity: PasswordlessIdentity): Promise<string[]>;
  /**
   * Consumes a device in one transaction with the user write: the device and the codes read with
   * it are deleted only if the device still exists and got no code since it was read, so of two
   * concurrent consumes exactly one wins, and a code a resend adds meanwhile is never left without
   * its device (`DEVICE_CHANGED`: read again).
   */
  consumeDevice(device: DeviceRecord, codes: readonly CodeRecord[], userWrite: LoginWrite): Promise<UserWriteResult | { readonly status: 'DEVICE_CHANGED' }>;
}

export interface TenantStore {
  /**
   * Creates a tenant (at `createdAt`) unless it exists, and applies `change` to its factors, in one
   * write; whether it was created.
   */
  putTenant(tenantId: string, createdAt: number, change?: TenantFactorsChange): Promise<boolean>;
  /** A tenant with its configuration, read consistently; `undefined` when it does not exist. */
  getTenant(tenantId: string): Promise<TenantRecord | undefined>;
  tenantExists(tenantId: string): Promise<boolean>;
  listTenants(): Promise<TenantRecord[]>;
  /** Removes a tenant; `false` if it did not exist. */
  removeTenant(tenantId: string): Promise<boolean>;
}

/** User metadata, one item per user id (the id exactly as the app gives it). */
export interface MetadataStore {
  /** The metadata of a user id (read consistently), or `undefined` when it has none. */
  getMetadata(userId: string): Promise<MetadataRecord | undefined>;
  /**
   * Stores a user id's metadata if it is still at the version read (`undefined`: only if it has
   * none yet); `STALE` otherwise, so a concurrent update is never lost.
   */
  putMetadata(userId: string, metadata: JsonObject, readVersion: number | undefined): Promise<'OK' | 'STALE'>;
  removeMetadata(userId: string): Promise<void>;
}

/** Email verification tokens (SPEC §13); the verified state itself lives on the login method. */
export interface EmailVerificationStore {
  /** Stores a token (and its entry among the tokens of its login method and email) in one transaction. */
  createToken(token: VerificationTokenRecord): Promise<void>;
  getToken(tokenHash: string): Promise<VerificationTokenRecord | undefined>;
  /**
   * Uses a token up: deletes it (only if it still exists, so a token works once: `TOKEN_GONE`
   * otherwise) in one transaction with a change of users (`STALE` if they changed since read).
   */
  useToken(token: VerificationTokenRecord, userWrite?: UsersChange): Promise<'OK' | 'TOKEN_GONE' | 'STALE'>;
  /** Deletes every token of one login method and email in a tenant. */
  revokeTokens(tenantId: string, recipeUserId: string, email: string): Promise<void>;
}

/**
 * Password reset tokens (SPEC §18b): a token item found by its hash, and the tokens of a user,
 * so that using one ends all of them.
 */
export interface PasswordResetStore {
  /** Stores a token (and its entry among the tokens of its user) in one transaction. */
  createToken(token: PasswordResetTokenRecord): Promise<void>;
  /** A token by its hash, read consistently (expired ones too: expiry is the caller's check). */
  getToken(tokenHash: string): Promise<PasswordResetTokenRecord | undefined>;
  /**
   * Uses a token up: deletes it, only if it still exists (`TOKEN_GONE` otherwise: of concurrent
   * uses of one token, or of two tokens of one user, exactly one is `OK`), and every other token of
   * its user, in one transaction.
   */
  useToken(token: PasswordResetTokenRecord): Promise<'OK' | 'TOKEN_GONE'>;
  /** Deletes every token of a user (the SuperTokens id the tokens were made for). */
  revokeTokens(userId: string): Promise<void>;
}

/**
 * A role's current incarnation and the list of roles: all that bulk import needs of roles (its
 * checks of `userRoles`), apart from `RoleStore`, so that its functions bundle these two reads and
 * none of the role store's writes (esbuild keeps every method of a class it keeps).
 */
export interface RoleReader {
  getRole(role: string): Promise<RoleRecord | undefined>;
  /** Every role (read from an index). */
  listRoles(): Promise<string[]>;
}

/**
 * Roles and permissions (app-wide) and their assignments to user ids per tenant (SPEC §14). User
 * ids are taken exactly as the app gives them, as in the core.
 */
export interface RoleStore extends RoleReader {
  /** Creates the role unless it exists; `false` when it did. */
  createRole(role: RoleRecord): Promise<boolean>;
  /** Adds permissions (idempotent), only while the role is this incarnation (`ROLE_GONE` otherwise). */
  addPermissions(role: RoleRecord, permissions: readonly string[]): Promise<'OK' | 'ROLE_GONE'>;
  permissionsOf(role: string): Promise<string[]>;
  removePermissions(role: string, permissions: readonly string[]): Promise<void>;
  /** The roles holding a permission (read from an index: a change may show a moment late). */
  rolesWithPermission(permission: string): Promise<string[]>;
  /** How many roles there are (counted on the index `listRoles` reads). */
  countRoles(): Promise<number>;
  /**
   * Removes a role, its permissions, and its assignments to users (as far as `deadline` allows:
   * assignments of a removed role never count again, see `RoleRecord`); `false` if it did not exist.
   */
  removeRole(role: string, deadline: number): Promise<boolean>;
  /** Assigns a role to a user id in a tenant: `ALREADY` if it had it, `ROLE_GONE` if the role is no longer this incarnation. */
  assignRole(tenantId: string, userId: string, role: RoleRecord): Promise<'OK' | 'ALREADY' | 'ROLE_GONE'>;
  /** Removes a role from a user id in a tenant; whether it had it. */
  unassignRole(tenantId: string, userId: string, role: RoleRecord): Promise<boolean>;
  /** The roles of a user id in a tenant (only of roles that exist). */
  rolesOfUser(tenantId: string, userId: string): Promise<string[]>;
  /** How many role assignments a user id has, in every tenant (of roles that exist: a removed role's leftovers do not count). */
  countAssignments(userId: string): Promise<number>;
  /**
   * The user ids holding a role in a tenant (read from an index); `undefined` when they take more
   * than `maxBytes` (each its length and 5), where reading stops.
   */
  usersWithRole(tenantId: string, role: RoleRecord, maxBytes: number): Promise<string[] | undefined>;
}

/** A place in the list of bulk rows (newest first: staging time, then row id). */
export interface BulkRowCursor {
  readonly createdAt: number;
  readonly id: string;
}

/** A row's place in that list: a page that ends with it goes on after it. */
export const cursorOfRow = (row: BulkImportRow): BulkRowCursor => ({ createdAt: row.createdAt, id: row.user.id });

/**
 * Staged bulk-import rows (SPEC §15). Counts are exact: every change of a row's status changes a
 * counter item in the same transaction. The counter items are split by who writes them (staging,
 * removal, the worker's lanes), so writers never contend for one item: a count is the sum over
 * every item of every family, read decrements first, so a count read while rows move may still
 * hold a row that just left, and never misses one that is there.
 */
export interface BulkImportStore {
  /**
   * Stages rows (status `NEW`), in transactions of up to 99 rows with their counter. With
   * `idempotent`, the row ids are the request's own (`requestIds`): a row already there was staged by
   * an earlier try of the same request and is left as it is (not counted again); without, a taken
   * row id is an error.
   */
  stageRows(rows: readonly BulkImportRow[], opts?: { idempotent?: boolean }): Promise<void>;
  /** A page of rows, newest first, of one status or all; `next` only when another page follows. */
  listRows(query: { status?: BulkImportStatus; limit: number; after?: BulkRowCursor }): Promise<{ rows: BulkImportRow[]; next?: BulkRowCursor }>;
  /** How many rows there are in a status, or in all. */
  countRows(status?: BulkImportStatus): Promise<number>;
  /** How many rows there are in each status, from one read of the counters. */
  countRowsByStatus(): Promise<Record<BulkImportStatus, number>>;
  /** Removes rows in any status; the ids removed, and those that named no row. */
  removeRows(ids: readonly string[]): Promise<{ deleted: string[]; invalid: string[] }>;
}

/**
 * Importing one bulk user (SPEC §15): `POST /bulk-import/import` and the worker. A port of its own
 * (not a method of `BulkImportStore`) so that a function bundles only the store code it runs:
 * esbuild keeps every method of a class it keeps, and the synchronous import runs none of the
 * rows' or the worker's.
 */
export interface BulkUserImportStore {
  /**
   * Writes one imported bulk user in one transaction: its new users with all their items (as
   * `UserStore.writeUsers` from nothing), its metadata and its role assignments. `ROLE_GONE` when
   * a role is no longer the incarnation read (for a row: on its lane's copy, see
   * `BulkWorkerStore.ensureRoleLane`); `STALE` when the metadata changed since read. With a row,
   * the same transaction deletes the row and counts it (`ROW_GONE` if it moved or went).
   */
  importUser(write: BulkUserWrite, row?: BulkRowRef): Promise<BulkUserWriteResult>;
}

/**
 * What only the worker and the sweeper do to staged rows (see `BulkImportStore` for the rows and
 * their counters): every write is conditional on the status read, and counts on the row's lane's
 * counter. A port of its own so that the bulk API's functions and the synchronous import, which
 * run none of it, do not bundle it.
 */
export interface BulkWorkerStore {
  /**
   * Makes sure the lane's copy of a role (which the worker's imports of that lane check instead of
   * the role itself) is this incarnation; `false` when the role is no longer it.
   */
  ensureRoleLane(role: RoleRecord, lane: number): Promise<boolean>;
  /** A row, read consistently. */
  getRow(id: string): Promise<BulkImportRow | undefined>;
  /** Deletes a row whose user is already here, with its count; `ROW_GONE` if it moved or went. */
  finishRow(row: BulkRowRef): Promise<'OK' | 'ROW_GONE'>;
  /** Marks a row `FAILED` with the reason (its passwords dropped), with its counts; `ROW_GONE` if it moved or went. */
  failRow(row: BulkRowRef, errorMessage: string, now: number): Promise<'OK' | 'ROW_GONE'>;
  /** Marks a row `PROCESSING` after an attempt that did not finish (and counts the attempt). */
  markProcessing(row: BulkRowRef, now: number): Promise<'OK' | 'ROW_GONE'>;
  /** Rows `NEW` or `PROCESSING` last changed before `before` (at most `limit`), oldest first. */
  staleRows(before: number, limit: number): Promise<BulkImportRow[]>;
  /** Touches a row so that the stream hands it to the worker again (`ROW_GONE` if it moved or went). */
  redrive(row: BulkRowRef, now: number): Promise<'OK' | 'ROW_GONE'>;
}

/**
 * A row the worker is handling, as it read it: its id (which carries its lane) and status. Every
 * write of the worker is conditional on the row still being in that status, and counts on the
 * lane's counter (see `BulkImportStore`, `BulkWorkerStore`).
 */
export interface BulkRowRef {
  readonly id: string;
  readonly status: BulkImportStatus;
}

/**
 * A staged row handed to the worker (staged, or handed on again by the sweeper), as the adapter
 * reads it from the change feed that carries it (the table's stream). Rows of one lane come in the
 * order they changed.
 */
export interface BulkRowHandOver {
  readonly id: string;
  /** The row's lane (see `BULK_LANES`): the worker handles a lane's rows one at a time. */
  readonly lane: number;
  /** What names this hand-over when the worker gives it back to be handed over again (Lambda's batch item failure). */
  readonly recordId: string;
  /** The row as it was when handed over, when the feed shows it whole: saves reading it. */
  readonly seen?: BulkImportRow;
}

/** What importing one bulk user writes (SPEC §15). */
export interface BulkUserWrite {
  readonly users: readonly AuthUser[];
  /** The user id's metadata after the import, and the version it was read at (none: `undefined`). */
  readonly metadata?: { readonly userId: string; readonly metadata: JsonObject; readonly readVersion: number | undefined };
  readonly roles: readonly { readonly tenantId: string; readonly userId: string; readonly role: RoleRecord }[];
}

export type BulkUserWriteResult = UserWriteResult | { readonly status: 'ROLE_GONE' } | { readonly status: 'ROW_GONE' };

/** Every storage port a recipe may need. */
/** A session's change of payloads (`undefined`: unchanged). */
export interface SessionDataChange {
  readonly userDataInJWT?: JsonObject;
  readonly userDataInDatabase?: JsonObject;
}

/** Sessions and their keys (SPEC §18). */
/** The `OK` of an exchange kept for its `Idempotency-Key` (by its SHA-256) until `until` (ms). */
export interface ExchangeReplay {
  readonly keyHash: string;
  readonly until: number;
  readonly answer: string;
}

export interface SessionStore {
  /**
   * The ids a session of `userId` answers with: the primary user's and the login method's, each
   * the external id where one is mapped; `userId` itself for both when no user has it (the core
   * does not check that the user exists).
   */
  sessionUserOf(userId: string): Promise<{ userId: string; recipeUserId: string }>;
  createSession(session: SessionRecord): Promise<void>;
  getSession(handle: string): Promise<SessionRecord | undefined>;
  /**
   * Moves a session from the refresh token `from` (its hash²) to `to` and slides its expiry
   * (the core's promotion): idempotent for racing promoters of one token. `MOVED`: the session is
   * at neither (its current state is given); `MISSING`: no such session, or expired at `now`.
   */
  promote(
    handle: string,
    from: string,
    to: string,
    now: number,
    expiresAt: number,
    useStaticKey?: boolean,
  ): Promise<{ status: 'OK' | 'MOVED'; session: SessionRecord } | { status: 'MISSING' }>;
  setUseStaticKey(handle: string, useStaticKey: boolean): Promise<void>;
  /** Replaces payloads of a live session; `undefined` when it is gone or expired at `now`. */
  updateSession(handle: string, change: SessionDataChange, now: number): Promise<SessionRecord | undefined>;
  /** Deletes sessions; answers the handles that existed. */
  removeSessions(handles: readonly string[]): Promise<string[]>;
  /** The live sessions (at `now`) created with any of `userIds`, in `tenantId` or every tenant. */
  sessionsOfUsers(userIds: readonly string[], tenantId: string | undefined, now: number): Promise<SessionRecord[]>;
  readSigningKeys(): Promise<StoredSigningKeys>;
  /**
   * Marks an exchanged token (SPEC §19) used, by its hash, until `keepUntil` (ms): conditional, so of
   * racing calls exactly one gets `true`. `replay`: the answer kept for an `Idempotency-Key`. A
   * `false` to a call with a `replay` comes with the replay the first use kept, if any.
   */
  consumeExchangedToken(
    tokenHash: string,
    keepUntil: number,
    replay: ExchangeReplay | undefined,
  ): Promise<{ consumed: true } | { consumed: false; replay?: ExchangeReplay }>;
  /** The replay the use of an exchanged token kept for its `Idempotency-Key` (read after its write), if any. */
  exchangeReplay(tokenHash: string): Promise<ExchangeReplay | undefined>;
  /** Conditional: `false` when another function made this generation's key first. */
  addDynamicKey(generation: number, key: SigningKeyRecord, deleteAfter: number): Promise<boolean>;
  addStaticKey(key: SigningKeyRecord): Promise<boolean>;
  addRefreshTokenKey(key: string): Promise<boolean>;
}

/** The dashboard's search (SPEC §18b): apart from `UserStore`, so only the searching function carries it. */
export interface UserSearch {
  /**
   * The tenant's users `accept` takes, in join order (a primary user once), at most `max`: reads
   * the list (and a primary user's partition) until `max` are found or the list ends.
   */
  scanUsers(tenantId: string, query: UserScanQuery): Promise<AuthUser[]>;
}

export interface Stores {
  readonly bulkImport: BulkImportStore;
  readonly bulkUserImport: BulkUserImportStore;
  readonly bulkWorker: BulkWorkerStore;
  readonly roles: RoleStore;
  readonly roleReader: RoleReader;
  readonly users: UserStore;
  readonly userAccounts: UserAccounts;
  readonly metadata: MetadataStore;
  readonly emailVerification: EmailVerificationStore;
  readonly passwordReset: PasswordResetStore;
  readonly passwordless: PasswordlessStore;
  readonly tenants: TenantStore;
  readonly sessions: SessionStore;
  readonly userSearch: UserSearch;
}
