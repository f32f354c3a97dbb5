import { retryOnRace, type Deps } from '../deps';

export type RenameDeviceResult = { status: 'OK' } | { status: 'UNKNOWN_DEVICE_ERROR' } | { status: 'DEVICE_ALREADY_EXISTS_ERROR' };

/**
 * `PUT /recipe/totp/device` (SPEC §20): an unknown `existingDeviceName` is `UNKNOWN_DEVICE_ERROR`;
 * a new name any device holds `DEVICE_ALREADY_EXISTS_ERROR`; the same name again changes nothing.
 * The device is moved only if it is still as read (verified or replaced meanwhile: read again).
 */
export function renameDevice(deps: Pick<Deps, 'totp'>, userId: string, existingDeviceName: string, newDeviceName: string): Promise<RenameDeviceResult> {
  return retryOnRace<RenameDeviceResult>('Renaming the TOTP device', async () => {
    const device = await deps.totp.getDevice(userId, existingDeviceName);
    if (!device) return { status: 'UNKNOWN_DEVICE_ERROR' };
    if (newDeviceName === existingDeviceName) return { status: 'OK' };
    const written = await deps.totp.renameDevice(userId, device, newDeviceName);
    if (written === 'STALE') return undefined;
    return written === 'OK' ? { status: 'OK' } : { status: 'DEVICE_ALREADY_EXISTS_ERROR' };
  });
}
