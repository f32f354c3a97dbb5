import type { Deps } from '../deps';

/**
 * `POST /recipe/totp/device/remove` (SPEC §20): `didDeviceExist: false` for an unknown name.
 * Removing the last device removes everything kept for the user id (its attempts in every tenant).
 */
export async function removeDevice(deps: Pick<Deps, 'totp'>, userId: string, deviceName: string): Promise<{ status: 'OK'; didDeviceExist: boolean }> {
  return { status: 'OK', didDeviceExist: await deps.totp.removeDevice(userId, deviceName) };
}
