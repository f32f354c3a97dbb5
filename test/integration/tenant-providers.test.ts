import { startApi, type ApiResponse, type TestApi } from '../support/api';

/**
 * SPEC §22: a tenant's third-party providers as the core keeps them (`PUT …/config/thirdparty`,
 * `POST …/config/thirdparty/remove`), answered by the tenant GET and the list. One test per status
 * and text. The tenant GET's function keeps a tenant 5 s: each tenant is read there once, after
 * its writes; the list (uncached) shows the steps between.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.stop());

const CONFIG = '/recipe/multitenancy/config/thirdparty';
const tenantPath = (tenantId: string, path: string) => (tenantId === 'public' ? path : `/${tenantId}${path}`);
let tenants = 0;
/** A new tenant, for a test of its own. */
async function newTenant(label: string): Promise<string> {
  const tenantId = `${label}-${Date.now().toString(36)}-${tenants++}`;
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
  return tenantId;
}
const put = (tenantId: string, config: unknown, skipValidation?: unknown): Promise<ApiResponse> =>
  api.put(tenantPath(tenantId, CONFIG), skipValidation === undefined ? { config } : { config, skipValidation });
const remove = (tenantId: string, thirdPartyId: unknown) => api.post(tenantPath(tenantId, `${CONFIG}/remove`), { thirdPartyId });
const getTenant = async (tenantId: string) => (await api.get(tenantPath(tenantId, '/recipe/multitenancy/tenant/v2'))).json;
/** A tenant's providers as the (uncached) list answers them. */
async function listed(tenantId: string): Promise<Record<string, unknown>[]> {
  const list = await api.get('/recipe/multitenancy/tenant/list/v2');
  expect(list.status).toBe(200);
  return (list.json.tenants as { tenantId: string; thirdParty: { providers: Record<string, unknown>[] } }[]).find((t) => t.tenantId === tenantId)?.thirdParty
    .providers as Record<string, unknown>[];
}
const ids = (providers: Record<string, unknown>[]) => providers.map((p) => p.thirdPartyId);
/** A 400 with this text. */
function refused(res: ApiResponse, text: string): void {
  expect([res.status, res.text, res.headers.get('content-type')]).toEqual([400, text, 'text/plain; charset=utf-8']);
}
const oidc = (thirdPartyId: string, extra: Record<string, unknown> = {}) => ({
  thirdPartyId,
  clients: [{ clientId: `${thirdPartyId}-id`, clientSecret: `${thirdPartyId}-secret` }],
  oidcDiscoveryEndpoint: `https://${thirdPartyId}.example.test/.well-known/openid-configuration`,
  ...extra,
});

