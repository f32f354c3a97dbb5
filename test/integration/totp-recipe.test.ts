import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../local/create-table';
import { testDynamoClient } from '../support/table';
import { configFromEnv } from '../../lib/config/config';
import type { Clock, Deps } from '../../lib/recipes/deps';
import { base32Encode } from '../../lib/recipes/totp/base32';
import { importDevice } from '../../lib/recipes/totp/import-device';
import { verifyCode } from '../../lib/recipes/totp/verify-code';
import { verifyDevice } from '../../lib/recipes/totp/verify-device';
import { createDevice } from '../../lib/recipes/totp/create-device';
import { DynamoTotpStore } from '../../lib/storage/dynamo/dynamo-totp-store';
import { createDynamoContext } from '../../lib/storage/dynamo/transact';
import type { TotpStore } from '../../lib/storage/ports/totp';
import { cryptoRandom } from '../../lib/recipes/deps';
import { totpCode, wrongCode } from '../support/totp';

/**
 * The TOTP rules that hang on time (SPEC §20): the rate limit's cooldown, used codes and their
 * window, with a clock the test moves, on DynamoDB Local (no sleeping, no timed assertion).
 */
const COOLDOWN_MS = 900_000;
let client: DynamoDBClient;
let totp: DynamoTotpStore;
beforeAll(async () => {
  client = testDynamoClient();
  const tableName = `test-totp-recipe-${randomBytes(4).toString('hex')}`;
  await ensureTable(client, tableName, { stream: false });
  totp = new DynamoTotpStore(createDynamoContext(tableName, client));
});
afterAll(() => client.destroy());

/** A clock the test sets; starts at a step boundary so ±1 step is exact. */
const clockAt = (ms: number): Clock & { ms: number } => {
  const clock = { ms, now: () => clock.ms };
  return clock;
};

function depsWith(clock: Clock, store: TotpStore = totp): Pick<Deps, 'totp' | 'clock' | 'config' | 'random'> {
  return { totp: store, clock, config: configFromEnv({}, {}), random: cryptoRandom };
}

let n = 0;
async function userWithDevice(deps: ReturnType<typeof depsWith>, period = 30, skew = 1, name = 'phone'): Promise<{ userId: string; secret: string }> {
  const userId = `recipe-${++n}`;
  const secret = base32Encode(randomBytes(20));
  expect(await importDevice(deps, { userId, deviceName: name, skew, period, secretKey: secret })).toEqual({ status: 'OK', deviceName: name });
  return { userId, secret };
}

const START = 1_800_000_000_000; // a multiple of 30 s
const codeAt = (secret: string, ms: number) => totpCode(secret, 0, 30, ms);
const invalid = (current: number, max = 5) => ({ status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: current, maxNumberOfFailedAttempts: max });

