import type { CodeRecord, DeviceRecord } from '../../storage/model';
import type { Deps } from '../deps';
import { isLinkCodeForm, linkCodeHashOf, linkCodeOf, type DeviceId, type PreAuthSessionId } from './codes';
import { isDeviceEnded } from './identity-login';

/** How a code is presented: the magic link, or the device id and the typed code. */
export type CodeProof =
  | { readonly preAuthSessionId: PreAuthSessionId; readonly linkCode: string }
  | { readonly preAuthSessionId: PreAuthSessionId; readonly deviceId: DeviceId; readonly userInputCode: string };

export type CodeFailure =
  | { status: 'RESTART_FLOW_ERROR' }
  | { status: 'INCORRECT_USER_INPUT_CODE_ERROR'; failedCodeInputAttemptCount: number; maximumCodeInputAttempts: number }
  | { status: 'EXPIRED_USER_INPUT_CODE_ERROR'; failedCodeInputAttemptCount: number; maximumCodeInputAttempts: number };

/** The device a code belongs to, as the API shows it. */
export interface ConsumedDevice {
  preAuthSessionId: string;
  failedCodeInputAttemptCount: number;
  email?: string;
  phoneNumber?: string;
}

export function consumedDeviceOf(device: DeviceRecord): ConsumedDevice {
  return {
    preAuthSessionId: device.preAuthSessionId,
    failedCodeInputAttemptCount: device.failedAttempts,
    ...(device.email !== undefined ? { email: device.email } : {}),
    ...(device.phoneNumber !== undefined ? { phoneNumber: device.phoneNumber } : {}),
  };
}

/**
 * Checks a code against its device without consuming it. A wrong or expired user input code
 * counts as a failed attempt; the attempt that reaches the maximum deletes the device. Expiry is
 * checked here, at read time: DynamoDB TTL only garbage-collects and may lag by hours. A device
 * whose codes a consume of its email or phone ended answers `RESTART_FLOW_ERROR` to any code, as
 * the core's deleted device does: a right code is refused by the caller (which reads the login
 * method anyway), a wrong one here, before it counts.
 */
export async function verifyCode(
  deps: Pick<Deps, 'passwordless' | 'users' | 'clock' | 'config'>,
  tenantId: string,
  proof: CodeProof,
): Promise<{ status: 'OK'; device: DeviceRecord; codes: CodeRecord[] } | CodeFailure> {
  // The device with all its codes in one read: the code is found among them, and consuming deletes them.
  const read = await deps.passwordless.getDeviceWithCodes(proof.preAuthSessionId);
  if (!read || read.device.tenantId !== tenantId) return { status: 'RESTART_FLOW_ERROR' };
  const { device, codes } = read;
  const max = deps.config.passwordless.maxCodeInputAttempts;
  const codeWithHash = (hash: string) => codes.find((c) => c.linkCodeHash === hash);

  if ('linkCode' in proof) {
    if (!isLinkCodeForm(proof.linkCode)) return { status: 'RESTART_FLOW_ERROR' };
    const code = codeWithHash(linkCodeHashOf(proof.linkCode));
    if (!code || code.timeCreated + code.codeLifetime <= deps.clock.now()) return { status: 'RESTART_FLOW_ERROR' };
    return { status: 'OK', device, codes };
  }

  const linkCode = linkCodeOf(proof.deviceId, device.linkCodeSalt, proof.userInputCode);
  const code = codeWithHash(linkCodeHashOf(linkCode));
  const expired = code !== undefined && code.timeCreated + code.codeLifetime <= deps.clock.now();
  if (code && !expired) return { status: 'OK', device, codes };

  if (await isDeviceEnded(deps, device, codes)) return { status: 'RESTART_FLOW_ERROR' };
  // The increment is atomic, so parallel guesses can never be counted fewer than they were.
  const count = await deps.passwordless.recordFailedAttempt(device.preAuthSessionId);
  if (count === undefined) return { status: 'RESTART_FLOW_ERROR' };
  if (count >= max) {
    await deps.passwordless.deleteDevice(device.preAuthSessionId);
    return { status: 'RESTART_FLOW_ERROR' };
  }
  return {
    status: expired ? 'EXPIRED_USER_INPUT_CODE_ERROR' : 'INCORRECT_USER_INPUT_CODE_ERROR',
    failedCodeInputAttemptCount: count,
    maximumCodeInputAttempts: max,
  };
}
