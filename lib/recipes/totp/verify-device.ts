import type { Deps } from '../deps';
import { checkCode, type DeviceChoice } from './check-code';
import type { CodeCheckResult } from './judge-attempt';

export type VerifyDeviceResult =
  | { status: 'OK'; wasAlreadyVerified: boolean }
  | { status: 'UNKNOWN_DEVICE_ERROR' }
  | Exclude<CodeCheckResult, { status: 'OK' }>;

/** What verify-device answers before any code is checked. */
type Answer = { status: 'UNKNOWN_DEVICE_ERROR' } | { status: 'OK'; wasAlreadyVerified: true };

/**
 * `POST [/<t>]/recipe/totp/device/verify` (SPEC §20): an unverified device becomes verified with a
 * code of its own (checked against that device only, under the rate limit of the user in the
 * tenant), in the same write as the attempt. A device already verified answers `OK` at once,
 * without looking at the code; an unknown one `UNKNOWN_DEVICE_ERROR`.
 */
export async function verifyDevice(
  deps: Pick<Deps, 'totp' | 'clock' | 'config'>,
  tenantId: string,
  userId: string,
  deviceName: string,
  totp: string,
): Promise<VerifyDeviceResult> {
  const result = await checkCode<Answer>(deps, userId, tenantId, totp, (devices): DeviceChoice<Answer> => {
    const device = devices.find((d) => d.name === deviceName);
    if (!device) return { answer: { status: 'UNKNOWN_DEVICE_ERROR' } };
    if (device.verified) return { answer: { status: 'OK', wasAlreadyVerified: true } };
    return { devices: [device], verify: device };
  });
  return result.status === 'OK' && !('wasAlreadyVerified' in result) ? { status: 'OK', wasAlreadyVerified: false } : result;
}