describe('PUT …/config/thirdparty', () => {
  it('stores a provider as the core serialises it: known fields in their order, absent ones omitted, clients and both userInfoMap sides always', async () => {
    const tenantId = await newTenant('tp-shape');
    const full = {
      thirdPartyId: '  okta-acme  ',
      name: 'Acme Okta',
      clients: [
        {
          clientType: 'web',
          clientId: 'acme-web',
          clientSecret: 'acme-web-secret',
          scope: ['openid', 'email'],
          forcePKCE: true,
          additionalConfig: { domain: 'acme.okta.test', gone: null, nested: { keep: 1, drop: null }, list: [null, 1] },
        },
        { clientId: 'acme-mobile', unknownClientField: 'x' },
      ],
      authorizationEndpoint: 'https://acme.okta.test/authorize',
      authorizationEndpointQueryParams: { prompt: 'login', remove: null },
      tokenEndpoint: 'https://acme.okta.test/token',
      tokenEndpointBodyParams: { audience: null },
      userInfoEndpoint: 'https://acme.okta.test/userinfo',
      userInfoEndpointQueryParams: { fields: 'email' },
      userInfoEndpointHeaders: { 'x-tenant': 'acme', 'x-none': null },
      jwksURI: 'https://acme.okta.test/keys',
      oidcDiscoveryEndpoint: null,
      requireEmail: false,
      userInfoMap: { fromIdTokenPayload: { userId: 'sub', email: null }, fromUserInfoAPI: null },
      includeInNonPublicTenantsByDefault: true,
      unknown: { anything: 1 },
    };
    expect((await put(tenantId, full)).json).toEqual({ status: 'OK', createdNew: true });
    expect((await put(tenantId, { thirdPartyId: 'bare' })).json).toEqual({ status: 'OK', createdNew: true });
    const tenant = await getTenant(tenantId);
    expect(tenant).toEqual({ status: 'OK', tenantId, coreConfig: {}, thirdParty: { providers: expect.any(Array) } });
    const [okta, bare] = tenant.thirdParty.providers;
    // Key order as the core's `Provider` declares its fields; JSON answers keep it.
    expect(Object.keys(okta)).toEqual([
      'thirdPartyId',
      'name',
      'clients',
      'authorizationEndpoint',
      'authorizationEndpointQueryParams',
      'tokenEndpoint',
      'tokenEndpointBodyParams',
      'userInfoEndpoint',
      'userInfoEndpointQueryParams',
      'userInfoEndpointHeaders',
      'jwksURI',
      'requireEmail',
      'userInfoMap',
    ]);
    expect(okta).toEqual({
      thirdPartyId: 'okta-acme',
      name: 'Acme Okta',
      clients: [
        {
          clientType: 'web',
          clientId: 'acme-web',
          clientSecret: 'acme-web-secret',
          scope: ['openid', 'email'],
          forcePKCE: true,
          // The core's serialiser drops null members of additionalConfig, at any depth (arrays keep theirs).
          additionalConfig: { domain: 'acme.okta.test', nested: { keep: 1 }, list: [null, 1] },
        },
        { clientId: 'acme-mobile' },
      ],
      authorizationEndpoint: 'https://acme.okta.test/authorize',
      // The four param/header objects keep their nulls.
      authorizationEndpointQueryParams: { prompt: 'login', remove: null },
      tokenEndpoint: 'https://acme.okta.test/token',
      tokenEndpointBodyParams: { audience: null },
      userInfoEndpoint: 'https://acme.okta.test/userinfo',
      userInfoEndpointQueryParams: { fields: 'email' },
      userInfoEndpointHeaders: { 'x-tenant': 'acme', 'x-none': null },
      jwksURI: 'https://acme.okta.test/keys',
      requireEmail: false,
      userInfoMap: { fromIdTokenPayload: { userId: 'sub' }, fromUserInfoAPI: {} },
    });
    expect(bare).toEqual({ thirdPartyId: 'bare', clients: [], userInfoMap: { fromIdTokenPayload: {}, fromUserInfoAPI: {} } });
  });

  it('replaces a provider of the same id whole, in its place (clients not merged); a new id goes last; ids are case-sensitive', async () => {
    const tenantId = await newTenant('tp-upsert');
    for (const id of ['a', 'b', 'c']) expect((await put(tenantId, oidc(id))).json).toEqual({ status: 'OK', createdNew: true });
    expect((await put(tenantId, { thirdPartyId: ' b ', clients: [{ clientId: 'only-this-one' }] })).json).toEqual({ status: 'OK', createdNew: false });
    expect((await put(tenantId, oidc('B'))).json).toEqual({ status: 'OK', createdNew: true });
    const providers = await listed(tenantId);
    expect(ids(providers)).toEqual(['a', 'b', 'c', 'B']);
    expect(providers[1]).toEqual({ thirdPartyId: 'b', clients: [{ clientId: 'only-this-one' }], userInfoMap: { fromIdTokenPayload: {}, fromUserInfoAPI: {} } });
    expect(ids((await getTenant(tenantId)).thirdParty.providers)).toEqual(['a', 'b', 'c', 'B']);
  });

  it("stores public's providers too: its GET and the list answer them", async () => {
    expect((await put('public', oidc('public-okta'))).json).toEqual({ status: 'OK', createdNew: true });
    expect(ids(await listed('public'))).toEqual(['public-okta']);
    expect(ids((await getTenant('public')).thirdParty.providers)).toEqual(['public-okta']);
    expect((await api.post(`${CONFIG}/remove`, { thirdPartyId: 'public-okta' })).json).toEqual({ status: 'OK', didConfigExist: true });
    expect(await listed('public')).toEqual([]);
  });

  it.each([
    ['no config', {}, "Field name 'config' is invalid in JSON input"],
    ['a config that is no object', { config: [] }, "Field name 'config' is invalid in JSON input"],
    ['no thirdPartyId', { config: { clients: [] } }, "Field name 'thirdPartyId' is invalid in JSON input"],
    ['a thirdPartyId that is no string', { config: { thirdPartyId: 7 } }, "Field name 'thirdPartyId' is invalid in JSON input"],
    ['a skipValidation that is no boolean', { config: { thirdPartyId: 'x' }, skipValidation: 'yes' }, "Field name 'skipValidation' is invalid in JSON input"],
  ])('answers §1’s 400 for %s', async (_label, body, text) => {
    refused(await api.put(CONFIG, body), text);
  });

  it('answers 400 Invalid Json Input for a body that is not JSON', async () => {
    refused(await api.request('PUT', CONFIG, { rawBody: '{"config":' }), 'Invalid Json Input');
  });

  it.each([
    ['name', { name: 1 }],
    ['clients', { clients: {} }],
    ['clients[0]', { clients: ['x'] }],
    ['clients[0].clientId', { clients: [{ clientId: 5 }] }],
    [
      'clients[1].clientSecret',
      {
        clients: [
          { clientId: 'a', clientType: 'web' },
          { clientId: 'b', clientSecret: ['the secret'] },
        ],
      },
    ],
    ['clients[0].scope', { clients: [{ clientId: 'a', scope: 'openid' }] }],
    ['clients[0].scope[1]', { clients: [{ clientId: 'a', scope: ['openid', 3] }] }],
    ['clients[0].forcePKCE', { clients: [{ clientId: 'a', forcePKCE: 'true' }] }],
    ['clients[0].additionalConfig', { clients: [{ clientId: 'a', additionalConfig: 'k=v' }] }],
    ['tokenEndpointBodyParams', { tokenEndpointBodyParams: ['a'] }],
    ['requireEmail', { requireEmail: 'false' }],
    ['userInfoMap', { userInfoMap: 'sub' }],
    ['userInfoMap.fromUserInfoAPI', { userInfoMap: { fromUserInfoAPI: [] } }],
    ['userInfoMap.fromIdTokenPayload.email', { userInfoMap: { fromIdTokenPayload: { email: true } } }],
  ])('answers 400 Invalid third party config: %s is invalid, for a field of the wrong JSON type', async (field, extra) => {
    refused(await put('public', { thirdPartyId: 'typed', ...extra }), `Invalid third party config: ${field} is invalid`);
  });

  it.each([
    ['an empty thirdPartyId', { thirdPartyId: '   ' }, 'thirdPartyId cannot be null or empty'],
    [
      'two clients of one clientType',
      {
        thirdPartyId: 'x',
        clients: [
          { clientId: 'a', clientType: 'web' },
          { clientId: 'b', clientType: 'web' },
        ],
      },
      'Duplicate clientType was specified in the clients list.',
    ],
    [
      'two clients without a clientType',
      { thirdPartyId: 'x', clients: [{ clientId: 'a' }, { clientId: 'b' }] },
      'Duplicate clientType was specified in the clients list.',
    ],
    ['a client without clientId', { thirdPartyId: 'x', clients: [{ clientSecret: 's' }] }, 'clientId cannot be null'],
    ['a scope with a null', { thirdPartyId: 'x', clients: [{ clientId: 'a', scope: ['openid', null] }] }, 'scope array cannot contain a null'],
    [
      'an Apple provider without its keys',
      { thirdPartyId: 'apple', clients: [{ clientId: 'a', additionalConfig: { keyId: 'k', teamId: 't', privateKey: '' } }] },
      'a non empty string value must be specified for keyId, teamId and privateKey in the additionalConfig for Apple provider',
    ],
    [
      'an Apple-prefixed id without additionalConfig',
      { thirdPartyId: 'apple-ios', clients: [{ clientId: 'a' }] },
      'a non empty string value must be specified for keyId, teamId and privateKey in the additionalConfig for Apple provider',
    ],
    [
      'a Google Workspaces hd that is empty',
      { thirdPartyId: 'google-workspaces', clients: [{ clientId: 'a', additionalConfig: { hd: '' } }] },
      'hd in additionalConfig must be a non empty string value',
    ],
    [
      'a Google Workspaces hd that is null',
      { thirdPartyId: 'google-workspaces-acme', clients: [{ clientId: 'a', additionalConfig: { hd: null } }] },
      'hd in additionalConfig must be a non empty string value',
    ],
    [
      'a Boxy SAML boxyURL that is no string',
      { thirdPartyId: 'boxy-saml', clients: [{ clientId: 'a', additionalConfig: { boxyURL: 1 } }] },
      'a non empty string value must be specified for boxyURL in the additionalConfig for Boxy SAML provider',
    ],
  ])('refuses %s with the core’s reason, and stores it with skipValidation', async (_label, config, reason) => {
    const tenantId = await newTenant('tp-valid');
    refused(await put(tenantId, config), `Invalid third party config: ${reason}`);
    expect(await listed(tenantId)).toEqual([]);
    if (reason.startsWith('Duplicate clientType')) {
      // The core's storage keeps one client per type: refused even unvalidated.
      refused(await put(tenantId, config, true), `Invalid third party config: ${reason}`);
      return;
    }
    expect((await put(tenantId, config, true)).json).toEqual({ status: 'OK', createdNew: true });
    expect(await listed(tenantId)).toHaveLength(1);
  });

  it('accepts what the validation allows: Apple with its three keys, Google Workspaces and Boxy SAML without them, a clientType "" taken as none', async () => {
    const tenantId = await newTenant('tp-ok');
    const apple = {
      thirdPartyId: 'apple',
      clients: [{ clientId: 'a', additionalConfig: { keyId: 'k', teamId: 't', privateKey: '-----BEGIN PRIVATE KEY-----' } }],
    };
    expect((await put(tenantId, apple)).json.status).toBe('OK');
    expect((await put(tenantId, { thirdPartyId: 'google-workspaces', clients: [{ clientId: 'a', additionalConfig: { hd: 'acme.test' } }] })).json.status).toBe(
      'OK',
    );
    expect((await put(tenantId, { thirdPartyId: 'boxy-saml', clients: [{ clientId: 'a' }] })).json.status).toBe('OK');
    expect((await put(tenantId, { thirdPartyId: 'typed', clients: [{ clientId: 'a', clientType: '' }] })).json.status).toBe('OK');
    expect((await listed(tenantId))[3]).toMatchObject({ clients: [{ clientId: 'a' }] });
  });

  it('checks the whole list a change leaves, as the core: a provider stored unvalidated blocks a validated change until it is fixed or removed', async () => {
    const tenantId = await newTenant('tp-list');
    expect((await put(tenantId, oidc('okta'))).json.status).toBe('OK');
    expect((await put(tenantId, { thirdPartyId: 'apple', clients: [{ clientId: 'a' }] }, true)).json.status).toBe('OK');
    const appleReason =
      'Invalid third party config: a non empty string value must be specified for keyId, teamId and privateKey in the additionalConfig for Apple provider';
    refused(await put(tenantId, oidc('github')), appleReason);
    refused(await remove(tenantId, 'okta'), appleReason);
    expect((await put(tenantId, oidc('github'), true)).json).toEqual({ status: 'OK', createdNew: true });
    expect((await remove(tenantId, 'apple')).json).toEqual({ status: 'OK', didConfigExist: true });
    expect((await remove(tenantId, 'okta')).json).toEqual({ status: 'OK', didConfigExist: true });
    expect(ids(await listed(tenantId))).toEqual(['github']);
  });

  it('bounds thirdPartyId to 28 characters, even unvalidated (after trimming)', async () => {
    const tenantId = await newTenant('tp-len');
    expect((await put(tenantId, { thirdPartyId: ` ${'x'.repeat(28)} ` })).json.status).toBe('OK');
    refused(await put(tenantId, { thirdPartyId: 'x'.repeat(29) }, true), 'Invalid third party config: thirdPartyId must be at most 28 characters');
  });

  it('bounds a tenant to 50 providers and a provider to 20 clients, even unvalidated', async () => {
    const tenantId = await newTenant('tp-many');
    for (let i = 0; i < 50; i++) expect((await put(tenantId, { thirdPartyId: `p${i}`, clients: [{ clientId: 'c' }] })).json.status).toBe('OK');
    refused(await put(tenantId, { thirdPartyId: 'p50' }, true), 'Invalid third party config: too many providers');
    // Replacing one of the 50 is no new provider.
    expect((await put(tenantId, { thirdPartyId: 'p7', name: 'seven' })).json).toEqual({ status: 'OK', createdNew: false });
    const clients = Array.from({ length: 21 }, (_, i) => ({ clientId: `c${i}`, clientType: `t${i}` }));
    refused(await put(tenantId, { thirdPartyId: 'p0', clients }, true), 'Invalid third party config: too many clients');
    expect((await put(tenantId, { thirdPartyId: 'p0', clients: clients.slice(0, 20) })).json.status).toBe('OK');
    expect(await listed(tenantId)).toHaveLength(50);
  });

  it('bounds a provider to 64 KiB as an answer carries it, even unvalidated', async () => {
    const tenantId = await newTenant('tp-size');
    // The answer escapes the provider's JSON once more: 64 KiB of it is a bit less of JSON.
    const fits = { thirdPartyId: 'big', clients: [{ clientId: 'c', additionalConfig: { key: 'k'.repeat(64 * 1024 - 200) } }] };
    expect((await put(tenantId, fits)).json.status).toBe('OK');
    const over = { thirdPartyId: 'big', clients: [{ clientId: 'c', additionalConfig: { key: 'k'.repeat(64 * 1024) } }] };
    refused(await put(tenantId, over, true), 'Invalid third party config: the provider is too large');
    expect(((await listed(tenantId))[0].clients as { additionalConfig: { key: string } }[])[0].additionalConfig.key).toHaveLength(64 * 1024 - 200);
  });

  it('answers 400 AppId or tenantId not found in a tenant that does not exist', async () => {
    refused(await put('tp-nobody', oidc('okta')), 'AppId or tenantId not found');
    refused(await remove('tp-nobody', 'okta'), 'AppId or tenantId not found');
  });
});

