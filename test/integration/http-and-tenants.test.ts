import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { passwordlessSignIn, uniqueEmail } from '../support/flows';
import { pastTenantCache } from '../support/tenant-cache';

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ API_KEYS: `${TEST_API_KEY},second-key-abcdefghijklmnop` });
});
afterAll(() => api.stop());

describe('transport and authentication', () => {
  it('answers GET /hello without a key', async () => {
    const res = await api.request('GET', '/hello', { apiKey: null });
    expect(res.status).toBe(200);
    expect(res.text).toBe('Hello');
  });

  it('lists the CDI versions at GET /apiversion', async () => {
    const res = await api.get('/apiversion');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.json).toEqual({ versions: ['5.0', '5.1', '5.2', '5.3', '5.4'] });
  });

  it.each([
    ['no key', {}],
    ['a wrong key', { 'api-key': 'wrong-key-0123456789-abcdefgh' }],
    ['a prefix of the key', { 'api-key': TEST_API_KEY.slice(0, -1) }],
    ['a wrong bearer token', { authorization: 'Bearer nope-nope-nope-nope-nope' }],
  ])('answers 401 Invalid API key with %s', async (_label, headers) => {
    const res = await api.request('GET', '/apiversion', { headers, apiKey: null });
    expect(res.status).toBe(401);
    expect(res.text).toBe('Invalid API key');
  });

  it('accepts every configured key (rotation) and the Authorization: Bearer fallback', async () => {
    expect((await api.request('GET', '/apiversion', { apiKey: 'second-key-abcdefghijklmnop' })).status).toBe(200);
    const bearer = await api.request('GET', '/apiversion', { apiKey: null, headers: { authorization: `Bearer ${TEST_API_KEY}` } });
    expect(bearer.status).toBe(200);
  });

  it('answers 404 Not found for an unknown path, without checking the key', async () => {
    const res = await api.request('GET', '/recipe/nothing-here', { apiKey: null });
    expect(res.status).toBe(404);
    expect(res.text).toBe('Not found');
  });

  it('answers 405 for a known path with the wrong method', async () => {
    const res = await api.request('DELETE', '/recipe/signinup/code');
    expect(res.status).toBe(405);
    expect(res.text).toBe('Method not supported');
  });

  it('matches paths case-insensitively and with a trailing slash', async () => {
    expect((await api.get('/APIVersion/')).json.versions).toHaveLength(5);
    const code = await api.post('/Recipe/SignInUp/Code/', { email: uniqueEmail() });
    expect(code.json.status).toBe('OK');
  });

  it.each([
    ['an empty body', ''],
    ['broken JSON', '{"email":'],
    ['a JSON array', '[]'],
    ['a JSON string', '"x"'],
    ['JSON null', 'null'],
  ])('answers 400 Invalid Json Input for %s', async (_label, rawBody) => {
    const res = await api.request('POST', '/recipe/signinup/code', { rawBody, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.text).toBe('Invalid Json Input');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const res = await api.request('POST', '/recipe/signinup/code', {
      rawBody: JSON.stringify({ email: 'a@b.c', pad: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
  });

  it('answers 431 in plain text for a URL over the 16 KB header limit', async () => {
    const res = await api.get(`/users/by-accountinfo?email=${'a'.repeat(20_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('Request headers or URL are too large');
  });

  it('accepts cdi-version 5.0 to 5.4 and refuses others', async () => {
    expect((await api.get('/apiversion', { 'cdi-version': '5.4' })).status).toBe(200);
    expect((await api.get('/apiversion', { 'cdi-version': '5.0' })).status).toBe(200);
    const res = await api.get('/apiversion', { 'cdi-version': '2.21' });
    expect(res.status).toBe(400);
    expect(res.text).toBe('cdi-version 2.21 not supported');
  });

  it('ignores unknown fields', async () => {
    const res = await api.post('/recipe/signinup/code', { email: uniqueEmail(), surprise: { nested: [1, 2] } });
    expect(res.json.status).toBe('OK');
  });

  it('writes JSON log lines with the request id and no secrets', async () => {
    const res = await api.post('/recipe/signinup/code', { email: uniqueEmail('logged') });
    const requestId = res.headers.get('x-request-id');
    const line = await api.logLine((l) => l.includes(requestId as string));
    expect(line).toBeDefined();
    expect(JSON.parse(line as string)).toMatchObject({ level: 'info', requestId, route: 'passwordless-create-code', statusCode: 200 });
    const all = api.logs.join('\n');
    for (const secret of [res.json.linkCode, res.json.deviceId, TEST_API_KEY]) expect(all).not.toContain(secret);
  });
});

describe('tenants', () => {
  it('creates, lists and removes a tenant', async () => {
    const created = await api.put('/recipe/multitenancy/tenant/v2', { tenantId: ' Shop-1 ' });
    expect(created.json).toEqual({ status: 'OK', createdNew: true });
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'shop-1' })).json).toEqual({ status: 'OK', createdNew: false });
    const list = await api.get('/recipe/multitenancy/tenant/list/v2');
    expect(list.json.status).toBe('OK');
    expect(list.json.tenants).toEqual(
      expect.arrayContaining([
        { tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {} },
        { tenantId: 'shop-1', thirdParty: { providers: [] }, coreConfig: {} },
      ]),
    );
    expect((await api.post('/shop-1/recipe/signinup/code', { email: uniqueEmail() })).json.status).toBe('OK');

    expect((await api.post('/recipe/multitenancy/tenant/remove', { tenantId: 'shop-1' })).json).toEqual({ status: 'OK', didExist: true });
    expect((await api.post('/recipe/multitenancy/tenant/remove', { tenantId: 'shop-1' })).json).toEqual({ status: 'OK', didExist: false });
    const after = await api.post('/shop-1/recipe/signinup/code', { email: uniqueEmail() });
    expect(after.status).toBe(400);
    expect(after.text).toBe('AppId or tenantId not found');
  });

  it('keeps the same email in two tenants as two users', async () => {
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'north' });
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'south' });
    const email = uniqueEmail('two-tenants');
    const north = await passwordlessSignIn(api, { email }, 'north');
    const south = await passwordlessSignIn(api, { email }, 'south');
    const publicUser = await passwordlessSignIn(api, { email });
    expect(new Set([north.user.id, south.user.id, publicUser.user.id]).size).toBe(3);
    expect(north.user.tenantIds).toEqual(['north']);
    const appPath = await api.post('/appid-public/north/recipe/signinup/code', { email });
    expect(appPath.json.status).toBe('OK');
    const byInfo = await api.get(`/north/users/by-accountinfo?email=${encodeURIComponent(email)}`);
    expect(byInfo.json.users.map((u: { id: string }) => u.id)).toEqual([north.user.id]);
  });

  it('answers 400 AppId or tenantId not found for an unknown tenant or app', async () => {
    for (const path of ['/ghost/recipe/signinup/code', '/appid-other/recipe/signinup/code', '/appid-public/ghost/recipe/signinup/code']) {
      const res = await api.post(path, { email: 'a@b.c' });
      expect([path, res.status, res.text]).toEqual([path, 400, 'AppId or tenantId not found']);
    }
  });

  it('answers an unknown tenant before a bad field, also one the handler finds before any read, and goes on serving', async () => {
    // The tenant is read beside the request: a handler that throws while reading its input must
    // still wait for that read (it once left the read's rejection unhandled, which ended the server).
    for (const [path, body] of [
      ['/ghost/recipe/signinup/code', {}],
      ['/ghost/recipe/signin', { email: 'a@b.c' }],
      ['/ghost/recipe/signinup/code/consume', { preAuthSessionId: 1 }],
    ] as const) {
      const res = await api.post(path, body);
      expect([path, res.status, res.text]).toEqual([path, 400, 'AppId or tenantId not found']);
    }
    const bad = await api.post('/recipe/signinup/code', {});
    expect(bad.status).toBe(400);
    expect(bad.text).not.toBe('AppId or tenantId not found');
  });

  it('refuses a tenant segment on app-wide endpoints with 403', async () => {
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'west' });
    for (const [method, path] of [
      ['GET', '/west/hello'],
      ['GET', '/west/user/id?userId=x'],
      ['PUT', '/west/recipe/user'],
      ['GET', '/west/apiversion'],
      ['GET', '/west/recipe/multitenancy/tenant/list/v2'],
    ]) {
      const res = await api.request(method, path, { body: method === 'PUT' ? { userId: 'x', email: 'a@b.c' } : undefined });
      expect([path, res.status, res.text]).toEqual([path, 403, 'Only public tenantId can call this app specific API']);
    }
    expect((await api.get('/public/apiversion')).status).toBe(200);
  });

  it.each([[{ tenantId: 'Bad Id!' }], [{ tenantId: 'recipe' }], [{ tenantId: 'appid-x' }], [{ tenantId: '' }]])(
    'refuses an invalid tenant id %j with a 400',
    async (body) => {
      const res = await api.put('/recipe/multitenancy/tenant/v2', body);
      expect(res.status).toBe(400);
      expect(res.text).toMatch(/^Field name 'tenantId' is invalid/);
    },
  );

  it('refuses to remove the public tenant', async () => {
    const res = await api.post('/recipe/multitenancy/tenant/remove', { tenantId: 'public' });
    expect(res.status).toBe(400);
    expect(res.text).toBe("Field name 'tenantId' is invalid: the public tenant cannot be removed");
  });
});

describe("a tenant's login configuration (GET /recipe/multitenancy/tenant/v2, SPEC §18b)", () => {
  const PATH = '/recipe/multitenancy/tenant/v2';
  const bare = (tenantId: string) => ({ status: 'OK', tenantId, thirdParty: { providers: [] }, coreConfig: {} });

  it('answers the public tenant as the core does, without factors (the SDK then allows every first factor)', async () => {
    for (const path of [PATH, `/public${PATH}`, `/appid-public/public${PATH}`]) {
      const res = await api.get(path);
      expect([path, res.status, res.json]).toEqual([path, 200, bare('public')]);
    }
  });

  it('answers a tenant made with its id alone, in each tenant form, and an unknown one with TENANT_NOT_FOUND_ERROR (200)', async () => {
    expect((await api.put(PATH, { tenantId: 'cfg-plain' })).json).toEqual({ status: 'OK', createdNew: true });
    for (const path of [`/cfg-plain${PATH}`, `/appid-public/cfg-plain${PATH}`]) expect((await api.get(path)).json).toEqual(bare('cfg-plain'));
    const unknown = await api.get(`/cfg-nobody${PATH}`);
    expect([unknown.status, unknown.json]).toEqual([200, { status: 'TENANT_NOT_FOUND_ERROR' }]);
  });

  it('keeps the factors a PUT sets, in order; null clears one, absent leaves it', async () => {
    const set = await api.put(PATH, {
      tenantId: 'cfg-factors',
      firstFactors: ['otp-email', 'emailpassword'],
      requiredSecondaryFactors: ['totp'],
      coreConfig: {},
    });
    expect(set.json).toEqual({ status: 'OK', createdNew: true });
    // The list reads the tenants each time; a GET's function keeps its read up to 5 s (its own cache).
    const listed = async () => ({
      status: 'OK',
      ...((await api.get('/recipe/multitenancy/tenant/list/v2')).json.tenants as { tenantId: string }[]).find((t) => t.tenantId === 'cfg-factors'),
    });
    expect(await listed()).toEqual({ ...bare('cfg-factors'), firstFactors: ['otp-email', 'emailpassword'], requiredSecondaryFactors: ['totp'] });
    expect((await api.put(PATH, { tenantId: 'cfg-factors', firstFactors: null })).json).toEqual({ status: 'OK', createdNew: false });
    expect(await listed()).toEqual({ ...bare('cfg-factors'), requiredSecondaryFactors: ['totp'] });
    expect((await api.put(PATH, { tenantId: 'cfg-factors', firstFactors: [] })).json.status).toBe('OK');
    const last = { ...bare('cfg-factors'), firstFactors: [], requiredSecondaryFactors: ['totp'] };
    expect(await listed()).toEqual(last);
    // The GET's function reads the tenant for the first time now: what is stored.
    expect((await api.get(`/cfg-factors${PATH}`)).json).toEqual(last);
    // Users of the tenant are not touched by its configuration.
    expect((await api.post('/cfg-factors/recipe/signup', { email: uniqueEmail('cfg'), password: 'pw-123456' })).json.status).toBe('OK');
  });

  it('lists every tenant, public first, each exactly as its GET answers it (the core; the dashboard reads it)', async () => {
    expect((await api.put(PATH, { tenantId: 'cfg-list', firstFactors: ['thirdparty'], requiredSecondaryFactors: ['otp-phone'] })).json.status).toBe('OK');
    const list = await api.get('/recipe/multitenancy/tenant/list/v2');
    expect([list.status, Object.keys(list.json).sort()]).toEqual([200, ['status', 'tenants']]);
    const tenants = list.json.tenants as { tenantId: string }[];
    expect(tenants[0]).toEqual({ tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {} });
    expect(tenants.find((t) => t.tenantId === 'cfg-list')).toEqual({
      tenantId: 'cfg-list',
      thirdParty: { providers: [] },
      coreConfig: {},
      firstFactors: ['thirdparty'],
      requiredSecondaryFactors: ['otp-phone'],
    });
    for (const tenant of tenants) {
      const path = tenant.tenantId === 'public' ? PATH : `/${tenant.tenantId}${PATH}`;
      expect((await api.get(path)).json).toEqual({ status: 'OK', ...tenant });
    }
  });

  it('makes one tenant of six PUTs racing to create it: exactly one answers createdNew', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => api.put(PATH, { tenantId: 'cfg-race', firstFactors: ['emailpassword'] })));
    expect(answers.map((a) => a.json.createdNew).filter(Boolean)).toEqual([true]);
    expect((await api.get(`/cfg-race${PATH}`)).json.firstFactors).toEqual(['emailpassword']);
  });

  const INVALID_FACTORS = 'give null or an array of at most 20 factor names of 1 to 64 characters';
  const BAD_INPUTS: [Record<string, unknown>, string][] = [
    [{ firstFactors: 'emailpassword' }, `Field name 'firstFactors' is invalid: ${INVALID_FACTORS}`],
    [{ firstFactors: [''] }, `Field name 'firstFactors' is invalid: ${INVALID_FACTORS}`],
    [{ firstFactors: ['x'.repeat(65)] }, `Field name 'firstFactors' is invalid: ${INVALID_FACTORS}`],
    [{ firstFactors: Array.from({ length: 21 }, (_, i) => `f${i}`) }, `Field name 'firstFactors' is invalid: ${INVALID_FACTORS}`],
    [{ requiredSecondaryFactors: [7] }, `Field name 'requiredSecondaryFactors' is invalid: ${INVALID_FACTORS}`],
    [{ requiredSecondaryFactors: {} }, `Field name 'requiredSecondaryFactors' is invalid: ${INVALID_FACTORS}`],
    [{ coreConfig: { password_hashing_alg: 'ARGON2' } }, 'coreConfig is not supported; configure the deployment instead'],
    [{ coreConfig: ['x'] }, "Field name 'coreConfig' is invalid in JSON input"],
    // The core's own checks and texts (BaseCreateOrUpdate).
    [{ firstFactors: ['emailpassword', 'emailpassword'] }, 'firstFactors input should not contain duplicate values'],
    [{ requiredSecondaryFactors: ['totp', 'otp-phone', 'totp'] }, 'requiredSecondaryFactors input should not contain duplicate values'],
    [{ firstFactors: ['email password'] }, 'firstFactors should contain only 0-9,a-z,A-Z,_,.,- characters'],
    [{ requiredSecondaryFactors: ['totp', 'otp/phone'] }, 'requiredSecondaryFactors should contain only 0-9,a-z,A-Z,_,.,- characters'],
    [{ emailPasswordEnabled: true }, 'emailPasswordEnabled is not a valid input for this API'],
    [{ thirdPartyEnabled: false }, 'thirdParty is not a valid input for this API'],
    [{ passwordlessEnabled: true, firstFactors: ['otp-email'] }, 'passwordless is not a valid input for this API'],
  ];

  it.each(BAD_INPUTS)('refuses %j with a 400 naming the field, and changes nothing', async (body, text) => {
    const res = await api.put(PATH, { tenantId: 'cfg-bad', ...body });
    expect([res.status, res.text]).toEqual([400, text]);
    expect((await api.get(`/cfg-bad${PATH}`)).json).toEqual({ status: 'TENANT_NOT_FOUND_ERROR' });
  });

  /** The public tenant as the list answers it (the list reads the tenants each time: no cache). */
  const listedPublic = async () => {
    const tenants = (await api.get('/recipe/multitenancy/tenant/list/v2')).json.tenants as { tenantId: string }[];
    // First, and once: its stored item is not listed again among the others.
    expect([tenants[0].tenantId, tenants.filter((t) => t.tenantId === 'public').length]).toEqual(['public', 1]);
    return { status: 'OK', ...tenants[0] };
  };

  it.each(BAD_INPUTS)('refuses %j for the public tenant too, with the same 400, and changes nothing', async (body, text) => {
    expect((await api.put(PATH, { tenantId: 'public', requiredSecondaryFactors: ['totp'] })).json).toEqual({ status: 'OK', createdNew: false });
    const res = await api.put(PATH, { tenantId: 'public', ...body });
    expect([res.status, res.text]).toEqual([400, text]);
    expect(await listedPublic()).toEqual({ ...bare('public'), requiredSecondaryFactors: ['totp'] });
    expect((await api.put(PATH, { tenantId: 'public', requiredSecondaryFactors: null })).json.status).toBe('OK');
  });

  it("stores the public tenant's factors as any tenant's (SPEC §20): createdNew false, null clears, absent leaves, listed first, its GET answers them within 5 s", async () => {
    const since = Date.now();
    const set = await api.put(PATH, { tenantId: 'public', firstFactors: ['emailpassword', 'otp-email'], requiredSecondaryFactors: ['totp'] });
    expect(set.json).toEqual({ status: 'OK', createdNew: false });
    const both = { ...bare('public'), firstFactors: ['emailpassword', 'otp-email'], requiredSecondaryFactors: ['totp'] };
    expect(await listedPublic()).toEqual(both);
    // Bounds as any tenant's: 20 names of 64 characters.
    const most = Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(64, 'f'));
    expect((await api.put(PATH, { tenantId: 'public', firstFactors: most })).json).toEqual({ status: 'OK', createdNew: false });
    expect(await listedPublic()).toEqual({ ...both, firstFactors: most });
    expect((await api.put(PATH, { tenantId: 'public', firstFactors: ['emailpassword', 'otp-email'] })).json.status).toBe('OK');
    // Absent leaves a list unchanged (a PUT of the id alone writes nothing); null clears it.
    expect((await api.put(PATH, { tenantId: 'public' })).json).toEqual({ status: 'OK', createdNew: false });
    expect(await listedPublic()).toEqual(both);
    expect((await api.put(PATH, { tenantId: 'public', firstFactors: null })).json).toEqual({ status: 'OK', createdNew: false });
    const secondaryOnly = { ...bare('public'), requiredSecondaryFactors: ['totp'] };
    expect(await listedPublic()).toEqual(secondaryOnly);
    // The GET's function may answer from a read up to 5 s old (its own container); past that, the stored factors, on every path.
    await pastTenantCache(since);
    for (const path of [PATH, `/public${PATH}`, `/appid-public/public${PATH}`]) expect([path, (await api.get(path)).json]).toEqual([path, secondaryOnly]);
    expect((await api.put(PATH, { tenantId: 'public', requiredSecondaryFactors: null })).json.status).toBe('OK');
    expect(await listedPublic()).toEqual(bare('public'));
    // Still the one tenant that cannot be removed.
    expect((await api.post('/recipe/multitenancy/tenant/remove', { tenantId: 'public' })).status).toBe(400);
  });
});

describe('a deployment without API keys', () => {
  it('fails closed with 500 API key is not configured', async () => {
    const open = await startApi({ API_KEYS: '' });
    try {
      const res = await open.get('/apiversion');
      expect(res.status).toBe(500);
      expect(res.text).toBe('API key is not configured');
      expect((await open.request('GET', '/hello', { apiKey: null })).status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});
