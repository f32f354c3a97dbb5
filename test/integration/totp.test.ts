import { randomBytes } from 'node:crypto';
import { base32Encode } from '../../lib/recipes/totp/base32';
import { startApi, type ApiResponse, type TestApi } from '../support/api';
import { linkingClient } from '../support/linking';
import { totpCode, wrongCode } from '../support/totp';

/**
 * The TOTP recipe over HTTP (SPEC §20): every status and 400 text, tenant scoping, concurrent
 * checks, and what user removal and id mapping do with TOTP data. Time-driven rules (the
 * cooldown, a previous step's code) are in `totp-recipe.test.ts`, with a clock the test moves.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startApi();
  for (const tenantId of ['totp-t1', 'totp-t2']) expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).status).toBe(200);
});
afterAll(() => api.stop());

let n = 0;
const newUserId = () => `totp-${Date.now().toString(36)}-${n++}`;
const tenantPath = (tenantId: string | undefined, path: string) => (tenantId ? `/${tenantId}${path}` : path);

const create = (body: Record<string, unknown>) => api.post('/recipe/totp/device', { skew: 1, period: 30, ...body });
const importDevice = (body: Record<string, unknown>) => api.post('/recipe/totp/device/import', { skew: 1, period: 30, ...body });
const list = (userId: string) => api.get(`/recipe/totp/device/list?userId=${encodeURIComponent(userId)}`);
const verifyDevice = (userId: string, deviceName: string, totp: string, tenantId?: string) =>
  api.post(tenantPath(tenantId, '/recipe/totp/device/verify'), { userId, deviceName, totp });
const verify = (userId: string, totp: string, tenantId?: string) => api.post(tenantPath(tenantId, '/recipe/totp/verify'), { userId, totp });

/** A user id with one verified device (imported); its secret. */
async function userWithDevice(userId = newUserId(), deviceName = 'phone'): Promise<{ userId: string; secret: string }> {
  const secret = base32Encode(randomBytes(20));
  expect((await importDevice({ userId, deviceName, secretKey: secret })).json).toEqual({ status: 'OK', deviceName });
  return { userId, secret };
}

const invalid = (current: number, max = 5) => ({ status: 'INVALID_TOTP_ERROR', currentNumberOfFailedAttempts: current, maxNumberOfFailedAttempts: max });
const json = (res: ApiResponse) => res.json;

describe('POST /recipe/totp/device (create)', () => {
  it('creates an unverified device with a 32-character base32 secret, answered only here', async () => {
    const userId = newUserId();
    const res = await create({ userId, deviceName: 'phone' });
    expect(res.json).toEqual({ status: 'OK', deviceName: 'phone', secret: expect.stringMatching(/^[A-Z2-7]{32}$/) });
    expect((await list(userId)).json).toEqual({ status: 'OK', devices: [{ name: 'phone', period: 30, skew: 1, verified: false }] });
    expect((await list(userId)).text).not.toContain(res.json.secret);
    expect(api.logs.join('\n')).not.toContain(res.json.secret);
  });

  it('names devices TOTP Device <n> from the verified ones upward, replacing an unverified one of that name', async () => {
    const userId = newUserId();
    const first = (await create({ userId })).json;
    expect(first).toEqual(expect.objectContaining({ status: 'OK', deviceName: 'TOTP Device 0' }));
    const again = (await create({ userId })).json;
    expect(again.deviceName).toBe('TOTP Device 0');
    expect(again.secret).not.toBe(first.secret);
    expect((await list(userId)).json.devices).toHaveLength(1);
    expect((await verifyDevice(userId, 'TOTP Device 0', totpCode(again.secret))).json).toEqual({ status: 'OK', wasAlreadyVerified: false });
    expect((await create({ userId })).json.deviceName).toBe('TOTP Device 1');
    // Verified: TOTP Device 0 and an imported TOTP Device 2; n starts at 2 and skips it.
    await importDevice({ userId, deviceName: 'TOTP Device 2', secretKey: 'JBSWY3DPEHPK3PXP' });
    expect((await create({ userId })).json.deviceName).toBe('TOTP Device 3');
  });

  it('replaces an unverified device of the given name, and answers DEVICE_ALREADY_EXISTS_ERROR over a verified one', async () => {
    const userId = newUserId();
    const first = (await create({ userId, deviceName: 'phone', period: 60 })).json;
    const second = (await create({ userId, deviceName: 'phone', skew: 2 })).json;
    expect(second.secret).not.toBe(first.secret);
    expect((await list(userId)).json.devices).toEqual([{ name: 'phone', period: 30, skew: 2, verified: false }]);
    await verifyDevice(userId, 'phone', totpCode(second.secret));
    expect((await create({ userId, deviceName: 'phone' })).json).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
  });

  it("takes any user id, existing or not, and accepts the SDK's rid: totp header without needing it", async () => {
    const res = await api.post('/recipe/totp/device', { userId: 'no such user', skew: 0, period: 30 }, { rid: 'totp' });
    expect(res.json.status).toBe('OK');
  });
});