describe('POST …/config/thirdparty/remove', () => {
  it('removes a provider (didConfigExist true), keeps the others in order, and answers false for one it does not have', async () => {
    const tenantId = await newTenant('tp-rm');
    for (const id of ['a', 'b', 'c']) await put(tenantId, oidc(id));
    expect((await remove(tenantId, ' b ')).json).toEqual({ status: 'OK', didConfigExist: true });
    expect((await remove(tenantId, 'b')).json).toEqual({ status: 'OK', didConfigExist: false });
    expect((await remove(tenantId, 'A')).json).toEqual({ status: 'OK', didConfigExist: false });
    expect(ids(await listed(tenantId))).toEqual(['a', 'c']);
    for (const id of ['a', 'c']) await remove(tenantId, id);
    expect((await getTenant(tenantId)).thirdParty).toEqual({ providers: [] });
  });

  it("answers §1's 400 for a thirdPartyId missing or not a string", async () => {
    refused(await api.post(`${CONFIG}/remove`, {}), "Field name 'thirdPartyId' is invalid in JSON input");
    refused(await api.post(`${CONFIG}/remove`, { thirdPartyId: ['a'] }), "Field name 'thirdPartyId' is invalid in JSON input");
  });
});

describe('tenants and their providers', () => {
  it('removes a tenant with its providers: made again, it starts with none', async () => {
    const tenantId = await newTenant('tp-gone');
    for (const id of ['a', 'b']) await put(tenantId, oidc(id));
    expect((await api.post('/recipe/multitenancy/tenant/remove', { tenantId })).json).toEqual({ status: 'OK', didExist: true });
    expect((await api.post('/recipe/multitenancy/tenant/remove', { tenantId })).json).toEqual({ status: 'OK', didExist: false });
    expect(await listed(tenantId)).toBeUndefined();
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json).toEqual({ status: 'OK', createdNew: true });
    expect(await listed(tenantId)).toEqual([]);
  });

  it('keeps a tenant’s factors and providers apart: a factor PUT leaves the providers, the list answers both', async () => {
    const tenantId = await newTenant('tp-both');
    await put(tenantId, oidc('okta'));
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId, firstFactors: ['thirdparty'] })).json).toEqual({ status: 'OK', createdNew: false });
    const list = await api.get('/recipe/multitenancy/tenant/list/v2');
    expect(list.json.tenants.find((t: { tenantId: string }) => t.tenantId === tenantId)).toEqual({
      tenantId,
      firstFactors: ['thirdparty'],
      coreConfig: {},
      thirdParty: { providers: [{ ...oidc('okta'), userInfoMap: { fromIdTokenPayload: {}, fromUserInfoAPI: {} } }] },
    });
  });
});

