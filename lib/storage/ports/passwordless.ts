import type { CodeRecord, DeviceRecord, PasswordlessIdentity } from '../model';
import type { LoginWrite, UserWriteResult } from './users';

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
