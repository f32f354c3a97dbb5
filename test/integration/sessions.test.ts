import { createHash, createHmac, createPublicKey } from 'node:crypto';
import { compactVerify, createLocalJWKSet, decodeJwt, decodeProtectedHeader } from 'jose';
import { startApi, type ApiResponse, type TestApi } from '../support/api';
import { scanTable } from '../support/table';

/**
 * Sessions and JWT (SPEC §18) on the real local server: every endpoint's statuses, texts and
 * fields as the core answers them, the hash chain (promotion, theft), and the bad tokens.
 */

const sha = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const PROTECTED = ['sub', 'exp', 'iat', 'sessionHandle', 'refreshTokenHash1', 'parentRefreshTokenHash1', 'antiCsrfToken', 'tId', 'rsub'];

let api: TestApi;

beforeAll(async () => {
  api = await startApi();
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 't1' })).status).toBe(200);
});
afterAll(async () => api?.stop());

interface Created {
  session: { handle: string; userId: string; recipeUserId: string; userDataInJWT: Record<string, unknown>; tenantId: string };
  accessToken: { token: string; expiry: number; createdTime: number };
  refreshToken: { token: string; expiry: number; createdTime: number };
  antiCsrfToken?: string;
}

async function create(body: Record<string, unknown> = {}, tenant = ''): Promise<Created> {
  const res = await api.post(`${tenant}/recipe/session`, {
    userId: 'user-1',
    userDataInJWT: { role: 'a' },
    userDataInDatabase: { db: 1 },
    enableAntiCsrf: false,
    ...body,
  });
  expect(res.status).toBe(200);
  expect(res.json.status).toBe('OK');
  return res.json;
}

const verify = (accessToken: string, extra: Record<string, unknown> = {}) =>
  api.post('/recipe/session/verify', { accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: false, ...extra });
const refresh = (refreshToken: string, extra: Record<string, unknown> = {}) =>
  api.post('/recipe/session/refresh', { refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true, ...extra });

function expectText(res: ApiResponse, status: number, text: string) {
  expect({ status: res.status, text: res.text.trim() }).toEqual({ status, text });
}