describe('client secrets (SPEC §22)', () => {
  it('never writes a secret to a log line, and never puts one in a 400', async () => {
    const secret = `very-secret-${Date.now().toString(36)}-value`;
    const privateKey = `-----BEGIN PRIVATE KEY-----${Date.now().toString(36)}`;
    const tenantId = await newTenant('tp-secret');
    const config = { thirdPartyId: 'apple', clients: [{ clientId: 'a', clientSecret: secret, additionalConfig: { keyId: 'k', teamId: 't', privateKey } }] };
    expect((await put(tenantId, config)).json.status).toBe('OK');
    expect(JSON.stringify((await getTenant(tenantId)).thirdParty)).toContain(secret);
    expect(JSON.stringify(await listed(tenantId))).toContain(privateKey);
    // Refused bodies carrying the secret: the texts name fields, never values.
    for (const res of [
      await put(tenantId, { ...config, clients: [{ clientId: 'a', clientSecret: secret, additionalConfig: { keyId: privateKey } }] }),
      await put(tenantId, { ...config, clients: [{ clientId: 'a', clientSecret: [secret] }] }),
      await put(tenantId, { ...config, thirdPartyId: `${secret}${secret}` }),
      await put('tp-nobody', config),
    ]) {
      expect(res.status).toBe(400);
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain(privateKey);
    }
    // Every request has written its log line by now: the last one's is there.
    await api.logLine((line) => line.includes('tenant-thirdparty-config-put') && line.includes('"statusCode":400'));
    expect(api.logs.filter((line) => line.includes('tenant-thirdparty-config-put')).length).toBeGreaterThanOrEqual(5);
    expect(api.logs.filter((line) => line.includes(secret) || line.includes(privateKey))).toEqual([]);
  });
});

