import { publicIdOf, standaloneUser, withLoginMethod, withVerifiedEmail } from '../../storage/auth-user';
import type { AuthUser, DeviceRecord, PasswordlessIdentity, UserRecord } from '../../storage/model';
import type { ConsumeUserWrite } from '../../storage/ports';
import { retryOnRace, type Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findLogin } from '../users/find-login';
import { deletePendingDevices } from './pending-devices';
import { consumedDeviceOf, verifyCode, type CodeFailure, type CodeProof, type ConsumedDevice } from './verify-code';

export type ConsumeCodeResult =
  | { status: 'OK'; createdNewUser: boolean; user: ApiUser; recipeUserId: string; consumedDevice: ConsumedDevice }
  | CodeFailure;


function identityOf(device: DeviceRecord): PasswordlessIdentity {
  return device.email !== undefined ? { email: device.email } : { phoneNumber: device.phoneNumber ?? '' };
}

/**
 * Consumes a code: signs in the passwordless login method of the device's email or phone in the
 * tenant (as its primary user when it is linked), creating it if there is none (only passwordless
 * login methods count: a primary user holding the email through another recipe gets a new,
 * unlinked login method, as in the core). The device is deleted in the same transaction as the
 * user write, so a code works once, also under concurrent consumes; the identity's other pending
 * devices are deleted afterwards.
 */
export async function consumeCode(
  deps: Pick<Deps, 'passwordless' | 'users' | 'clock' | 'random' | 'config'>,
  tenantId: string,
  proof: CodeProof,
): Promise<ConsumeCodeResult> {
  let verified: Awaited<ReturnType<typeof verifyCode>> | undefined = await verifyCode(deps, tenantId, proof);
  if (verified.status !== 'OK') return verified;

  return retryOnRace<ConsumeCodeResult>('Consuming a code', async () => {
    // A resend (or another consume) changed the device since it was read: read and check it again.
    verified ??= await verifyCode(deps, tenantId, proof);
    if (verified.status !== 'OK') return verified;
    const { device, codes } = verified;
    const identity = identityOf(device);
    const existing = await findLogin(
      deps,
      'email' in identity
        ? await deps.users.getLoginByEmail(tenantId, 'passwordless', identity.email)
        : await deps.users.getLoginByPhone(tenantId, identity.phoneNumber),
    );
    let write: ConsumeUserWrite;
    let lm: UserRecord;
    let user: AuthUser;
    if (existing) {
      const before = existing.loginMethod;
      lm = 'email' in identity ? withVerifiedEmail(before, identity.email) : { ...before, phoneVerified: true };
      user = withLoginMethod(existing.user, lm);
      write = { before: [existing.user], after: [user] };
    } else {
      lm = {
        userId: deps.random.uuid(),
        recipeId: 'passwordless',
        tenantIds: [tenantId],
        timeJoined: deps.clock.now(),
        ...identity,
        verifiedEmails: 'email' in identity ? [identity.email] : [],
        phoneVerified: 'phoneNumber' in identity,
        version: 1,
      };
      user = standaloneUser(lm);
      write = { before: [], after: [user] };
    }
    const result = await deps.passwordless.consumeDevice(device, codes, write);
    if (result.status === 'DEVICE_CHANGED') {
      verified = undefined;
      return undefined;
    }
    if (result.status === 'OK') {
      await deletePendingDevices(deps, tenantId, identity);
      return {
        status: 'OK',
        createdNewUser: !existing,
        user: toApiUser(user),
        recipeUserId: publicIdOf(lm),
        consumedDevice: consumedDeviceOf(device),
      };
    }
    return undefined;
  });
}