describe('create', () => {
  it('answers the session, an access token v5 as the core signs it and an opaque refresh token', async () => {
    const before = Date.now();
    const c = await create({ userId: 'someone-unknown', userDataInJWT: { iss: 'https://api.example.com/auth', 'st-ev': { v: false, t: 1 } } });
    expect(c.session).toEqual({
      handle: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      userId: 'someone-unknown',
      recipeUserId: 'someone-unknown',
      userDataInJWT: { iss: 'https://api.example.com/auth', 'st-ev': { v: false, t: 1 } },
      tenantId: 'public',
    });
    expect(c.antiCsrfToken).toBeUndefined();
    const header = decodeProtectedHeader(c.accessToken.token);
    expect(Object.keys(header)).toEqual(['alg', 'typ', 'kid', 'version']);
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: expect.stringMatching(/^d-\d{13}$/), version: '5' });
    const claims = decodeJwt(c.accessToken.token);
    expect(Object.keys(claims)).toEqual([
      ...['sub', 'exp', 'iat', 'tId', 'rsub', 'sessionHandle', 'refreshTokenHash1', 'parentRefreshTokenHash1', 'antiCsrfToken'],
      'iss',
      'st-ev',
    ]);
    expect(claims).toMatchObject({
      sub: 'someone-unknown',
      rsub: 'someone-unknown',
      tId: 'public',
      sessionHandle: c.session.handle,
      refreshTokenHash1: sha(c.refreshToken.token),
      parentRefreshTokenHash1: null,
      antiCsrfToken: null,
    });
    expect(c.accessToken.expiry).toBe((claims.exp as number) * 1000);
    expect(c.accessToken.createdTime).toBe((claims.iat as number) * 1000);
    expect(c.accessToken.expiry - c.accessToken.createdTime).toBe(3600 * 1000);
    expect(c.refreshToken.createdTime).toBeGreaterThanOrEqual(before);
    expect(c.refreshToken.expiry - c.refreshToken.createdTime).toBe(144_000 * 60_000);
  });

  it('gives a refresh token that reveals nothing of the session and is stored only as a hash', async () => {
    const c = await create({ userId: 'secret-user-id', userDataInJWT: { marker: 'payload-marker' } });
    const token = c.refreshToken.token;
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.V2$/);
    const body = token.slice(0, -3);
    const readings = [
      body,
      Buffer.from(body, 'base64url').toString('latin1'),
      Buffer.from(body, 'base64').toString('latin1'),
      Buffer.from(body, 'hex').toString('latin1'),
    ];
    for (const text of readings) {
      for (const secret of ['secret-user-id', c.session.handle, c.session.handle.slice(0, 8), 'public', 'payload-marker']) expect(text).not.toContain(secret);
    }
    const stored = JSON.stringify(await scanTable(api.tableName));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(body.slice(0, 24));
    expect(stored).not.toContain(c.accessToken.token.split('.')[2]);
    expect(stored).toContain(sha(sha(token)));
  });

  it('answers the primary user and the external ids of a linked, mapped login method', async () => {
    const ep = (email: string) => api.post('/recipe/signup', { email, password: 'password-123' });
    const a = (await ep('primary@example.com')).json.user;
    const b = (await ep('linked@example.com')).json.user;
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: a.id })).json.status).toBe('OK');
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: b.id, primaryUserId: a.id })).json.status).toBe('OK');
    expect((await api.post('/recipe/userid/map', { superTokensUserId: b.id, externalUserId: 'ext-linked' })).json.status).toBe('OK');
    for (const userId of [b.id, 'ext-linked']) {
      const c = await create({ userId });
      expect([c.session.userId, c.session.recipeUserId]).toEqual([a.id, 'ext-linked']);
      expect(decodeJwt(c.accessToken.token)).toMatchObject({ sub: a.id, rsub: 'ext-linked' });
    }
    // The primary user mapped after the link: its linked login methods' sessions answer its external id.
    expect((await api.post('/recipe/userid/map', { superTokensUserId: a.id, externalUserId: 'ext-primary' })).json.status).toBe('OK');
    for (const userId of [b.id, 'ext-linked', a.id, 'ext-primary']) {
      const c = await create({ userId });
      expect(c.session.userId).toBe('ext-primary');
    }
    const solo = (await ep('solo@example.com')).json.user;
    expect((await api.post('/recipe/userid/map', { superTokensUserId: solo.id, externalUserId: 'ext-solo' })).json.status).toBe('OK');
    for (const userId of [solo.id, 'ext-solo']) {
      const c = await create({ userId });
      expect([c.session.userId, c.session.recipeUserId]).toEqual(['ext-solo', 'ext-solo']);
    }
  });

  it('puts the tenant in the handle, the token and the answer; an unknown tenant is the 400', async () => {
    const c = await create({}, '/t1');
    expect(c.session.handle).toMatch(/_t1$/);
    expect(c.session.tenantId).toBe('t1');
    expect(decodeJwt(c.accessToken.token).tId).toBe('t1');
    const appForm = await create({}, '/appid-public/t1');
    expect(appForm.session.tenantId).toBe('t1');
    // App-wide calls take the tenant from the handle; a tenant segment that exists is ignored.
    expect((await api.get(`/t1/recipe/session?sessionHandle=${appForm.session.handle}`)).json.tenantId).toBe('t1');
    expect(
      (
        await api.post('/t1/recipe/session/verify', {
          accessToken: appForm.accessToken.token,
          doAntiCsrfCheck: false,
          enableAntiCsrf: false,
          checkDatabase: true,
        })
      ).json.status,
    ).toBe('OK');
    // There is no handshake (CDI ≥ 2.21).
    expectText(await api.post('/recipe/handshake', {}), 404, 'Not found');
    const res = await api.post('/nope/recipe/session', { userId: 'u', userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^AppId or tenantId not found/);
  });

  it('refuses each of the nine protected claims with the core text, and malformed fields by name', async () => {
    for (const claim of PROTECTED) {
      expectText(
        await api.post('/recipe/session', { userId: 'u', userDataInJWT: { [claim]: 1 }, userDataInDatabase: {}, enableAntiCsrf: false }),
        400,
        'The user payload contains protected field',
      );
    }
    const good = { userId: 'u', userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false };
    for (const [field, value] of [
      ['userId', undefined],
      ['userId', 5],
      ['userDataInJWT', undefined],
      ['userDataInJWT', []],
      ['userDataInDatabase', 'x'],
      ['enableAntiCsrf', 'true'],
      ['useDynamicSigningKey', 'false'],
    ] as const) {
      expectText(await api.post('/recipe/session', { ...good, [field]: value }), 400, `Field name '${field}' is invalid in JSON input`);
    }
    expectText(
      await api.post('/recipe/session', { ...good, userDataInJWT: { big: 'x'.repeat(100_001) } }),
      400,
      "Field name 'userDataInJWT' is too large: at most 100000 bytes as JSON",
    );
    // The largest payload allowed makes a token every session call still takes.
    const big = await create({ userDataInJWT: { big: 'é'.repeat(49_990) } });
    expect((await verify(big.accessToken.token)).json.status).toBe('OK');
    expect((await api.post('/recipe/session/regenerate', { accessToken: big.accessToken.token })).json.status).toBe('OK');
  });
});