describe('the four endpoints of SPEC §22 under §1 and §2', () => {
  const ENDPOINTS = [
    ['PUT', CONFIG, { config: { thirdPartyId: 'x' } }, 'POST'],
    ['POST', `${CONFIG}/remove`, { thirdPartyId: 'x' }, 'PUT'],
    ['POST', '/recipe/multitenancy/tenant/user', { recipeUserId: 'x' }, 'PUT'],
    ['POST', '/recipe/multitenancy/tenant/user/remove', { recipeUserId: 'x' }, 'GET'],
  ] as const;

  it.each(ENDPOINTS)(
    '%s %s: 401 without the key, 405 for another method, 400 AppId or tenantId not found for another app',
    async (method, path, body, other) => {
      const noKey = await api.request(method, path, { body, apiKey: null });
      expect([noKey.status, noKey.text]).toEqual([401, 'Invalid API key']);
      const wrongMethod = await api.request(other, path, other === 'GET' ? {} : { body });
      expect([wrongMethod.status, wrongMethod.text]).toEqual([405, 'Method not supported']);
      refused(await api.request(method, `/appid-other/public${path}`, { body }), 'AppId or tenantId not found');
      refused(await api.request(method, `/appid-public/tp-nobody${path}`, { body }), 'AppId or tenantId not found');
    },
  );

  it('takes the /appid-public/<t>/ form: the provider written there is the tenant’s, removed there too', async () => {
    const tenantId = await newTenant('tp-appid');
    expect((await api.put(`/appid-public/${tenantId}${CONFIG}`, { config: oidc('okta') })).json).toEqual({ status: 'OK', createdNew: true });
    expect(ids(await listed(tenantId))).toEqual(['okta']);
    expect((await api.post(`/appid-public/${tenantId}${CONFIG}/remove`, { thirdPartyId: 'okta' })).json).toEqual({ status: 'OK', didConfigExist: true });
    expect(await listed(tenantId)).toEqual([]);
  });

  it('checks no URL, as the core: endpoints that are not URLs are stored as given', async () => {
    const tenantId = await newTenant('tp-urls');
    const config = { thirdPartyId: 'odd', authorizationEndpoint: 'not a url', tokenEndpoint: '', jwksURI: 'ftp://x', oidcDiscoveryEndpoint: '/relative' };
    expect((await put(tenantId, config)).json).toEqual({ status: 'OK', createdNew: true });
    expect((await listed(tenantId))[0]).toEqual({ ...config, clients: [], userInfoMap: { fromIdTokenPayload: {}, fromUserInfoAPI: {} } });
  });

  it('answers didConfigExist false for a thirdPartyId that is empty after trimming (the core trims, then finds none)', async () => {
    expect((await remove('public', '   ')).json).toEqual({ status: 'OK', didConfigExist: false });
  });

  it.each([
    ['a lone surrogate in a string field', { name: 'Acme \ud800' }, 'name is not valid Unicode: it holds a lone surrogate'],
    [
      'a lone surrogate in a client secret',
      { clients: [{ clientId: 'a', clientSecret: '\udc00' }] },
      'clients[0].clientSecret is not valid Unicode: it holds a lone surrogate',
    ],
    [
      'a lone surrogate inside additionalConfig',
      { clients: [{ clientId: 'a', additionalConfig: { k: '\ud800' } }] },
      'clients[0].additionalConfig is not valid Unicode: it holds a lone surrogate',
    ],
    [
      'a param object nested too deep',
      { tokenEndpointBodyParams: JSON.parse(`${'{"a":'.repeat(70)}1${'}'.repeat(70)}`) },
      'tokenEndpointBodyParams nests deeper than 64 levels',
    ],
  ])('answers 400 Invalid third party config naming the field for %s (SPEC §1: bad input names the field), even unvalidated', async (_label, extra, reason) => {
    refused(await put('public', { thirdPartyId: 'unicode', ...extra }, true), `Invalid third party config: ${reason}`);
    expect(await listed('public')).toEqual([]);
  });

  it("answers §1's 400 naming thirdPartyId for one that is not valid Unicode, in a PUT and a removal", async () => {
    const text = "Field name 'thirdPartyId' is not valid Unicode: it holds a lone surrogate";
    refused(await put('public', { thirdPartyId: 'okta-\ud800' }), text);
    refused(await remove('public', 'okta-\udfff'), text);
  });
});
