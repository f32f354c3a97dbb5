import type { TotpAttempt, TotpDevice } from '../../storage/ports/totp';
import { base32Decode } from './base32';
import { MAX_TOTP_LENGTH, matchesWindow } from './totp-code';

/** What a code check answers (SPEC §20), both verify calls alike. */
export type CodeCheckResult =
  | { status: 'OK' }
  | { status: 'INVALID_TOTP_ERROR'; currentNumberOfFailedAttempts: number; maxNumberOfFailedAttempts: number }
  | { status: 'LIMIT_REACHED_ERROR'; retryAfterMs: number; currentNumberOfFailedAttempts: number; maxNumberOfFailedAttempts: number };

export interface RateLimit {
  /** `TOTP_MAX_ATTEMPTS`. */
  readonly maxAttempts: number;
  /** `TOTP_RATE_LIMIT_COOLDOWN_SEC` in ms. */
  readonly cooldownMs: number;
}

/** A check's verdict, and the attempt to store (none when the limit was reached or the code was too long to compute). */
export interface Judgement {
  readonly result: CodeCheckResult;
  readonly attempt?: TotpAttempt;
  /** The device the code was valid for. */
  readonly matched?: TotpDevice;
  /** Wrong codes in the run before this check (the count a check that cannot be stored answers). */
  readonly failedBefore: number;
}

const invalid = (failed: number, max: number): CodeCheckResult => ({
  status: 'INVALID_TOTP_ERROR',
  currentNumberOfFailedAttempts: failed,
  maxNumberOfFailedAttempts: max,
});

function takeWhile<T>(items: readonly T[], keep: (item: T) => boolean): T[] {
  const end = items.findIndex((item) => !keep(item));
  return end === -1 ? [...items] : items.slice(0, end);
}

/** Seconds a used code of a device stays refused: its whole window. */
const windowSec = (d: TotpDevice): number => d.period * (2 * d.skew + 1);

/**
 * The core's `checkAndStoreCode` (SPEC §20), without its storage. `attempts`: the user's attempts
 * in the tenant, newest first (those past their `keepUntil` count for nothing: DynamoDB's TTL may
 * not have run); `devices`: the devices the code may be for.
 *
 * - Rate limit: of the newest `maxAttempts`, the run of wrong ones up to the first valid one,
 *   counted back from the newest wrong one while within the cooldown; once the cooldown since the
 *   newest wrong one has passed, the run is over (zero). A full run answers `LIMIT_REACHED_ERROR`
 *   (the attempt is not stored), `retryAfterMs` being what is left of that cooldown.
 * - A code longer than `MAX_TOTP_LENGTH` is wrong without computing (and not stored, as the core).
 * - Otherwise the code is checked against every device, and is valid for the first that matches
 *   unless an unexpired valid attempt had the same code (a replay); the attempt is stored, valid
 *   or not, refusing its code until `period × (2·skew + 1)` of the device it matched (the largest
 *   of the devices when none did).
 */
export function judgeAttempt(attempts: readonly TotpAttempt[], devices: readonly TotpDevice[], code: string, now: number, limit: RateLimit): Judgement {
  const { maxAttempts: max, cooldownMs } = limit;
  const live = attempts.filter((a) => a.keepUntil > now);
  const run = takeWhile(live.slice(0, max), (a) => !a.valid);
  const newest = run[0];
  let failed = newest === undefined ? 0 : takeWhile(run, (a) => a.at > newest.at - cooldownMs).length;
  // The cooldown since the newest wrong code has passed: the run is over (the core restarts a full
  // run here, and its sweep ends a shorter one).
  if (newest !== undefined && now - newest.at >= cooldownMs) failed = 0;
  if (failed === max) {
    const since = now - newest.at;
    return {
      result: { status: 'LIMIT_REACHED_ERROR', retryAfterMs: cooldownMs - since, currentNumberOfFailedAttempts: max, maxNumberOfFailedAttempts: max },
      failedBefore: max,
    };
  }
  if (code.length > MAX_TOTP_LENGTH) return { result: invalid(failed + 1, max), failedBefore: failed };

  // Every device is checked (no stop at the first match), each over its whole window.
  const matches = devices.map((d) => {
    const key = base32Decode(d.secret);
    // Secrets are checked base32 on their way in; another one is a damaged item (never echoed).
    if (!key) throw new Error('A stored TOTP secret is not base32');
    return matchesWindow(key, code, now, d.period, d.skew);
  });
  const matched = devices[matches.indexOf(true)];
  const replayed = matched !== undefined && live.some((a) => a.valid && a.code === code && a.expiresAt > now);
  const valid = matched !== undefined && !replayed;
  const expireInSec = matched ? windowSec(matched) : Math.max(0, ...devices.map(windowSec));
  const expiresAt = now + expireInSec * 1000;
  // A run matters until the cooldown after its newest wrong code, and spans at most a cooldown: so
  // an attempt is read for two cooldowns (a valid one, which ends the runs before it, as long).
  const attempt: TotpAttempt = { at: now, valid, ...(valid ? { code } : {}), expiresAt, keepUntil: Math.max(expiresAt, now + 2 * cooldownMs) };
  return valid ? { result: { status: 'OK' }, attempt, matched, failedBefore: failed } : { result: invalid(failed + 1, max), attempt, failedBefore: failed };
}

/**
 * The attempts kept after a new one: those that still count, and of them only what a later check
 * reads (the newest `maxAttempts` for the rate limit, and every unexpired valid one for replays),
 * so the item stays small.
 */
export function attemptsToKeep(attempt: TotpAttempt, before: readonly TotpAttempt[], now: number, maxAttempts: number): TotpAttempt[] {
  return [attempt, ...before.filter((a) => a.keepUntil > now)].filter((a, i) => i < maxAttempts || (a.valid && a.expiresAt > now));
}