describe('verify', () => {
  it('answers a fresh token from the token alone, without an access token', async () => {
    const c = await create();
    const res = await verify(c.accessToken.token);
    expect(res.json).toEqual({ status: 'OK', session: c.session });
  });

  it('refuses garbage, tampered, alg none, HS256 key confusion, other keys and expired tokens with TRY_REFRESH_TOKEN', async () => {
    const c = await create();
    const [h, p, s] = c.accessToken.token.split('.');
    const claims = decodeJwt(c.accessToken.token);
    const header = decodeProtectedHeader(c.accessToken.token);
    const jwks = (await api.get('/.well-known/jwks.json')).json;
    const pem = createPublicKey({ key: jwks.keys.find((k: { kid: string }) => k.kid === header.kid), format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const hs = (secret: string | Buffer) => {
      const head = b64url({ ...header, alg: 'HS256' });
      return `${head}.${p}.${createHmac('sha256', secret).update(`${head}.${p}`).digest('base64url')}`;
    };
    const bad = {
      garbage: 'not-a-token',
      empty: '',
      twoParts: `${h}.${p}`,
      tamperedPayload: `${h}.${b64url({ ...claims, sub: 'admin' })}.${s}`,
      tamperedSignature: `${h}.${p}.${s.slice(0, -4)}AAAA`,
      none: `${b64url({ ...header, alg: 'none' })}.${p}.`,
      hs256WithPublicKey: hs(pem),
      unknownKid: `${b64url({ ...header, kid: 'd-1' })}.${p}.${s}`,
      noVersion: `${b64url({ alg: 'RS256', typ: 'JWT', kid: header.kid })}.${p}.${s}`,
    };
    for (const [name, token] of Object.entries(bad)) {
      const res = await verify(token);
      expect({ name, status: res.status, body: res.json?.status }).toEqual({ name, status: 200, body: 'TRY_REFRESH_TOKEN' });
      expect(typeof res.json.message).toBe('string');
    }
  });

  it('verifies a POST /recipe/jwt token carrying a session\'s claims: no header version, read as "5" (the core)', async () => {
    const c = await create();
    const { exp: _exp, iat: _iat, ...payload } = decodeJwt(c.accessToken.token);
    for (const useStaticSigningKey of [true, false]) {
      const made = await api.post('/recipe/jwt', { algorithm: 'RS256', jwksDomain: 'https://api.example.com', payload, validity: 60, useStaticSigningKey });
      expect(decodeProtectedHeader(made.json.jwt)).not.toHaveProperty('version');
      const res = await verify(made.json.jwt);
      expect(res.json).toEqual({ status: 'OK', session: { ...c.session, userDataInJWT: { ...c.session.userDataInJWT, iss: 'https://api.example.com' } } });
      // With checkDatabase the stored payload differs (no `iss`): a v5 token carrying it is minted.
      const checked = (await verify(made.json.jwt, { checkDatabase: true })).json;
      expect([checked.status, checked.session.handle, decodeProtectedHeader(checked.accessToken.token).version]).toEqual(['OK', c.session.handle, '5']);
    }
  });

  it('checks the anti-CSRF token when asked, and the database when asked', async () => {
    const c = await create({ enableAntiCsrf: true });
    expect(c.antiCsrfToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(decodeJwt(c.accessToken.token).antiCsrfToken).toBe(c.antiCsrfToken);
    const check = { doAntiCsrfCheck: true, enableAntiCsrf: true };
    expect((await verify(c.accessToken.token, { ...check, antiCsrfToken: c.antiCsrfToken })).json.status).toBe('OK');
    expect((await verify(c.accessToken.token, { ...check, antiCsrfToken: 'wrong' })).json).toEqual({
      status: 'TRY_REFRESH_TOKEN',
      message: 'anti-csrf check failed',
    });
    expect((await verify(c.accessToken.token, check)).json.status).toBe('TRY_REFRESH_TOKEN');
    const plain = await create();
    expect((await verify(plain.accessToken.token, { ...check, antiCsrfToken: 'x' })).json.status).toBe('TRY_REFRESH_TOKEN');

    expect((await verify(c.accessToken.token, { checkDatabase: true })).json.status).toBe('OK');
    expect((await api.post('/recipe/session/remove', { sessionHandles: [c.session.handle] })).json).toEqual({
      status: 'OK',
      sessionHandlesRevoked: [c.session.handle],
    });
    expect((await verify(c.accessToken.token)).json.status).toBe('OK');
    expect((await verify(c.accessToken.token, { checkDatabase: true })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Either the session has ended or has been blacklisted',
    });
  });

  it('with checkDatabase, answers a new token carrying the stored payload when it changed', async () => {
    const c = await create();
    expect((await api.put('/recipe/jwt/data', { sessionHandle: c.session.handle, userDataInJWT: { role: 'b' } })).json).toEqual({ status: 'OK' });
    expect((await verify(c.accessToken.token)).json.accessToken).toBeUndefined();
    const res = await verify(c.accessToken.token, { checkDatabase: true });
    expect(res.json.session.userDataInJWT).toEqual({ role: 'b' });
    expect(decodeJwt(res.json.accessToken.token)).toMatchObject({ role: 'b', parentRefreshTokenHash1: null, refreshTokenHash1: sha(c.refreshToken.token) });
  });

  it('refuses missing and mistyped fields by name', async () => {
    const good = { accessToken: 'x', doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: false };
    for (const field of ['accessToken', 'doAntiCsrfCheck', 'enableAntiCsrf', 'checkDatabase']) {
      expectText(await api.post('/recipe/session/verify', { ...good, [field]: undefined }), 400, `Field name '${field}' is invalid in JSON input`);
    }
    expectText(await api.post('/recipe/session/verify', { ...good, checkDatabase: 'true' }), 400, "Field name 'checkDatabase' is invalid in JSON input");
  });
});

describe('refresh and the hash chain', () => {
  it('rotates: refresh, the first verify promotes, the old refresh token is then theft', async () => {
    const c = await create();
    const r1 = (await refresh(c.refreshToken.token)).json;
    expect(r1.status).toBe('OK');
    expect(r1.refreshToken.token).not.toBe(c.refreshToken.token);
    expect(r1.session).toEqual(c.session);
    const at1 = decodeJwt(r1.accessToken.token);
    expect(at1).toMatchObject({ parentRefreshTokenHash1: sha(c.refreshToken.token), refreshTokenHash1: sha(r1.refreshToken.token), role: 'a' });

    // The first use of the new access token promotes its refresh token: a new token without parent.
    const v = (await verify(r1.accessToken.token)).json;
    expect(v.status).toBe('OK');
    expect(decodeJwt(v.accessToken.token)).toMatchObject({ parentRefreshTokenHash1: null, refreshTokenHash1: sha(r1.refreshToken.token) });
    expect((await verify(v.accessToken.token)).json.accessToken).toBeUndefined();
    const info = (await api.get(`/recipe/session?sessionHandle=${c.session.handle}`)).json;
    expect(info.expiry).toBeGreaterThan(c.refreshToken.expiry);

    const theft = (await refresh(c.refreshToken.token)).json;
    expect(theft).toEqual({ status: 'TOKEN_THEFT_DETECTED', session: { handle: c.session.handle, userId: 'user-1', recipeUserId: 'user-1' } });
    // The core leaves revocation to the SDK: the session is still there.
    expect((await api.get(`/recipe/session?sessionHandle=${c.session.handle}`)).json.status).toBe('OK');
    expect((await refresh(r1.refreshToken.token)).json.status).toBe('OK');
  });

  it('answers UNAUTHORISED to the first use after a refresh of a session removed meanwhile', async () => {
    const c = await create();
    const r = (await refresh(c.refreshToken.token)).json;
    await api.post('/recipe/session/remove', { sessionHandles: [c.session.handle] });
    expect((await verify(r.accessToken.token)).json).toEqual({ status: 'UNAUTHORISED', message: 'Session missing in db' });
    expect((await verify(r.accessToken.token, { checkDatabase: true })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Either the session has ended or has been blacklisted',
    });
  });

  it('promotes a child presented to refresh before any verify; a sibling of a promoted child is theft', async () => {
    const c = await create();
    const a = (await refresh(c.refreshToken.token)).json;
    const b = (await refresh(c.refreshToken.token)).json;
    expect([a.status, b.status]).toEqual(['OK', 'OK']);
    expect((await refresh(a.refreshToken.token)).json.status).toBe('OK');
    expect((await refresh(b.refreshToken.token)).json.status).toBe('TOKEN_THEFT_DETECTED');
  });

  it('answers 20 concurrent refreshes of one token all OK, each a child', async () => {
    const c = await create();
    const all = await Promise.all(Array.from({ length: 20 }, () => refresh(c.refreshToken.token)));
    expect(all.map((r) => [r.status, r.json.status])).toEqual(all.map(() => [200, 'OK']));
    expect(new Set(all.map((r) => r.json.refreshToken.token)).size).toBe(20);
    // Each child is promotable; the first to be promoted makes the others theft.
    const promoted = await Promise.all(all.slice(0, 5).map((r) => refresh(r.json.refreshToken.token)));
    expect(promoted.filter((r) => r.json.status === 'OK').length).toBeGreaterThanOrEqual(1);
    expect(promoted.every((r) => r.status === 200 && ['OK', 'TOKEN_THEFT_DETECTED'].includes(r.json.status))).toBe(true);
  });

  it('answers UNAUTHORISED for garbage, revoked sessions and an anti-CSRF mismatch', async () => {
    expect((await refresh('garbage')).json).toEqual({ status: 'UNAUTHORISED', message: 'Invalid refresh token' });
    const c = await create({ enableAntiCsrf: true });
    const [body] = c.refreshToken.token.split('.');
    expect((await refresh(`${body.slice(0, -2)}AA.V2`)).json.status).toBe('UNAUTHORISED');
    expect((await refresh(c.refreshToken.token, { enableAntiCsrf: true, antiCsrfToken: 'wrong' })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Anti CSRF token missing, or not matching',
    });
    const ok = (await refresh(c.refreshToken.token, { enableAntiCsrf: true, antiCsrfToken: c.antiCsrfToken })).json;
    expect(ok.antiCsrfToken).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok.antiCsrfToken).not.toBe(c.antiCsrfToken);
    await api.post('/recipe/session/remove', { sessionHandles: [c.session.handle] });
    expect((await refresh(ok.refreshToken.token, { enableAntiCsrf: true, antiCsrfToken: ok.antiCsrfToken })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Session missing in db or has expired',
    });
    expectText(
      await api.post('/recipe/session/refresh', { refreshToken: 'x', enableAntiCsrf: false }),
      400,
      "Field name 'useDynamicSigningKey' is invalid in JSON input",
    );
  });

  it('signs with the static key when asked, and remembers it', async () => {
    const c = await create({ useDynamicSigningKey: false });
    expect(decodeProtectedHeader(c.accessToken.token).kid).toMatch(/^s-[0-9a-f-]{36}$/);
    const r = (await refresh(c.refreshToken.token, { useDynamicSigningKey: false })).json;
    expect(decodeProtectedHeader(r.accessToken.token).kid).toMatch(/^s-/);
    const v = (await verify(r.accessToken.token)).json;
    expect(decodeProtectedHeader(v.accessToken.token).kid).toMatch(/^s-/);
  });
});

describe('regenerate, data and information', () => {
  it('regenerates with the same expiry and hashes and a new payload; protected claims are the 400', async () => {
    const c = await create();
    const res = (await api.post('/recipe/session/regenerate', { accessToken: c.accessToken.token, userDataInJWT: { role: 'z' } })).json;
    expect(res.session).toEqual({ ...c.session, userDataInJWT: { role: 'z' } });
    const before = decodeJwt(c.accessToken.token);
    const after = decodeJwt(res.accessToken.token);
    expect(after).toMatchObject({ role: 'z', exp: before.exp, refreshTokenHash1: before.refreshTokenHash1, sessionHandle: c.session.handle });
    expect(res.accessToken.expiry).toBe(c.accessToken.expiry);
    expect((await api.get(`/recipe/session?sessionHandle=${c.session.handle}`)).json.userDataInJWT).toEqual({ role: 'z' });
    expectText(
      await api.post('/recipe/session/regenerate', { accessToken: c.accessToken.token, userDataInJWT: { rsub: 'x' } }),
      400,
      'The user payload contains protected field',
    );
    expect((await api.post('/recipe/session/regenerate', { accessToken: 'garbage' })).json.status).toBe('UNAUTHORISED');
    await api.post('/recipe/session/remove', { sessionHandles: [c.session.handle] });
    expect((await api.post('/recipe/session/regenerate', { accessToken: c.accessToken.token })).json).toEqual({
      status: 'UNAUTHORISED',
      message: 'Session does not exist.',
    });
  });

  it('answers a session by handle, replaces its data and payload, and knows a missing one', async () => {
    const c = await create({}, '/t1');
    const info = (await api.get(`/recipe/session?sessionHandle=${encodeURIComponent(c.session.handle)}`)).json;
    expect(info).toEqual({
      status: 'OK',
      sessionHandle: c.session.handle,
      userId: 'user-1',
      recipeUserId: 'user-1',
      userDataInDatabase: { db: 1 },
      userDataInJWT: { role: 'a' },
      expiry: c.refreshToken.expiry,
      timeCreated: c.refreshToken.createdTime,
      tenantId: 't1',
    });
    expect((await api.put('/recipe/session/data', { sessionHandle: c.session.handle, userDataInDatabase: { x: [1] } })).json).toEqual({ status: 'OK' });
    expect((await api.get(`/recipe/session?sessionHandle=${c.session.handle}`)).json.userDataInDatabase).toEqual({ x: [1] });
    expectText(
      await api.put('/recipe/jwt/data', { sessionHandle: c.session.handle, userDataInJWT: { exp: 1 } }),
      400,
      'The user payload contains protected field',
    );
    const missing = { status: 'UNAUTHORISED', message: 'Session does not exist.' };
    expect((await api.get('/recipe/session?sessionHandle=nope')).json).toEqual(missing);
    expect((await api.put('/recipe/session/data', { sessionHandle: 'nope', userDataInDatabase: {} })).json).toEqual(missing);
    expect((await api.put('/recipe/jwt/data', { sessionHandle: 'nope', userDataInJWT: {} })).json).toEqual(missing);
    expectText(await api.get('/recipe/session'), 400, "Field name 'sessionHandle' is missing in GET request");
    expectText(await api.put('/recipe/session/data', { sessionHandle: 'x' }), 400, "Field name 'userDataInDatabase' is invalid in JSON input");
  });

  it('takes the tenant from the handle, as the core: one that does not exist is the 400, and nothing changes', async () => {
    const notFound = 'AppId or tenantId not found';
    // A tenant that never existed, one that is no tenant id, and a session whose tenant was removed since.
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'gone' })).json.status).toBe('OK');
    const inGone = await create({}, '/gone');
    expect((await api.post('/recipe/multitenancy/tenant/remove', { tenantId: 'gone' })).json).toEqual({ status: 'OK', didExist: true });
    const kept = await create();
    for (const handle of ['00000000-0000-4000-8000-000000000000_nope', 'abc_NOT!A!TENANT', inGone.session.handle]) {
      expectText(await api.get(`/recipe/session?sessionHandle=${encodeURIComponent(handle)}`), 400, notFound);
      expectText(await api.put('/recipe/session/data', { sessionHandle: handle, userDataInDatabase: { x: 1 } }), 400, notFound);
      expectText(await api.put('/recipe/jwt/data', { sessionHandle: handle, userDataInJWT: { x: 1 } }), 400, notFound);
      // One handle of a missing tenant refuses the whole removal: the others stay.
      expectText(await api.post('/recipe/session/remove', { sessionHandles: [kept.session.handle, handle] }), 400, notFound);
    }
    expect((await api.get(`/recipe/session?sessionHandle=${kept.session.handle}`)).json.status).toBe('OK');
    // Re-created, the tenant finds its session again, untouched.
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'gone' })).json.createdNew).toBe(true);
    const back = (await api.get(`/recipe/session?sessionHandle=${inGone.session.handle}`)).json;
    expect([back.status, back.tenantId, back.userDataInDatabase]).toEqual(['OK', 'gone', { db: 1 }]);
    // A handle without a tenant, or with `public`'s, is public's: a missing session is UNAUTHORISED.
    for (const handle of ['nope', 'nope_', 'nope_public']) {
      expect((await api.get(`/recipe/session?sessionHandle=${handle}`)).json).toEqual({ status: 'UNAUTHORISED', message: 'Session does not exist.' });
    }
    expect(
      (await api.post('/recipe/session/remove', { sessionHandles: [kept.session.handle, inGone.session.handle] })).json.sessionHandlesRevoked.sort(),
    ).toEqual([kept.session.handle, inGone.session.handle].sort());
  });
});