describe('POST /recipe/totp/device/import', () => {
  it('imports a verified device, normalising the secret (spaces and = removed, upper-cased)', async () => {
    const userId = newUserId();
    const res = await importDevice({ userId, deviceName: 'old app', secretKey: ' jbsw y3dp ehpk 3pxp== ' });
    expect(res.json).toEqual({ status: 'OK', deviceName: 'old app' });
    expect((await list(userId)).json.devices).toEqual([{ name: 'old app', period: 30, skew: 1, verified: true }]);
    expect((await verify(userId, totpCode('JBSWY3DPEHPK3PXP'))).json).toEqual({ status: 'OK' });
  });

  it('names an unnamed import as create does, and refuses a verified name', async () => {
    const userId = newUserId();
    expect((await importDevice({ userId, secretKey: 'JBSWY3DPEHPK3PXP' })).json).toEqual({ status: 'OK', deviceName: 'TOTP Device 0' });
    expect((await importDevice({ userId, secretKey: 'JBSWY3DPEHPK3PXP' })).json).toEqual({ status: 'OK', deviceName: 'TOTP Device 1' });
    expect((await importDevice({ userId, deviceName: 'TOTP Device 1', secretKey: 'JBSWY3DPEHPK3PXP' })).json).toEqual({
      status: 'DEVICE_ALREADY_EXISTS_ERROR',
    });
  });
});

describe('PUT /recipe/totp/device (rename)', () => {
  it('renames; an unknown device is UNKNOWN_DEVICE_ERROR, a taken name DEVICE_ALREADY_EXISTS_ERROR, the same name OK', async () => {
    const { userId, secret } = await userWithDevice();
    await create({ userId, deviceName: 'tablet' });
    const rename = (existingDeviceName: string, newDeviceName: string) => api.put('/recipe/totp/device', { userId, existingDeviceName, newDeviceName });
    expect((await rename('phone', 'tablet')).json).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
    expect((await rename('nope', 'laptop')).json).toEqual({ status: 'UNKNOWN_DEVICE_ERROR' });
    expect((await rename('phone', 'phone')).json).toEqual({ status: 'OK' });
    expect((await rename('phone', 'laptop')).json).toEqual({ status: 'OK' });
    expect((await list(userId)).json.devices.map((d: { name: string; verified: boolean }) => [d.name, d.verified])).toEqual([
      ['laptop', true],
      ['tablet', false],
    ]);
    expect((await verify(userId, totpCode(secret))).json).toEqual({ status: 'OK' });
  });
});

