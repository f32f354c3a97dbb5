import { publicIdOf, withCodesConsumed, withVerifiedEmail } from '../../storage/auth-user';
import type { PasswordlessIdentity, UserRecord } from '../../storage/model';
import type { LoginWrite } from '../../storage/ports/users';
import { retryOnRace, type Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { changeLogin, createLogin, loginOf } from '../users/find-login';
import { identityOf, identityRef, supersededDevice } from './identity-login';
import { consumedDeviceOf, verifyCode, type CodeFailure, type CodeProof, type ConsumedDevice } from './verify-code';

export type ConsumeCodeResult = { status: 'OK'; createdNewUser: boolean; user: ApiUser; recipeUserId: string; consumedDevice: ConsumedDevice } | CodeFailure;

/**
 * Consumes a code: signs in the passwordless login method of the device's email or phone in the
 * tenant (as its primary user when it is linked), creating it if there is none (only passwordless
 * login methods count: a primary user holding the email through another recipe gets a new,
 * unlinked login method, as in the core). The device is deleted in the same transaction as the
 * user write, so a code works once, also under concurrent consumes. The same write records the
 * consume on the login method (`withCodesConsumed`), which ends the identity's other pending
 * devices in the tenant: their codes answer `RESTART_FLOW_ERROR` from then on, as the core's
 * deleted devices do, and TTL collects them.
 */
export async function consumeCode(
  deps: Pick<Deps, 'passwordless' | 'users' | 'userLookups' | 'clock' | 'random' | 'config'>,
  tenantId: string,
  proof: CodeProof,
): Promise<ConsumeCodeResult> {
  let verified: Awaited<ReturnType<typeof verifyCode>> | undefined = await verifyCode(deps, tenantId, proof);
  if (verified.status !== 'OK') return verified;
  // The first try finds the email's or phone's login method through the index (one Query where
  // the guard takes two reads). The transaction catches a stale answer (the login method's
  // version, a new guard being free); every later try reads through the guard. An ended device is
  // believed from the index: marks only grow while the login method exists, and the index is
  // never ahead of the table.
  let throughGuard = false;

  return retryOnRace<ConsumeCodeResult>('Consuming a code', async () => {
    // A resend (or another consume) changed the device since it was read: read and check it again.
    verified ??= await verifyCode(deps, tenantId, proof);
    if (verified.status !== 'OK') return verified;
    const { device, codes } = verified;
    const identity = identityOf(device);
    const found = throughGuard ? await identityRef(deps, tenantId, identity) : await deps.userLookups.findPasswordlessLoginByIndex(tenantId, identity);
    const existing = await loginOf(deps, found);
    if (supersededDevice(existing, device, codes)) return { status: 'RESTART_FLOW_ERROR' };
    const now = deps.clock.now();
    const marked = (before: UserRecord): UserRecord =>
      withCodesConsumed('email' in identity ? withVerifiedEmail(before, identity.email) : { ...before, phoneVerified: true }, tenantId, identity, now);
    const consume = (write: LoginWrite) => deps.passwordless.consumeDevice(device, codes, write);
    const { result, user, loginMethod } = existing
      ? await changeLogin(deps, existing, marked, consume)
      : await createLogin(newLogin(deps.random.uuid(), tenantId, identity, now), consume);
    if (result.status === 'DEVICE_CHANGED') {
      verified = undefined;
      return undefined;
    }
    if (!user) {
      // Lost a race, or the index was behind: read through the guard from now on.
      throughGuard = true;
      return undefined;
    }
    return {
      status: 'OK',
      createdNewUser: !existing,
      user: toApiUser(user),
      recipeUserId: publicIdOf(loginMethod),
      consumedDevice: consumedDeviceOf(device),
    };
  });
}

/** The passwordless login method a first consume of an email or phone makes. */
function newLogin(userId: string, tenantId: string, identity: PasswordlessIdentity, now: number): UserRecord {
  const lm: UserRecord = {
    userId,
    recipeId: 'passwordless',
    tenantIds: [tenantId],
    timeJoined: now,
    ...identity,
    verifiedEmails: 'email' in identity ? [identity.email] : [],
    phoneVerified: 'phoneNumber' in identity,
    version: 1,
  };
  return withCodesConsumed(lm, tenantId, identity, now);
}