describe('the rate limit, with a clock', () => {
  it('answers LIMIT_REACHED_ERROR until the cooldown after the 5th wrong code has passed, with retryAfterMs counting down; then counts restart at 1', async () => {
    const clock = clockAt(START);
    const deps = depsWith(clock);
    const { userId, secret } = await userWithDevice(deps);
    for (let i = 1; i <= 5; i++) {
      clock.ms += 1000;
      expect(await verifyCode(deps, 'public', userId, wrongCode(secret))).toEqual(invalid(i));
    }
    const lastWrong = clock.ms;
    clock.ms = lastWrong + 60_000;
    expect(await verifyCode(deps, 'public', userId, codeAt(secret, clock.ms))).toEqual({
      status: 'LIMIT_REACHED_ERROR',
      retryAfterMs: COOLDOWN_MS - 60_000,
      currentNumberOfFailedAttempts: 5,
      maxNumberOfFailedAttempts: 5,
    });
    clock.ms = lastWrong + COOLDOWN_MS - 1;
    expect(await verifyDevice(deps, 'public', userId, 'phone', '000000')).toEqual({ status: 'OK', wasAlreadyVerified: true });
    expect(await verifyCode(deps, 'public', userId, wrongCode(secret))).toEqual(expect.objectContaining({ status: 'LIMIT_REACHED_ERROR', retryAfterMs: 1 }));
    clock.ms = lastWrong + COOLDOWN_MS;
    expect(await verifyCode(deps, 'public', userId, wrongCode(secret))).toEqual(invalid(1));
    expect(await verifyCode(deps, 'public', userId, codeAt(secret, clock.ms))).toEqual({ status: 'OK' });
  });

  it('ends a run once the cooldown since its newest wrong code has passed, and never counts a wrong code a cooldown older than the newest', async () => {
    const clock = clockAt(START);
    const deps = depsWith(clock);
    const { userId, secret } = await userWithDevice(deps);
    for (const count of [1, 2, 3]) expect(await verifyCode(deps, 'public', userId, wrongCode(secret))).toEqual(invalid(count));
    clock.ms += COOLDOWN_MS + 1000;
    expect(await verifyCode(deps, 'public', userId, wrongCode(secret))).toEqual(invalid(1));
    // The three older ones are still stored (read for two cooldowns), but beyond the newest's cooldown.
    clock.ms += 1000;
    expect(await verifyCode(deps, 'public', userId, wrongCode(secret))).toEqual(invalid(2));
    expect((await totp.readCheckState(userId, 'public')).attempts?.attempts).toHaveLength(5);
  });

  it('answers INVALID_TOTP_ERROR uncounted when its attempt cannot be stored (another check keeps winning the write)', async () => {
    const clock = clockAt(START);
    const deps = depsWith(clock);
    const { userId, secret } = await userWithDevice(deps);
    expect(await verifyCode(deps, 'public', userId, wrongCode(secret))).toEqual(invalid(1));
    let reads = 0;
    const losing: TotpStore = Object.assign(Object.create(totp), {
      readCheckState: (u: string, t: string) => {
        reads++;
        return totp.readCheckState(u, t);
      },
      recordAttempts: async () => 'STALE' as const,
    });
    expect(await verifyCode(depsWith(clock, losing), 'public', userId, codeAt(secret, clock.ms))).toEqual(invalid(1));
    expect(reads).toBe(8);
    expect(await verifyCode(deps, 'public', userId, codeAt(secret, clock.ms))).toEqual({ status: 'OK' });
  });
});

describe('used codes', () => {
  it("refuses a previous step's code equal to the one used, and a code used in its whole window", async () => {
    const clock = clockAt(START + 5_000);
    const deps = depsWith(clock);
    const { userId, secret } = await userWithDevice(deps);
    const used = codeAt(secret, clock.ms);
    expect(await verifyCode(deps, 'public', userId, used)).toEqual({ status: 'OK' });
    clock.ms += 30_000;
    // Now `used` is the previous step's code, which the skew still accepts: it was used.
    expect(codeAt(secret, clock.ms - 30_000)).toBe(used);
    expect(await verifyCode(deps, 'public', userId, used)).toEqual(invalid(1));
    expect(await verifyCode(deps, 'public', userId, codeAt(secret, clock.ms))).toEqual({ status: 'OK' });
  });

  it('keeps a use for period × (2·skew + 1) of the device it matched; a wrong code for the largest window of the devices tried', async () => {
    const clock = clockAt(START);
    const deps = depsWith(clock);
    const { userId, secret } = await userWithDevice(deps, 30, 1);
    await importDevice(deps, { userId, deviceName: 'slow', skew: 2, period: 60, secretKey: base32Encode(randomBytes(20)) });
    await verifyCode(deps, 'public', userId, codeAt(secret, clock.ms));
    clock.ms += 1;
    await verifyCode(deps, 'public', userId, wrongCode(secret));
    const attempts = (await totp.readCheckState(userId, 'public')).attempts?.attempts;
    expect(attempts?.map((a) => [a.valid, a.expiresAt - a.at, a.keepUntil - a.at])).toEqual([
      [false, 300_000, 2 * COOLDOWN_MS],
      [true, 90_000, 2 * COOLDOWN_MS],
    ]);
    expect(attempts?.[1].code).toBe(codeAt(secret, START));
    expect(attempts?.[0].code).toBeUndefined();
  });

  it('verifies a device with a code the device has not used, and keeps the use: the same code on verify is a replay', async () => {
    const clock = clockAt(START);
    const deps = depsWith(clock);
    const userId = `recipe-${++n}`;
    const created = await createDevice(deps, { userId, skew: 1, period: 30 });
    if (created.status !== 'OK') throw new Error(created.status);
    const code = codeAt(created.secret, clock.ms);
    expect(await verifyDevice(deps, 'public', userId, created.deviceName, code)).toEqual({ status: 'OK', wasAlreadyVerified: false });
    expect(await verifyCode(deps, 'public', userId, code)).toEqual(invalid(1));
    clock.ms += 30_000;
    expect(await verifyCode(deps, 'public', userId, codeAt(created.secret, clock.ms))).toEqual({ status: 'OK' });
  });
});
