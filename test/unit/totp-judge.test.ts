import { attemptsToKeep, judgeAttempt } from '../../lib/recipes/totp/judge-attempt';
import type { TotpAttempt, TotpDevice } from '../../lib/storage/ports/totp';

/** The pure parts of a code check: what is kept, and what is never computed. */
const wrong = (at: number): TotpAttempt => ({ at, valid: false, expiresAt: at + 90_000, keepUntil: at + 1_800_000 });
const used = (at: number, code: string, window = 90_000): TotpAttempt => ({ at, valid: true, code, expiresAt: at + window, keepUntil: at + 1_800_000 });
const limit = { maxAttempts: 5, cooldownMs: 900_000 };

describe('attemptsToKeep', () => {
  it('keeps the newest maxAttempts, and beyond them only unexpired valid ones', () => {
    const before = [wrong(6), used(5, '111111', 1_000_000), wrong(4), wrong(3), used(2, '222222'), wrong(1)];
    const kept = attemptsToKeep(wrong(200_000), before, 200_000, 3);
    expect(kept.map((a) => a.at)).toEqual([200_000, 6, 5]);
    expect(attemptsToKeep(wrong(200_000), before, 200_000, 2).map((a) => a.at)).toEqual([200_000, 6, 5]);
  });

  it('drops what counts for nothing any more', () => {
    expect(attemptsToKeep(wrong(2_000_000), [wrong(100_000), wrong(300_000)], 2_000_000, 5).map((a) => a.at)).toEqual([2_000_000, 300_000]);
  });
});

describe('judgeAttempt', () => {
  const device: TotpDevice = { name: 'd', secret: 'NOT*BASE32', period: 30, skew: 1, verified: true, createdAt: 0 };

  it('never computes a code over 8 characters, nor while the limit holds', () => {
    // A damaged secret would throw if it were used.
    expect(judgeAttempt([], [device], '123456789', 0, limit)).toEqual({
      result: expect.objectContaining({ currentNumberOfFailedAttempts: 1 }),
      failedBefore: 0,
    });
    const run = [5, 4, 3, 2, 1].map((s) => wrong(s * 1000));
    expect(judgeAttempt(run, [device], '123456', 10_000, limit).result).toEqual({
      status: 'LIMIT_REACHED_ERROR',
      retryAfterMs: 895_000,
      currentNumberOfFailedAttempts: 5,
      maxNumberOfFailedAttempts: 5,
    });
    expect(() => judgeAttempt([], [device], '123456', 0, limit)).toThrow('A stored TOTP secret is not base32');
  });

  it('stops a run at the first valid attempt', () => {
    const attempts = [wrong(5000), wrong(4000), used(3000, '999999'), wrong(2000), wrong(1000)];
    expect(judgeAttempt(attempts, [], '123456', 6000, limit).result).toEqual(expect.objectContaining({ currentNumberOfFailedAttempts: 3 }));
  });
});