describe('remove and a user’s sessions', () => {
  it('lists and revokes by user, per tenant or across, with linked accounts, and answers only handles that existed', async () => {
    const ep = (email: string) => api.post('/recipe/signup', { email, password: 'password-123' });
    const a = (await ep('owner@example.com')).json.user;
    const b = (await ep('other-login@example.com')).json.user;
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: a.id });
    await api.post('/recipe/accountlinking/user/link', { recipeUserId: b.id, primaryUserId: a.id });
    const pub = await create({ userId: a.id });
    const inT1 = await create({ userId: a.id }, '/t1');
    const linked = await create({ userId: b.id });
    const handles = (q: string, t = '') => api.get(`${t}/recipe/session/user?userId=${a.id}${q}`).then((r) => r.json.sessionHandles.sort());
    expect(await handles('')).toEqual([pub, inT1, linked].map((c) => c.session.handle).sort());
    expect(await handles('&fetchSessionsForAllLinkedAccounts=false')).toEqual([pub, inT1].map((c) => c.session.handle).sort());
    expect(await handles('&fetchAcrossAllTenants=false', '/t1')).toEqual(
      [inT1, linked]
        .map((c) => c.session.handle)
        .filter((h) => h.endsWith('_t1'))
        .sort(),
    );
    expectText(await api.get(`/t1/recipe/session/user?userId=${a.id}`), 403, 'Only public tenantId can call this app specific API');

    const revoked = (await api.post('/t1/recipe/session/remove', { userId: a.id, revokeAcrossAllTenants: false })).json;
    expect(revoked).toEqual({ status: 'OK', sessionHandlesRevoked: [inT1.session.handle] });
    expectText(await api.post('/t1/recipe/session/remove', { userId: a.id }), 403, 'Only public tenantId can call this app specific API');
    const rest = (await api.post('/recipe/session/remove', { userId: a.id })).json;
    expect(rest.sessionHandlesRevoked.sort()).toEqual([pub, linked].map((c) => c.session.handle).sort());
    expect((await api.post('/recipe/session/remove', { sessionHandles: [pub.session.handle, 'never'] })).json).toEqual({
      status: 'OK',
      sessionHandlesRevoked: [],
    });
    expect(await handles('')).toEqual([]);
  });

  it('refuses a body that is neither or both forms, and flags without a user id', async () => {
    expectText(await api.post('/recipe/session/remove', {}), 400, 'Invalid JSON input - use one of userId or sessionHandles array');
    expectText(
      await api.post('/recipe/session/remove', { userId: 'u', sessionHandles: [] }),
      400,
      'Invalid JSON input - use one of userId or sessionHandles array',
    );
    expectText(
      await api.post('/recipe/session/remove', { sessionHandles: [], revokeAcrossAllTenants: true }),
      400,
      'Invalid JSON input - revokeAcrossAllTenants can only be set if userId is set',
    );
    expectText(
      await api.post('/recipe/session/remove', { sessionHandles: [], revokeSessionsForLinkedAccounts: false }),
      400,
      'Invalid JSON input - revokeSessionsForLinkedAccounts can only be set if userId is set',
    );
    expectText(await api.post('/recipe/session/remove', { sessionHandles: 'h' }), 400, "Field name 'sessionHandles' is invalid in JSON input");
    expectText(await api.get('/recipe/session/user'), 400, "Field name 'userId' is missing in GET request");
  });
});

