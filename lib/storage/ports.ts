import type { CodeRecord, DeviceRecord, IdentityKind, PasswordlessIdentity, RecipeId, TenantRecord, UserRecord } from './model';

/** Result of a write that may hit a uniqueness guard or a concurrent change. */
export type UserWriteResult =
  | { readonly status: 'OK' }
  /** Another user holds this identity in the tenant. */
  | { readonly status: 'IDENTITY_TAKEN'; readonly identity: IdentityKind }
  /** The user changed (or vanished) since it was read. */
  | { readonly status: 'STALE' };

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
  /** Only users of these recipes; every recipe when absent. */
  readonly recipeIds?: readonly RecipeId[];
}

/** Users and their uniqueness guards. */
export interface UserStore {
  getUser(userId: string): Promise<UserRecord | undefined>;
  /** The user holding an email-password or passwordless email in a tenant (strongly consistent). */
  getUserIdByEmail(tenantId: string, recipe: 'emailpassword' | 'passwordless', email: string): Promise<string | undefined>;
  getUserIdByPhone(tenantId: string, phoneNumber: string): Promise<string | undefined>;
  getUserIdByThirdParty(tenantId: string, thirdPartyId: string, thirdPartyUserId: string): Promise<string | undefined>;
  /** Users of a tenant with this email in any recipe, oldest first. */
  listUsersByEmail(tenantId: string, email: string): Promise<UserRecord[]>;
  /** Creates the user and its guards in one transaction. */
  createUser(user: UserRecord): Promise<UserWriteResult>;
  /**
   * Replaces `before` with `after` in one transaction: guards of identities that changed move,
   * and the write happens only if the stored user is still at `before.version`.
   */
  updateUser(before: UserRecord, after: UserRecord): Promise<UserWriteResult>;
  /**
   * Sets an email-password user's hash (and the copy on its email guard) if the user still has
   * the email it was read with (no version check: the last import wins, so concurrent imports of
   * one email never fail each other). `STALE` if the user is gone or its email changed.
   */
  replacePasswordHash(user: UserRecord, passwordHash: string): Promise<UserWriteResult>;
  /**
   * The email-password login of an email in a tenant, read consistently from its guard: the user
   * id and (on guards written by this version) the password hash, so sign-in can verify while it
   * fetches the user.
   */
  getEmailPasswordLogin(tenantId: string, email: string): Promise<{ userId: string; passwordHash?: string } | undefined>;
  /**
   * Deletes the user and every guard it holds in one transaction, only if the stored user is still
   * at `user.version` (else `STALE`: re-read and try again).
   */
  deleteUser(user: UserRecord): Promise<{ readonly status: 'OK' } | { readonly status: 'STALE' }>;
  /** A page of a tenant's users in join order; `hasMore` tells whether another page follows. */
  listUsers(tenantId: string, query: UserListQuery): Promise<{ users: UserRecord[]; hasMore: boolean }>;
  /** How many users a tenant has (of the given recipes, or all). */
  countUsers(tenantId: string, recipeIds?: readonly RecipeId[]): Promise<number>;
}

/** What consuming a code does to the user it signs in. */
export type ConsumeUserWrite =
  | { readonly kind: 'create'; readonly user: UserRecord }
  | { readonly kind: 'update'; readonly before: UserRecord; readonly after: UserRecord };

/** Passwordless devices and codes. */
export interface PasswordlessStore {
  createDevice(device: DeviceRecord, code: CodeRecord): Promise<void>;
  /** Adds a code to a device: `DEVICE_GONE` if the device no longer exists, `CODE_EXISTS` if that code was issued already. */
  addCode(code: CodeRecord, deviceExpiresAt: number): Promise<'OK' | 'DEVICE_GONE' | 'CODE_EXISTS'>;
  getDevice(preAuthSessionId: string): Promise<DeviceRecord | undefined>;
  getCode(preAuthSessionId: string, linkCodeHash: string): Promise<CodeRecord | undefined>;
  /** Counts a wrong guess; the device's new count, or `undefined` if the device is gone. */
  recordFailedAttempt(preAuthSessionId: string): Promise<number | undefined>;
  /** Deletes a device and its codes. */
  deleteDevice(preAuthSessionId: string): Promise<void>;
  /** preAuthSessionIds of the pending devices of one email or phone in a tenant. */
  listDevicesOfIdentity(tenantId: string, identity: PasswordlessIdentity): Promise<string[]>;
  /**
   * Consumes a device in one transaction with the user write: the device and its codes are
   * deleted only if the device still exists, so of two concurrent consumes exactly one wins.
   */
  consumeDevice(
    device: DeviceRecord,
    userWrite: ConsumeUserWrite,
  ): Promise<UserWriteResult | { readonly status: 'DEVICE_GONE' }>;
}

export interface TenantStore {
  /** Creates a tenant; `false` if it existed. */
  createTenant(tenant: TenantRecord): Promise<boolean>;
  tenantExists(tenantId: string): Promise<boolean>;
  listTenants(): Promise<TenantRecord[]>;
  /** Removes a tenant; `false` if it did not exist. */
  removeTenant(tenantId: string): Promise<boolean>;
}

/** Every storage port a recipe may need. */
export interface Stores {
  readonly users: UserStore;
  readonly passwordless: PasswordlessStore;
  readonly tenants: TenantStore;
}