describe('GET /recipe/totp/device/list and POST /recipe/totp/device/remove', () => {
  it('lists [] for an unknown user id, and devices oldest first', async () => {
    expect((await list('nobody-at-all')).json).toEqual({ status: 'OK', devices: [] });
    const userId = newUserId();
    for (const name of ['b', 'a', 'c']) await create({ userId, deviceName: name });
    expect((await list(userId)).json.devices.map((d: { name: string }) => d.name)).toEqual(['b', 'a', 'c']);
  });

  it('removes a device (didDeviceExist), and with the last one every TOTP datum of the user id', async () => {
    const { userId, secret } = await userWithDevice();
    await create({ userId, deviceName: 'tablet' });
    const remove = (deviceName: string) => api.post('/recipe/totp/device/remove', { userId, deviceName });
    expect((await remove('nope')).json).toEqual({ status: 'OK', didDeviceExist: false });
    expect((await remove('tablet')).json).toEqual({ status: 'OK', didDeviceExist: true });
    expect((await verify(userId, wrongCode(secret))).json).toEqual(invalid(1));
    expect((await remove('phone')).json).toEqual({ status: 'OK', didDeviceExist: true });
    expect((await list(userId)).json).toEqual({ status: 'OK', devices: [] });
    expect((await verify(userId, totpCode(secret))).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    // The attempts went with it: a new device starts a new run.
    const again = await userWithDevice(userId);
    expect((await verify(userId, wrongCode(again.secret))).json).toEqual(invalid(1));
  });
});

describe('POST [/<t>]/recipe/totp/device/verify', () => {
  it('verifies a device with its own code once; then OK without looking at the code', async () => {
    const userId = newUserId();
    const { secret } = (await create({ userId, deviceName: 'phone' })).json;
    expect((await verifyDevice(userId, 'phone', wrongCode(secret))).json).toEqual(invalid(1));
    expect((await verifyDevice(userId, 'phone', totpCode(secret))).json).toEqual({ status: 'OK', wasAlreadyVerified: false });
    expect((await list(userId)).json.devices[0].verified).toBe(true);
    expect((await verifyDevice(userId, 'phone', 'anything')).json).toEqual({ status: 'OK', wasAlreadyVerified: true });
  });

  it('checks the code against that device only', async () => {
    const { userId, secret } = await userWithDevice();
    await create({ userId, deviceName: 'tablet' });
    expect((await verifyDevice(userId, 'tablet', totpCode(secret))).json).toEqual(invalid(1));
  });

  it('answers UNKNOWN_DEVICE_ERROR for a user id without devices and for an unknown name', async () => {
    expect((await verifyDevice(newUserId(), 'phone', '123456')).json).toEqual({ status: 'UNKNOWN_DEVICE_ERROR' });
    const { userId } = await userWithDevice();
    expect((await verifyDevice(userId, 'tablet', '123456')).json).toEqual({ status: 'UNKNOWN_DEVICE_ERROR' });
  });
});

describe('POST [/<t>]/recipe/totp/verify', () => {
  it('accepts a code of a verified device once; the same code again is INVALID_TOTP_ERROR', async () => {
    const { userId, secret } = await userWithDevice();
    const code = totpCode(secret);
    expect((await verify(userId, code)).json).toEqual({ status: 'OK' });
    expect((await verify(userId, code)).json).toEqual(invalid(1));
  });

  it('tries verified devices only, and answers UNKNOWN_USER_ID_ERROR for a user id with none', async () => {
    expect((await verify(newUserId(), '123456')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const userId = newUserId();
    const { secret } = (await create({ userId, deviceName: 'phone' })).json;
    expect((await verify(userId, totpCode(secret))).json).toEqual(invalid(1));
  });

  it('counts wrong codes 1 … 5 of 5, then LIMIT_REACHED_ERROR, a right code too; a code over 8 characters counts without being computed', async () => {
    const { userId, secret } = await userWithDevice();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(json(await verify(userId, wrongCode(secret))));
    answers.push(json(await verify(userId, '123456789')));
    expect(answers).toEqual([invalid(1), invalid(2), invalid(3), invalid(4), invalid(5)]);
    // Not stored: the next wrong code is the fifth again.
    expect((await verify(userId, wrongCode(secret))).json).toEqual(invalid(5));
    for (const code of [wrongCode(secret), totpCode(secret)]) {
      const limited = (await verify(userId, code)).json;
      expect(limited).toEqual({
        status: 'LIMIT_REACHED_ERROR',
        retryAfterMs: expect.any(Number),
        currentNumberOfFailedAttempts: 5,
        maxNumberOfFailedAttempts: 5,
      });
      expect(limited.retryAfterMs).toBeGreaterThan(0);
      expect(limited.retryAfterMs).toBeLessThanOrEqual(900_000);
    }
  });

  it('ends a run of wrong codes with a right one: counts start again at 1', async () => {
    const { userId, secret } = await userWithDevice();
    for (const count of [1, 2, 3]) expect((await verify(userId, wrongCode(secret))).json).toEqual(invalid(count));
    expect((await verify(userId, totpCode(secret))).json).toEqual({ status: 'OK' });
    expect((await verify(userId, wrongCode(secret))).json).toEqual(invalid(1));
  });

  it('counts verify-device and verify in one run', async () => {
    const { userId, secret } = await userWithDevice();
    const { secret: unverified } = (await create({ userId, deviceName: 'tablet' })).json;
    expect((await verifyDevice(userId, 'tablet', wrongCode(unverified))).json).toEqual(invalid(1));
    expect((await verify(userId, wrongCode(secret))).json).toEqual(invalid(2));
  });
});

describe('tenants', () => {
  it('keeps the rate limit and used codes per tenant', async () => {
    const { userId, secret } = await userWithDevice();
    for (let i = 1; i <= 5; i++) expect((await verify(userId, wrongCode(secret), 'totp-t1')).json).toEqual(invalid(i));
    expect((await verify(userId, totpCode(secret), 'totp-t1')).json.status).toBe('LIMIT_REACHED_ERROR');
    const code = totpCode(secret);
    expect((await verify(userId, code)).json).toEqual({ status: 'OK' });
    expect((await verify(userId, code, 'totp-t2')).json).toEqual({ status: 'OK' });
    expect((await verify(userId, code, 'totp-t2')).json).toEqual(invalid(1));
    expect((await verify(userId, wrongCode(secret))).json).toEqual(invalid(1));
  });

  it('refuses a tenant on the app-wide calls (403) and an unknown tenant on the tenant calls (400)', async () => {
    const app = 'Only public tenantId can call this app specific API';
    const { userId } = await userWithDevice();
    const calls: [string, string, unknown][] = [
      ['POST', '/totp-t1/recipe/totp/device', { userId, skew: 1, period: 30 }],
      ['PUT', '/totp-t1/recipe/totp/device', { userId, existingDeviceName: 'phone', newDeviceName: 'x' }],
      ['GET', `/totp-t1/recipe/totp/device/list?userId=${userId}`, undefined],
      ['POST', '/totp-t1/recipe/totp/device/remove', { userId, deviceName: 'phone' }],
      ['POST', '/totp-t1/recipe/totp/device/import', { userId, skew: 1, period: 30, secretKey: 'JBSWY3DPEHPK3PXP' }],
    ];
    for (const [method, path, body] of calls) {
      const res = await api.request(method, path, { body });
      expect([path, res.status, res.text]).toEqual([path, 403, app]);
    }
    expect((await list(userId)).json.devices).toHaveLength(1);
    for (const res of [await verify(userId, '123456', 'no-such-tenant'), await verifyDevice(userId, 'phone', '123456', 'no-such-tenant')]) {
      expect([res.status, res.text]).toEqual([400, 'AppId or tenantId not found']);
    }
    expect((await verify(userId, wrongCode((await userWithDevice()).secret))).status).toBe(200);
  });
});

describe('concurrent checks of one user', () => {
  it('accept one of ten racing uses of one code; the others are replays, counted one after another', async () => {
    const { userId, secret } = await userWithDevice();
    const code = totpCode(secret);
    const answers = (await Promise.all(Array.from({ length: 10 }, () => verify(userId, code)))).map(json);
    expect(answers.filter((a) => a.status === 'OK')).toHaveLength(1);
    const counts = answers.filter((a) => a.status === 'INVALID_TOTP_ERROR').map((a) => a.currentNumberOfFailedAttempts);
    expect(counts.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(answers.filter((a) => a.status === 'LIMIT_REACHED_ERROR')).toHaveLength(4);
  });

  it('count seven racing wrong codes one after another: 1 … 5, then the limit', async () => {
    const { userId, secret } = await userWithDevice();
    const answers = (await Promise.all(Array.from({ length: 7 }, () => verify(userId, wrongCode(secret))))).map(json);
    const counts = answers.filter((a) => a.status === 'INVALID_TOTP_ERROR').map((a) => a.currentNumberOfFailedAttempts);
    expect(counts.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(answers.filter((a) => a.status === 'LIMIT_REACHED_ERROR')).toHaveLength(2);
  });
});

describe('bad requests: 400 with the text naming the field', () => {
  const long = 'x'.repeat(257);
  const cases: [string, string, Record<string, unknown>, string][] = [
    ['POST', '/recipe/totp/device', {}, "Field name 'userId' is invalid in JSON input"],
    ['POST', '/recipe/totp/device', { userId: 7, skew: 1, period: 30 }, "Field name 'userId' is invalid in JSON input"],
    ['POST', '/recipe/totp/device', { userId: 'u', deviceName: null, skew: 1, period: 30 }, "Field name 'deviceName' is invalid in JSON input"],
    ['POST', '/recipe/totp/device', { userId: 'u', skew: '1', period: 30 }, "Field name 'skew' is invalid in JSON input"],
    ['POST', '/recipe/totp/device', { userId: 'u', skew: 1.5, period: 30 }, "Field name 'skew' is invalid in JSON input"],
    ['POST', '/recipe/totp/device', { userId: 'u', skew: 1 }, "Field name 'period' is invalid in JSON input"],
    ['POST', '/recipe/totp/device', { userId: 'u', skew: 1, period: 2 ** 31 }, "Field name 'period' is invalid in JSON input"],
    ['POST', '/recipe/totp/device', { userId: '', skew: -1, period: 0 }, 'userId cannot be empty'],
    ['POST', '/recipe/totp/device', { userId: 'u', deviceName: '', skew: -1, period: 0 }, 'deviceName cannot be empty'],
    ['POST', '/recipe/totp/device', { userId: 'u', skew: -1, period: 0 }, 'skew must be >= 0'],
    ['POST', '/recipe/totp/device', { userId: 'u', skew: 1, period: 0 }, 'period must be > 0'],
    ['POST', '/recipe/totp/device', { userId: 'u', skew: 101, period: 30 }, 'skew must be <= 100'],
    [
      'POST',
      '/recipe/totp/device',
      { userId: 'u', deviceName: long, skew: 1, period: 30 },
      "Field name 'deviceName' is too long: the maximum is 256 characters",
    ],
    ['POST', '/recipe/totp/device', { userId: 'u'.repeat(129), skew: 1, period: 30 }, "Field name 'userId' is too long: the maximum is 128 characters"],
    ['POST', '/recipe/totp/device/import', { userId: 'u', skew: 1, period: 30 }, "Field name 'secretKey' is invalid in JSON input"],
    ['POST', '/recipe/totp/device/import', { userId: 'u', skew: 1, period: 30, secretKey: '' }, 'secretKey cannot be empty'],
    ['POST', '/recipe/totp/device/import', { userId: 'u', skew: 1, period: -30, secretKey: '' }, 'secretKey cannot be empty'],
    ['POST', '/recipe/totp/device/import', { userId: 'u', skew: 1, period: 30, secretKey: 'JBSWY3DP-HPK3PXP' }, 'secretKey is not valid base32'],
    ['POST', '/recipe/totp/device/import', { userId: 'u', skew: 1, period: 30, secretKey: '====' }, 'secretKey is not valid base32'],
    [
      'POST',
      '/recipe/totp/device/import',
      { userId: 'u', skew: 1, period: 30, secretKey: 'A'.repeat(257) },
      "Field name 'secretKey' is too long: the maximum is 256 characters",
    ],
    ['PUT', '/recipe/totp/device', { userId: 'u', existingDeviceName: 'a' }, "Field name 'newDeviceName' is invalid in JSON input"],
    ['PUT', '/recipe/totp/device', { userId: '', existingDeviceName: '', newDeviceName: '' }, 'userId cannot be empty'],
    ['PUT', '/recipe/totp/device', { userId: 'u', existingDeviceName: '', newDeviceName: '' }, 'existingDeviceName cannot be empty'],
    ['PUT', '/recipe/totp/device', { userId: 'u', existingDeviceName: 'a', newDeviceName: '' }, 'newDeviceName cannot be empty'],
    [
      'PUT',
      '/recipe/totp/device',
      { userId: 'u', existingDeviceName: 'a', newDeviceName: long },
      "Field name 'newDeviceName' is too long: the maximum is 256 characters",
    ],
    ['POST', '/recipe/totp/device/remove', { userId: 'u' }, "Field name 'deviceName' is invalid in JSON input"],
    ['POST', '/recipe/totp/device/remove', { userId: 'u', deviceName: '' }, 'deviceName cannot be empty'],
    ['POST', '/recipe/totp/device/verify', { userId: 'u', deviceName: 'd', totp: 123456 }, "Field name 'totp' is invalid in JSON input"],
    ['POST', '/recipe/totp/device/verify', { userId: 'u', deviceName: '', totp: '123456' }, 'deviceName cannot be empty'],
    ['POST', '/recipe/totp/verify', { userId: 'u' }, "Field name 'totp' is invalid in JSON input"],
    ['POST', '/recipe/totp/verify', { userId: '', totp: '123456' }, 'userId cannot be empty'],
  ];
  it.each(cases)('%s %s %j → %s', async (method, path, body, text) => {
    const res = await api.request(method, path, { body });
    expect([res.status, res.text]).toEqual([400, text]);
  });

  it('answers the query texts of the list, and Invalid Json Input for a body that is no JSON object', async () => {
    expect((await api.get('/recipe/totp/device/list')).text).toBe("Field name 'userId' is missing in GET request");
    expect((await api.get('/recipe/totp/device/list?userId=')).text).toBe('userId cannot be empty');
    const res = await api.request('POST', '/recipe/totp/verify', { rawBody: '[1]', headers: { 'content-type': 'application/json' } });
    expect([res.status, res.text]).toEqual([400, 'Invalid Json Input']);
  });
});

describe('users and their ids', () => {
  const people = () => linkingClient(api);

  it('POST /user/remove removes the TOTP data kept under its id and its external id', async () => {
    const c = people();
    const id = await c.emailPassword();
    const externalId = `ext-${newUserId()}`;
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: externalId })).json.status).toBe('OK');
    await userWithDevice(id);
    const { secret } = await userWithDevice(externalId);
    await verify(externalId, wrongCode(secret));
    const bystander = await userWithDevice();
    expect((await c.remove(externalId)).json).toEqual({ status: 'OK', didUserExist: true });
    expect([(await list(id)).json.devices, (await list(externalId)).json.devices]).toEqual([[], []]);
    expect((await verify(externalId, totpCode(secret))).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await list(bystander.userId)).json.devices).toHaveLength(1);
  });

  it("with removeAllLinkedAccounts the primary user's TOTP data goes too; without, only the login method's", async () => {
    const c = people();
    const [primary, linked, other] = [await c.emailPassword(), await c.emailPassword(), await c.emailPassword()];
    await c.group(primary, linked, other);
    for (const id of [primary, linked, other]) await userWithDevice(id);
    expect((await c.remove(other, false)).json.status).toBe('OK');
    expect([(await list(primary)).json.devices.length, (await list(other)).json.devices.length]).toEqual([1, 0]);
    expect((await c.remove(linked, true)).json.status).toBe('OK');
    expect([(await list(primary)).json.devices.length, (await list(linked)).json.devices.length]).toEqual([0, 0]);
  });

  it('refuses to map a SuperTokens user id that has TOTP data, unless forced; and to unmap an external id that has some', async () => {
    const c = people();
    const id = await c.emailPassword();
    await userWithDevice(id);
    const map = (force?: boolean) => api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: `ext-${id}`, ...(force ? { force } : {}) });
    const refused = await map();
    expect([refused.status, refused.text]).toEqual([400, 'UserId is already in use in TOTP recipe']);
    expect((await map(true)).json).toEqual({ status: 'OK' });

    await userWithDevice(`ext-${id}`);
    const unmap = (force?: boolean) => api.post('/recipe/userid/map/remove', { userId: `ext-${id}`, ...(force ? { force } : {}) });
    const kept = await unmap();
    expect([kept.status, kept.text]).toEqual([400, 'UserId is already in use in TOTP recipe']);
    expect((await unmap(true)).json).toEqual({ status: 'OK', didMappingExist: true });
    expect((await list(`ext-${id}`)).json.devices).toHaveLength(1);
  });
});