describe('sessions follow their users', () => {
  const exists = async (c: Created) => (await api.get(`/recipe/session?sessionHandle=${encodeURIComponent(c.session.handle)}`)).json.status === 'OK';

  it("linking revokes the newly linked login method's sessions, unlinking the unlinked one's; the primary user's stay", async () => {
    const ep = (email: string) => api.post('/recipe/signup', { email, password: 'password-123' }).then((r) => r.json.user);
    const a = await ep('follow-primary@example.com');
    const b = await ep('follow-linked@example.com');
    expect((await api.post('/recipe/userid/map', { superTokensUserId: b.id, externalUserId: 'ext-follow-b' })).json.status).toBe('OK');
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: a.id });
    const ofA = await create({ userId: a.id });
    const ofB = await create({ userId: 'ext-follow-b' });
    const ofBInT1 = await create({ userId: 'ext-follow-b' }, '/t1');
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: b.id, primaryUserId: a.id })).json.status).toBe('OK');
    expect([await exists(ofA), await exists(ofB), await exists(ofBInT1)]).toEqual([true, false, false]);
    const linkedSession = await create({ userId: 'ext-follow-b' });
    expect(linkedSession.session.userId).toBe(a.id);
    expect((await api.post('/recipe/accountlinking/user/unlink', { recipeUserId: b.id })).json.status).toBe('OK');
    expect([await exists(ofA), await exists(linkedSession)]).toEqual([true, false]);
  });

  it("removing a user removes its login methods' sessions in every tenant, and only theirs", async () => {
    const ep = (email: string) => api.post('/recipe/signup', { email, password: 'password-123' }).then((r) => r.json.user);
    const gone = await ep('follow-gone@example.com');
    const stays = await ep('follow-stays@example.com');
    const s1 = await create({ userId: gone.id });
    const s2 = await create({ userId: gone.id }, '/t1');
    const s3 = await create({ userId: stays.id });
    expect((await api.post('/user/remove', { userId: gone.id })).json).toEqual({ status: 'OK', didUserExist: true });
    expect([await exists(s1), await exists(s2), await exists(s3)]).toEqual([false, false, true]);
    // Sessions of an id no user has (the core does not check existence) go with a removal of that id.
    const orphan = await create({ userId: 'no-such-user' });
    expect((await api.post('/user/remove', { userId: 'no-such-user' })).json).toEqual({ status: 'OK', didUserExist: false });
    expect(await exists(orphan)).toBe(false);
  });
});

