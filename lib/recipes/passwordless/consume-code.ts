import { publicIdOf, standaloneUser, withCodesConsumed, withLoginMethod, withVerifiedEmail } from '../../storage/auth-user';
import type { AuthUser, UserRecord } from '../../storage/model';
import type { ConsumeUserWrite } from '../../storage/ports';
import { retryOnRace, type Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { userAfterMark } from '../users/find-login';
import { findIdentityLogin, identityOf, supersededDevice } from './identity-login';
import { consumedDeviceOf, verifyCode, type CodeFailure, type CodeProof, type ConsumedDevice } from './verify-code';

export type ConsumeCodeResult =
  | { status: 'OK'; createdNewUser: boolean; user: ApiUser; recipeUserId: string; consumedDevice: ConsumedDevice }
  | CodeFailure;


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
  deps: Pick<Deps, 'passwordless' | 'users' | 'clock' | 'random' | 'config'>,
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
    const existing = throughGuard
      ? await findIdentityLogin(deps, tenantId, identity)
      : await deps.users.findPasswordlessLoginByIndex(tenantId, identity);
    if (supersededDevice(existing, device, codes)) return { status: 'RESTART_FLOW_ERROR' };
    const now = deps.clock.now();
    const marked = (before: UserRecord): UserRecord =>
      withCodesConsumed('email' in identity ? withVerifiedEmail(before, identity.email) : { ...before, phoneVerified: true }, tenantId, identity, now);
    let write: ConsumeUserWrite;
    let lm: UserRecord;
    // The user to answer; for a primary user's login method found without it, read beside the write.
    let user: AuthUser | undefined;
    let read: Promise<AuthUser | undefined> | undefined;
    if (existing && 'primaryUserId' in existing) {
      // The write needs the login method alone, so the user costs no round trip of its own: its
      // partition is read while the transaction runs (a failed read is made again after it).
      lm = marked(existing.loginMethod);
      write = { primaryUserId: existing.primaryUserId, before: existing.loginMethod, after: lm };
      read = deps.users.getUser(existing.primaryUserId, 'SUPERTOKENS').catch(() => undefined);
    } else if (existing) {
      lm = marked(existing.loginMethod);
      user = withLoginMethod(existing.user, lm);
      write = { before: [existing.user], after: [user] };
    } else {
      lm = withCodesConsumed(
        {
          userId: deps.random.uuid(),
          recipeId: 'passwordless',
          tenantIds: [tenantId],
          timeJoined: now,
          ...identity,
          verifiedEmails: 'email' in identity ? [identity.email] : [],
          phoneVerified: 'phoneNumber' in identity,
          version: 1,
        },
        tenantId,
        identity,
        now,
      );
      user = standaloneUser(lm);
      write = { before: [], after: [user] };
    }
    const result = await deps.passwordless.consumeDevice(device, codes, write);
    if (result.status === 'DEVICE_CHANGED') {
      verified = undefined;
      return undefined;
    }
    if (result.status !== 'OK') {
      // Lost a race, or the index was behind: read through the guard from now on.
      throughGuard = true;
      return undefined;
    }
    user ??= await userAfterMark(deps, await read, lm);
    return {
      status: 'OK',
      createdNewUser: !existing,
      user: toApiUser(user),
      recipeUserId: publicIdOf(lm),
      consumedDevice: consumedDeviceOf(device),
    };
  });
}
