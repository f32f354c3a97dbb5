/**
 * TOTP data (SPEC §20), kept under a user id exactly as the app passes it (the external id when
 * mapped), like metadata: the user need not exist.
 */

/** An authenticator app of a user. */
export interface TotpDevice {
  /** Unique per user. */
  readonly name: string;
  /** RFC 4648 base32, upper case, unpadded: never logged, listed or echoed. */
  readonly secret: string;
  /** Seconds per step. */
  readonly period: number;
  /** Steps accepted either side of now. */
  readonly skew: number;
  readonly verified: boolean;
  /** Epoch ms: devices are listed oldest first. */
  readonly createdAt: number;
}

/** One code check of a user in a tenant (valid or not), as the rate limit and the replay check read it. */
export interface TotpAttempt {
  /** Epoch ms of the check. */
  readonly at: number;
  readonly valid: boolean;
  /** The code, kept for a valid attempt only: refused again until `expiresAt` (replay). */
  readonly code?: string;
  /** Epoch ms: `at` + period × (2·skew + 1) of the matching device (the largest of the devices when none matched). */
  readonly expiresAt: number;
  /** Epoch ms after which the attempt counts for nothing: the later of `expiresAt` and `at` + twice the cooldown. */
  readonly keepUntil: number;
}

/** The recent attempts of a user in a tenant, newest first, at the version they were read. */
export interface TotpAttempts {
  readonly attempts: readonly TotpAttempt[];
  readonly version: number;
}

/** What a code check reads, in one call: the user's devices (oldest first) and its attempts in the tenant. */
export interface TotpCheckState {
  readonly devices: readonly TotpDevice[];
  /** `undefined`: no attempt stored in this tenant. */
  readonly attempts?: TotpAttempts;
}

/** Whether a user id has TOTP data: all the id mapping checks need (a store of its own keeps their bundles small). */
export interface TotpUsage {
  /** Whether anything is kept for this user id (a device, or attempts in a tenant). */
  hasData(userId: string): Promise<boolean>;
}

export interface TotpStore extends TotpUsage {
  /** The devices of a user id, oldest first (`[]` for an id without any). */
  listDevices(userId: string): Promise<TotpDevice[]>;
  /** One device, read consistently. */
  getDevice(userId: string, name: string): Promise<TotpDevice | undefined>;
  /** The devices of a user id and its attempts in a tenant, in one consistent read. */
  readCheckState(userId: string, tenantId: string): Promise<TotpCheckState>;
  /**
   * Puts a device unless a **verified** one holds its name (`EXISTS`): an unverified one of that
   * name is replaced (the core's create over an abandoned enrolment).
   */
  putDevice(userId: string, device: TotpDevice): Promise<'OK' | 'EXISTS'>;
  /**
   * Gives a device another name, if it is still as read (`STALE` otherwise) and the new name is
   * free (`EXISTS` otherwise), in one transaction.
   */
  renameDevice(userId: string, device: TotpDevice, newName: string): Promise<'OK' | 'EXISTS' | 'STALE'>;
  /**
   * Removes a device; `false` when the user id has none of that name. Removing the last device
   * removes everything kept for the user id (its attempts in every tenant too).
   */
  removeDevice(userId: string, name: string): Promise<boolean>;
  /**
   * Stores the attempts of a user in a tenant if they are still at the version read (`undefined`:
   * none were stored), else `STALE`: checks of one user in one tenant take turns, so every check
   * sees the one before it (the core holds a lock for it), and of concurrent uses of one code
   * exactly one is valid. With `verify`, the device is marked verified in the same transaction,
   * provided it is still the one read (`STALE` otherwise).
   */
  recordAttempts(
    userId: string,
    tenantId: string,
    attempts: readonly TotpAttempt[],
    readVersion: number | undefined,
    verify?: TotpDevice,
  ): Promise<'OK' | 'STALE'>;
}
