import type { TotpDevice } from '../../storage/ports/totp';
import { retryPauseMs, WRITE_TRIES, type Deps } from '../deps';
import { attemptsToKeep, judgeAttempt, type CodeCheckResult } from './judge-attempt';

/** Which devices a check tries, or the answer it gives before any (an unknown device, one already verified). */
export type DeviceChoice<A> = { readonly answer: A } | { readonly devices: readonly TotpDevice[]; readonly verify?: TotpDevice };

/**
 * A code check of a user in a tenant (SPEC §20): one consistent read of the user's devices and its
 * attempts there, the verdict (`judgeAttempt`), and the attempt written at the version read, with
 * the device newly verified when `choose` names one. A check that lost the race for the attempts
 * item (another check of the user wrote it since the read) reads again and judges anew, so checks
 * of a user take turns as under the core's lock: of concurrent uses of one code exactly one is
 * `OK`, and concurrent wrong codes are each counted. One that loses `WRITE_TRIES` times answers
 * `INVALID_TOTP_ERROR` without counting, as the core answers a used code it could not store.
 */
export async function checkCode<A>(
  deps: Pick<Deps, 'totp' | 'clock' | 'config'>,
  userId: string,
  tenantId: string,
  code: string,
  choose: (devices: readonly TotpDevice[]) => DeviceChoice<A>,
): Promise<A | CodeCheckResult> {
  const limit = { maxAttempts: deps.config.totp.maxAttempts, cooldownMs: deps.config.totp.rateLimitCooldownMs };
  let failedBefore = 0;
  for (let n = 0; n < WRITE_TRIES; n++) {
    if (n > 0) await new Promise((resolve) => setTimeout(resolve, retryPauseMs(n)));
    const state = await deps.totp.readCheckState(userId, tenantId);
    const choice = choose(state.devices);
    if ('answer' in choice) return choice.answer;
    const now = deps.clock.now();
    const before = state.attempts?.attempts ?? [];
    const judged = judgeAttempt(before, choice.devices, code, now, limit);
    failedBefore = judged.failedBefore;
    if (!judged.attempt) return judged.result;
    const kept = attemptsToKeep(judged.attempt, before, now, limit.maxAttempts);
    const verify = judged.result.status === 'OK' ? choice.verify : undefined;
    if ((await deps.totp.recordAttempts(userId, tenantId, kept, state.attempts?.version, verify)) === 'OK') return judged.result;
  }
  return { status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: failedBefore, maxNumberOfFailedAttempts: limit.maxAttempts };
}
