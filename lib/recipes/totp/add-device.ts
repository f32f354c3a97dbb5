import type { TotpDevice } from '../../storage/ports/totp';
import type { Deps } from '../deps';

export type AddDeviceResult = { status: 'OK'; deviceName: string } | { status: 'DEVICE_ALREADY_EXISTS_ERROR' };

/**
 * The name the core gives a device made without one: `TOTP Device <n>`, n from `from` (the number
 * of the user's verified devices) upward, the first not in `taken` (the names verified devices hold).
 */
export function defaultDeviceName(from: number, taken: ReadonlySet<string>): string {
  let n = from;
  while (taken.has(`TOTP Device ${n}`)) n++;
  return `TOTP Device ${n}`;
}

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
  const from = verified.size;
  // Each name refused is held by a device verified since the read, so this ends; the bound is a guard.
  for (let tries = 0; tries <= 100; tries++) {
    const candidate = defaultDeviceName(from, verified);
    if ((await deps.totp.putDevice(userId, { ...device, name: candidate })) === 'OK') return { status: 'OK', deviceName: candidate };
    verified.add(candidate);
  }
  throw new Error('No free default TOTP device name was found');
}
