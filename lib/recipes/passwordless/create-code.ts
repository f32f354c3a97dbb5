import type { CodeRecord, DeviceRecord, PasswordlessIdentity } from '../../storage/model';
import type { Deps } from '../deps';
import { DEVICE_ID_BYTES, isDeviceIdForm, LINK_CODE_SALT_BYTES, linkCodeHashOf, linkCodeOf, preAuthSessionIdOf, type DeviceId } from './codes';
import { isDeviceEnded } from './identity-login';

export type CreateCodeInput = (PasswordlessIdentity & { readonly userInputCode?: string }) | { readonly deviceId: string; readonly userInputCode?: string };

export type CreateCodeResult =
  | {
      status: 'OK';
      preAuthSessionId: string;
      codeId: string;
      deviceId: string;
      userInputCode: string;
      linkCode: string;
      timeCreated: number;
      codeLifetime: number;
    }
  | { status: 'RESTART_FLOW_ERROR' }
  | { status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' };

const DEFAULT_CODE_DIGITS = 6;
/** A random 6-digit code may repeat one already on the device; a new one is drawn this often. */
const RANDOM_CODE_TRIES = 5;

/**
 * Creates a passwordless code: on a new device for an email or phone number, or (with `deviceId`)
 * a new code on an existing device, as a resend (refused once a consume of the device's email
 * or phone ended it).
 */
export async function createCode(
  deps: Pick<Deps, 'passwordless' | 'users' | 'clock' | 'random' | 'config'>,
  tenantId: string,
  input: CreateCodeInput,
): Promise<CreateCodeResult> {
  const now = deps.clock.now();
  const codeLifetime = deps.config.passwordless.codeLifetimeMs;
  const newCode = (deviceId: DeviceId, salt: string, userInputCode: string) => {
    const preAuthSessionId = preAuthSessionIdOf(deviceId);
    const linkCode = linkCodeOf(deviceId, salt, userInputCode);
    const code: CodeRecord = {
      preAuthSessionId,
      linkCodeHash: linkCodeHashOf(linkCode),
      codeId: deps.random.uuid(),
      timeCreated: now,
      codeLifetime,
    };
    const result = {
      status: 'OK' as const,
      preAuthSessionId,
      codeId: code.codeId,
      deviceId,
      userInputCode,
      linkCode,
      timeCreated: now,
      codeLifetime,
    };
    return { code, result };
  };

  if (!('deviceId' in input)) {
    const deviceId = deps.random.bytes(DEVICE_ID_BYTES).toString('base64') as DeviceId;
    const salt = deps.random.bytes(LINK_CODE_SALT_BYTES).toString('base64');
    const { code, result } = newCode(deviceId, salt, input.userInputCode ?? deps.random.digits(DEFAULT_CODE_DIGITS));
    const device: DeviceRecord = {
      preAuthSessionId: code.preAuthSessionId,
      tenantId,
      ...('email' in input ? { email: input.email } : { phoneNumber: input.phoneNumber }),
      linkCodeSalt: salt,
      failedAttempts: 0,
      expiresAt: now + codeLifetime,
    };
    await deps.passwordless.createDevice(device, code);
    return result;
  }

  if (!isDeviceIdForm(input.deviceId)) return { status: 'RESTART_FLOW_ERROR' };
  const deviceId = input.deviceId;
  const read = await deps.passwordless.getDeviceWithCodes(preAuthSessionIdOf(deviceId));
  if (!read || read.device.tenantId !== tenantId) return { status: 'RESTART_FLOW_ERROR' };
  const { device, codes } = read;
  // A consume of the email or phone since the device was made ended it (the core deleted it).
  if (await isDeviceEnded(deps, device, codes)) return { status: 'RESTART_FLOW_ERROR' };
  for (let attempt = 0; attempt < RANDOM_CODE_TRIES; attempt++) {
    const userInputCode = input.userInputCode ?? deps.random.digits(DEFAULT_CODE_DIGITS);
    const { code, result } = newCode(deviceId, device.linkCodeSalt, userInputCode);
    const added = await deps.passwordless.addCode(code, Math.max(device.expiresAt, now + codeLifetime));
    if (added === 'OK') return result;
    if (added === 'DEVICE_GONE') return { status: 'RESTART_FLOW_ERROR' };
    if (input.userInputCode !== undefined) return { status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' };
  }
  throw new Error('Could not draw an unused user input code for the device');
}