describe('JWKS and POST /recipe/jwt', () => {
  it('publishes the keys without an API key, with the core’s Cache-Control, and they verify the tokens', async () => {
    const c = await create();
    const res = await api.request('GET', '/.well-known/jwks.json', { apiKey: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toMatch(/^max-age=\d+, must-revalidate$/);
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThanOrEqual(1);
    expect(maxAge).toBeLessThanOrEqual(168 * 3600);
    expect(Object.keys(res.json)).toEqual(['keys']);
    const kids = res.json.keys.map((k: { kid: string }) => k.kid);
    expect(kids[0]).toMatch(/^d-/);
    expect(kids.at(-1)).toMatch(/^s-/);
    expect(new Set(kids).size).toBe(kids.length);
    for (const k of res.json.keys) expect(Object.keys(k).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    for (const k of res.json.keys) expect(k).toMatchObject({ kty: 'RSA', e: 'AQAB', alg: 'RS256', use: 'sig' });
    for (const k of res.json.keys) expect(Buffer.from(k.n, 'base64url').length).toBe(256);
    const { payload } = await compactVerify(c.accessToken.token, createLocalJWKSet(res.json));
    expect(JSON.parse(Buffer.from(payload).toString()).sessionHandle).toBe(c.session.handle);
    expect(JSON.stringify(res.json)).not.toMatch(/"d"|"p"|"q"|PRIVATE/);

    const old = (await api.get('/recipe/jwt/jwks')).json;
    expect(old).toEqual({ keys: res.json.keys, status: 'OK' });
    expectText(await api.get('/t1/recipe/jwt/jwks'), 403, 'Only public tenantId can call this app specific API');
  });

  it('signs a JWT as the core: static key by default, iss from jwksDomain, exp = iat + validity', async () => {
    const res = (await api.post('/recipe/jwt', { algorithm: 'rs256', jwksDomain: 'https://api.example.com', payload: { a: 1 }, validity: 100 })).json;
    expect(res.status).toBe('OK');
    expect(decodeProtectedHeader(res.jwt)).toEqual({ alg: 'RS256', typ: 'JWT', kid: expect.stringMatching(/^s-/) });
    const claims = decodeJwt(res.jwt);
    expect(claims).toMatchObject({ a: 1, iss: 'https://api.example.com' });
    expect((claims.exp as number) - (claims.iat as number)).toBe(100);
    const jwks = createLocalJWKSet((await api.get('/.well-known/jwks.json')).json);
    await expect(compactVerify(res.jwt, jwks)).resolves.toBeDefined();
    const dyn = (await api.post('/recipe/jwt', { algorithm: 'RS256', jwksDomain: 'd', payload: { iss: 'mine' }, validity: 5, useStaticSigningKey: false }))
      .json;
    expect(decodeProtectedHeader(dyn.jwt).kid).toMatch(/^d-/);
    expect(decodeJwt(dyn.jwt).iss).toBe('mine');
    expect((await api.post('/recipe/jwt', { algorithm: 'HS256', jwksDomain: 'd', payload: {}, validity: 5 })).json).toEqual({
      status: 'UNSUPPORTED_ALGORITHM_ERROR',
    });
    expectText(
      await api.post('/recipe/jwt', { algorithm: 'RS256', jwksDomain: 'd', payload: {}, validity: 0 }),
      400,
      'validity must be greater than or equal to 0',
    );
    expectText(await api.post('/recipe/jwt', { algorithm: 'RS256', jwksDomain: 'd', payload: {} }), 400, "Field name 'validity' is invalid in JSON input");
    expectText(
      await api.post('/t1/recipe/jwt', { algorithm: 'RS256', jwksDomain: 'd', payload: {}, validity: 5 }),
      403,
      'Only public tenantId can call this app specific API',
    );
  });
});

describe('secrets', () => {
  it('never writes a token, a refresh token or a private key to the log', async () => {
    const c = await create({ enableAntiCsrf: true });
    const r = (await refresh(c.refreshToken.token, { enableAntiCsrf: true, antiCsrfToken: c.antiCsrfToken })).json;
    await verify(r.accessToken.token);
    await api.post('/recipe/jwt', { algorithm: 'RS256', jwksDomain: 'd', payload: {}, validity: 5 });
    await api.logLine((l) => l.includes('session-verify'));
    const logs = api.logs.join('\n');
    for (const secret of [c.accessToken.token, c.refreshToken.token, r.refreshToken.token, r.accessToken.token.split('.')[2], c.antiCsrfToken ?? 'none']) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toMatch(/PRIVATE KEY|BEGIN/);
  });
});
