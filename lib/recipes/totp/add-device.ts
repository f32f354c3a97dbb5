import type { TotpDevice } from '../../storage/ports/totp';
import type { Deps } from '../deps';

export type AddDeviceResult = { status: 'OK'; deviceName: string } | { status: 'DEVICE_ALREADY_EXISTS_ERROR' };

/** The name the core gives the `n`-th device of a user made without one. */
export const defaultDeviceName = (n: number): string => `TOTP Device ${n}`;

/**
 * Stores a new device for create and import (SPEC §20). Named: over an unverified device of that
 * name (which it replaces), not over a verified one (`DEVICE_ALREADY_EXISTS_ERROR`). Unnamed: as
 * the core, `TOTP Device <n>` from the number of verified devices upward, past every name a
 * verified device holds (an unverified `TOTP Device <n>` is replaced).
 */
export async function addDevice(
  deps: Pick<Deps, 'totp'>,
  userId: string,
  name: string | undefined,
  device: Omit<TotpDevice, 'name'>,
): Promise<AddDeviceResult> {
  if (name !== undefined) {
    const written = await deps.totp.putDevice(userId, { ...device, name });
    return written === 'OK' ? { status: 'OK', deviceName: name } : { status: 'DEVICE_ALREADY_EXISTS_ERROR' };
  }
  const verified = new Set((await deps.totp.listDevices(userId)).filter((d) => d.verified).map((d) => d.name));
  // Each name refused is held by a device verified since the read, so this ends; the bound is a guard.
  for (let n = verified.size, tries = 0; tries <= verified.size + 100; n++, tries++) {
    const candidate = defaultDeviceName(n);
    if (verified.has(candidate)) continue;
    if ((await deps.totp.putDevice(userId, { ...device, name: candidate })) === 'OK') return { status: 'OK', deviceName: candidate };
  }
  throw new Error('No free default TOTP device name was found');
}
