import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionExchangeFromEnv } from '../../lib/config/session-exchange-issuers';
import { exchangeToken, IDEMPOTENCY_WINDOW_MS } from '../../lib/session-exchange/exchange';
import { createDynamoContext } from '../../lib/storage/dynamo';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { testDynamoClient } from '../support/table';
import { startApi, type TestApi } from '../support/api';
import { ecSigner, importMappedUser, rsaSigner, signToken, type Signer } from '../support/key-server';
import { BCRYPT } from '../support/linking';

/**
 * SPEC §19 against the local server and a loopback key server this suite runs: a JWKS per issuer
 * and a Firebase-style x509 map (a self-signed certificate made with the openssl CLI), each
 * changeable (rotation) and able to fail (outage).
 */

const EXCHANGE = '/recipe/migration/session/exchange';
const PROJECT = 'proj-1';
const FB_ISS = `https://securetoken.google.com/${PROJECT}`;
const A0_ISS = 'https://acme.auth0.test/';
const OIDC_ISS = 'https://id.example.test';
const SECRET = 'a-shared-hs256-secret-of-at-least-32-characters';

/** A self-signed certificate and its key, as Google publishes Firebase's (only its public key is used). */
function certSigner(kid: string): Signer & { pem: string } {
  const dir = mkdtempSync(join(tmpdir(), 'exchange-cert-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-subj', '/CN=test', '-days', '1'],
      {
        stdio: 'ignore',
      },
    );
    const privateKey = createPrivateKey(readFileSync(join(dir, 'k.pem'), 'utf8'));
    return { kid, alg: 'RS256', privateKey, publicKey: createPublicKey(privateKey), jwk: {}, pem: readFileSync(join(dir, 'c.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The key server: what each path serves, whether it is down, and how often each was fetched. */
const served: Record<string, unknown> = {};
const down = new Set<string>();
const fetches: Record<string, number> = {};
let keyServer: Server;
let keyBase: string;

const now = () => Math.floor(Date.now() / 1000);
const tokens: string[] = [];

async function sign(...args: Parameters<typeof signToken>): Promise<string> {
  const token = await signToken(...args);
  tokens.push(token);
  return token;
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * `"<token> <other>"`: the token, and the same token with another last character of its signature
 * that differs only in bits base64url leaves unused (4 of an RSA-2048 or ES256 signature's 6, 2 of
 * HS256's), so it decodes to the same bytes.
 */
function lowBits(token: string): string {
  const unused = ((token.length - token.lastIndexOf('.') - 1) * 6) % 8;
  const last = B64URL.indexOf(token.slice(-1));
  const mask = (1 << unused) - 1;
  const other = `${token.slice(0, -1)}${B64URL[(last & ~mask) | ((last + 1) & mask)]}`;
  return `${token} ${other}`;
}

/** The order of P-256: an ES256 signature `r || s` verifies as `r || n - s` too. */
const P256_N = BigInt('0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551');

/** `"<token> <other>"`: an ES256 token, and the same token with `s` replaced by `n - s`. */
function highS(token: string): string {
  const dot = token.lastIndexOf('.');
  const sig = Buffer.from(token.slice(dot + 1), 'base64url');
  const s = BigInt(`0x${sig.subarray(32).toString('hex')}`);
  const flipped = Buffer.from((P256_N - s).toString(16).padStart(64, '0'), 'hex');
  return `${token} ${token.slice(0, dot + 1)}${Buffer.concat([sig.subarray(0, 32), flipped]).toString('base64url')}`;
}

let api: TestApi;
let fb: Signer & { pem: string };
let a0: Signer;
let a0Next: Signer;
let oidc: Signer;
let inline: Signer;
let cool: Signer;
let outage: Signer;
let cognito: Signer;
const COGNITO_ISS = 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Test';
const T1 = `t${randomUUID().slice(0, 8)}`;

const importUser = (externalUserId: string): Promise<string> => importMappedUser(api, externalUserId);

const exchange = (body: unknown, headers: Record<string, string> = {}, tenant = '') => api.request('POST', `${tenant}${EXCHANGE}`, { body, headers });

function fbClaims(sub: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const t = now();
  // Firebase tokens have no jti: two of one second differ here by their `auth_time`'s random part.
  const authTime = t - 100 - Math.floor(Math.random() * 1000);
  return {
    iss: FB_ISS,
    aud: PROJECT,
    sub,
    user_id: sub,
    iat: t - 10,
    exp: t + 3600,
    auth_time: authTime,
    firebase: { sign_in_provider: 'google.com' },
    ...extra,
  };
}
function a0Claims(sub: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const t = now();
  return { iss: A0_ISS, aud: 'client-1', sub, iat: t - 10, exp: t + 3600, jti: randomUUID(), ...extra };
}
function oidcClaims(iss: string, sub: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const t = now();
  return { iss, aud: 'app', sub, iat: t - 10, exp: t + 3600, jti: randomUUID(), ...extra };
}

beforeAll(async () => {
  fb = certSigner('fb-1');
  a0 = rsaSigner('a0-1');
  a0Next = rsaSigner('a0-2');
  oidc = ecSigner('ec-1');
  inline = rsaSigner('in-1');
  cool = rsaSigner('cool-1');
  outage = rsaSigner('out-1');
  cognito = rsaSigner('cog-1');
  served['/cognito'] = { keys: [cognito.jwk] };
  served['/x509'] = { [fb.kid]: fb.pem };
  served['/a0'] = { keys: [a0.jwk] };
  served['/oidc'] = { keys: [oidc.jwk] };
  served['/cool'] = { keys: [cool.jwk] };
  served['/outage'] = { keys: [outage.jwk] };
  keyServer = createServer((req, res) => {
    const path = req.url ?? '';
    fetches[path] = (fetches[path] ?? 0) + 1;
    if (path === '/hang') return; // never answers: the 5 s timeout
    if (down.has(path) || !(path in served)) {
      res.writeHead(503).end('down');
      return;
    }
    const body = served[path];
    res.writeHead(200, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((r) => keyServer.listen(0, '127.0.0.1', r));
  keyBase = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}`;
  const issuers = [
    { id: 'fb', preset: 'firebase', projectId: PROJECT, x509Uri: `${keyBase}/x509`, keyRefetchCooldownSeconds: 0 },
    { id: 'a0', preset: 'auth0', domain: 'acme.auth0.test', audience: ['client-1'], jwksUri: `${keyBase}/a0`, keyRefetchCooldownSeconds: 0 },
    { id: 'oidc', preset: 'oidc', issuer: OIDC_ISS, audiences: ['app'], jwksUri: `${keyBase}/oidc`, algorithms: ['ES256'], maxTokenAgeSeconds: 3600 },
    { id: 'hs', preset: 'oidc', issuer: 'https://hs.example.test', audiences: ['app'], secret: SECRET },
    { id: 'inline', preset: 'oidc', issuer: 'https://inline.example.test', audiences: ['app'], jwks: { keys: [inline.jwk] } },
    {
      id: 'closed',
      preset: 'oidc',
      issuer: 'https://closed.example.test',
      audiences: ['app'],
      jwksUri: `${keyBase}/oidc`,
      acceptUntil: '2020-01-01T00:00:00Z',
    },
    { id: 'cool', preset: 'oidc', issuer: 'https://cool.example.test', audiences: ['app'], jwksUri: `${keyBase}/cool` },
    { id: 'outage', preset: 'oidc', issuer: 'https://outage.example.test', audiences: ['app'], jwksUri: `${keyBase}/outage` },
    { id: 'cookie', preset: 'firebase-session-cookie', projectId: PROJECT, x509Uri: `${keyBase}/x509` },
    { id: 'cog', preset: 'cognito', region: 'eu-west-1', userPoolId: 'eu-west-1_Test', clientId: 'cog-client', tokenUse: 'any', jwksUri: `${keyBase}/cognito` },
    // A pool with two app clients (web and mobile): `audiences` overrides the one `clientId`.
    {
      id: 'cog2',
      preset: 'cognito',
      region: 'eu-west-1',
      userPoolId: 'eu-west-1_Two',
      clientId: 'web',
      audiences: ['web', 'mobile'],
      tokenUse: 'any',
      jwksUri: `${keyBase}/cognito`,
    },
    { id: 'emu', preset: 'firebase-emulator', projectId: 'demo-x' },
    { id: 'hang', preset: 'oidc', issuer: 'https://hang.example.test', audiences: ['app'], jwksUri: `${keyBase}/hang` },
    ...moreIssuers(keyBase),
  ];
  api = await startApi({ SESSION_EXCHANGE_ISSUERS: JSON.stringify(issuers), SESSION_EXCHANGE_ALLOW_EMULATOR: '1' });
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: T1 })).json.status).toBe('OK');
});

afterAll(async () => {
  await api?.stop();
  keyServer?.closeAllConnections();
  await new Promise((r) => keyServer?.close(r));
});

describe('POST /recipe/migration/session/exchange (SPEC §19)', () => {
  it('exchanges a Firebase ID token (x509 keys) once: the user, ids, authTime in ms and signInProvider', async () => {
    const ext = `fb-${randomUUID()}`;
    const stId = await importUser(ext);
    const claims = fbClaims(ext);
    const token = await sign(fb, claims);
    const res = await exchange({ token });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      status: 'OK',
      recipeUserId: ext,
      externalUserId: ext,
      tenantId: 'public',
      issuer: 'fb',
      authTime: (claims.auth_time as number) * 1000,
      signInProvider: 'google.com',
    });
    expect(res.json.user.id).toBe(ext);
    expect(res.json.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toContain(ext);
    expect(res.text).not.toContain(token);
    expect(stId).not.toBe(ext);
    expect((await exchange({ token })).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
    // Naming the issuer by id works the same.
    const again = await sign(fb, fbClaims(ext, { firebase: { sign_in_provider: 'password' } }));
    expect((await exchange({ token: again, issuer: 'fb' })).json).toMatchObject({ status: 'OK', signInProvider: 'password' });
  });

  it("exchanges Auth0 (JWKS, RS256) only with the trailing '/' of its iss", async () => {
    const ext = `auth0|${randomUUID()}`;
    await importUser(ext);
    const ok = await exchange({ token: await sign(a0, a0Claims(ext)) });
    expect(ok.json).toMatchObject({ status: 'OK', externalUserId: ext, issuer: 'a0' });
    expect(ok.json.authTime).toBeUndefined();
    expect(ok.json.signInProvider).toBeUndefined();
    expect((await exchange({ token: await sign(a0, a0Claims(ext, { iss: 'https://acme.auth0.test' })) })).json).toEqual({ status: 'UNKNOWN_ISSUER_ERROR' });
  });

  it('exchanges EC P-256 (ES256), HS256 with the inline secret and an inline JWKS', async () => {
    const ext = `o-${randomUUID()}`;
    await importUser(ext);
    expect((await exchange({ token: await sign(oidc, oidcClaims(OIDC_ISS, ext)) })).json).toMatchObject({ status: 'OK', issuer: 'oidc' });
    expect((await exchange({ token: await sign({ alg: 'HS256', secret: SECRET }, oidcClaims('https://hs.example.test', ext)) })).json).toMatchObject({
      status: 'OK',
      issuer: 'hs',
    });
    expect((await exchange({ token: await sign(inline, oidcClaims('https://inline.example.test', ext)) })).json).toMatchObject({
      status: 'OK',
      issuer: 'inline',
    });
  });

  it('exchanges Firebase session cookies, Cognito ID and access tokens, and unsigned emulator tokens', async () => {
    const ext = `p-${randomUUID()}`;
    await importUser(ext);
    const cookie = await sign(fb, fbClaims(ext, { iss: `https://session.firebase.google.com/${PROJECT}`, firebase: { sign_in_provider: 'password' } }));
    expect((await exchange({ token: cookie })).json).toMatchObject({ status: 'OK', issuer: 'cookie', signInProvider: 'password' });
    const t = now();
    const cog = { iss: COGNITO_ISS, sub: ext, iat: t - 10, exp: t + 3600, jti: randomUUID() };
    expect((await exchange({ token: await sign(cognito, { ...cog, aud: 'cog-client', token_use: 'id' }) })).json).toMatchObject({
      status: 'OK',
      issuer: 'cog',
    });
    expect((await exchange({ token: await sign(cognito, { ...cog, jti: randomUUID(), client_id: 'cog-client', token_use: 'access' }) })).json).toMatchObject({
      status: 'OK',
    });
    expect((await exchange({ token: await sign(cognito, { ...cog, jti: randomUUID(), aud: 'cog-client', token_use: 'access' }) })).json).toEqual({
      status: 'INVALID_TOKEN_ERROR',
      reason: "The token's audience is not accepted",
    });
    const cog2 = { ...cog, iss: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Two' };
    for (const [claims, answer] of [
      [
        { aud: 'mobile', token_use: 'id' },
        { status: 'OK', issuer: 'cog2' },
      ],
      [
        { client_id: 'mobile', token_use: 'access' },
        { status: 'OK', issuer: 'cog2' },
      ],
      [
        { aud: 'cog-client', token_use: 'id' },
        { status: 'INVALID_TOKEN_ERROR', reason: "The token's audience is not accepted" },
      ],
      [
        { client_id: 'cog-client', token_use: 'access' },
        { status: 'INVALID_TOKEN_ERROR', reason: "The token's audience is not accepted" },
      ],
    ] as const) {
      expect((await exchange({ token: await sign(cognito, { ...cog2, ...claims, jti: randomUUID() }) })).json).toMatchObject(answer);
    }
    const emu = { iss: 'https://securetoken.google.com/demo-x', aud: 'demo-x', sub: ext, iat: t - 10, exp: t + 3600, firebase: { sign_in_provider: 'phone' } };
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(emu)}.`;
    tokens.push(unsigned);
    expect((await exchange({ token: unsigned })).json).toMatchObject({ status: 'OK', issuer: 'emu', signInProvider: 'phone' });
    const emuCookie = `${b64({ alg: 'none' })}.${b64({ ...emu, iss: 'https://session.firebase.google.com/demo-x' })}.`;
    expect((await exchange({ token: emuCookie })).json).toMatchObject({ status: 'OK', issuer: 'emu' });
    expect((await exchange({ token: `${b64({ alg: 'none' })}.${b64({ ...emu, jti: 1 })}.c2ln` })).json).toEqual({
      status: 'INVALID_TOKEN_ERROR',
      reason: "The token's signature is invalid",
    });
    expect((await exchange({ token: await sign(a0, { ...emu, jti: 2 }) })).json).toEqual({
      status: 'INVALID_TOKEN_ERROR',
      reason: "The token's algorithm is not accepted",
    });
  });

  it('answers the primary user of a linked login method, with the login method as recipeUserId', async () => {
    const primary = `lp-${randomUUID()}`;
    const linked = `ll-${randomUUID()}`;
    await importUser(primary);
    await importUser(linked);
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: primary })).json.status).toBe('OK');
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: linked, primaryUserId: primary })).json.status).toBe('OK');
    const res = await exchange({ token: await sign(a0, a0Claims(linked)) });
    expect(res.json).toMatchObject({ status: 'OK', recipeUserId: linked, externalUserId: linked });
    expect(res.json.user.id).toBe(primary);
    expect(res.json.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId).sort()).toEqual([linked, primary].sort());
  });

  it('answers every INVALID_TOKEN_ERROR reason in the order of checks', async () => {
    const ext = `r-${randomUUID()}`;
    await importUser(ext);
    const t = now();
    const reason = async (token: string, issuer?: string) => {
      const res = await exchange(issuer ? { token, issuer } : { token });
      expect(res.status).toBe(200);
      expect(res.json.status).toBe('INVALID_TOKEN_ERROR');
      return res.json.reason as string;
    };
    expect(await reason('not-a-jwt')).toBe('The token is not a well-formed JWT');
    expect(await reason('a.b.c')).toBe('The token is not a well-formed JWT');
    expect(await reason(`${b64({ alg: 'RS256' })}.${b64([1])}.x`)).toBe('The token is not a well-formed JWT');
    expect(await reason(await sign(fb, fbClaims(ext)), 'a0')).toBe("The token's issuer is not accepted");
    expect(await reason(await sign({ alg: 'HS256', secret: SECRET, kid: a0.kid }, a0Claims(ext)))).toBe("The token's algorithm is not accepted");
    expect(await reason(`${b64({ alg: 'none' })}.${b64(fbClaims(ext))}.`)).toBe("The token's algorithm is not accepted");
    const forged = rsaSigner(fb.kid);
    expect(await reason(await sign(forged, fbClaims(ext)))).toBe("The token's signature is invalid");
    expect(await reason(await sign({ ...forged, kid: '' }, fbClaims(ext), { kid: undefined }))).toBe("The token's signature is invalid");
    expect(await reason(await sign({ ...a0, kid: 'nobody' }, a0Claims(ext)))).toBe("The token's key is unknown");
    expect(await reason(await sign(fb, fbClaims(ext, { exp: t - 120 })))).toBe('The token has expired');
    expect(await reason(await sign(fb, fbClaims(ext, { exp: undefined })))).toBe('The token has expired');
    expect(await reason(await sign(fb, fbClaims(ext, { nbf: t + 120 })))).toBe('The token is not valid yet');
    expect(await reason(await sign(fb, fbClaims(ext, { iat: t + 120 })))).toBe('The token is not valid yet');
    expect(await reason(await sign(fb, fbClaims(ext, { auth_time: t + 120 })))).toBe('The token is not valid yet');
    expect(await reason(await sign(fb, fbClaims(ext, { aud: 'other-project' })))).toBe("The token's audience is not accepted");
    expect(await reason(await sign(fb, fbClaims(ext, { sub: undefined })))).toBe('The token has no usable subject');
    expect(await reason(await sign(fb, fbClaims(ext, { sub: 'x'.repeat(129) })))).toBe('The token has no usable subject');
    expect(await reason(await sign(oidc, oidcClaims(OIDC_ISS, ext, { iat: t - 4000 })))).toBe('The token is too old');
    // Within the 60 s skew an expired token still passes.
    expect((await exchange({ token: await sign(fb, fbClaims(ext, { exp: t - 30 })) })).json.status).toBe('OK');
  });

  it('answers UNKNOWN_ISSUER_ERROR, EXCHANGE_WINDOW_CLOSED_ERROR and UNKNOWN_USER_ERROR', async () => {
    const ext = `u-${randomUUID()}`;
    expect((await exchange({ token: await sign(a0, a0Claims(ext, { iss: 'https://nobody.test/' })) })).json).toEqual({ status: 'UNKNOWN_ISSUER_ERROR' });
    expect((await exchange({ token: await sign(a0, a0Claims(ext)), issuer: 'nope' })).json).toEqual({ status: 'UNKNOWN_ISSUER_ERROR' });
    expect((await exchange({ token: await sign(a0, a0Claims(ext, { iss: undefined })) })).json).toEqual({ status: 'UNKNOWN_ISSUER_ERROR' });
    expect((await exchange({ token: await sign(oidc, oidcClaims('https://closed.example.test', ext)) })).json).toEqual({
      status: 'EXCHANGE_WINDOW_CLOSED_ERROR',
    });
    // Not imported yet: not consumed, so the same token works after the import.
    const token = await sign(a0, a0Claims(ext));
    expect((await exchange({ token })).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    await importUser(ext);
    expect((await exchange({ token }, {}, `/${T1}`)).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    expect((await exchange({ token })).json).toMatchObject({ status: 'OK', tenantId: 'public' });
  });

  it('answers 400 for bad input and an unknown tenant', async () => {
    const token = await sign(a0, a0Claims('x'));
    const bad = async (body: unknown, text: string, headers: Record<string, string> = {}, tenant = '') => {
      const res = await api.request('POST', `${tenant}${EXCHANGE}`, typeof body === 'string' ? { rawBody: body, headers } : { body, headers });
      expect([res.status, res.text]).toEqual([400, text]);
    };
    await bad('[1]', 'Invalid Json Input');
    await bad({}, "Field name 'token' is invalid in JSON input");
    await bad({ token: 5 }, "Field name 'token' is invalid in JSON input");
    await bad({ token: '' }, "Field name 'token' is invalid in JSON input");
    await bad({ token: 'x'.repeat(16385) }, "Field name 'token' is invalid in JSON input");
    await bad({ token, issuer: '' }, "Field name 'issuer' is invalid in JSON input");
    await bad({ token, issuer: 3 }, "Field name 'issuer' is invalid in JSON input");
    await bad({ token }, 'Idempotency-Key must be 1 to 255 visible ASCII characters', { 'idempotency-key': 'a b' });
    await bad({ token }, 'Idempotency-Key must be 1 to 255 visible ASCII characters', { 'idempotency-key': 'k'.repeat(256) });
    await bad({ token }, 'AppId or tenantId not found', {}, '/no-such-tenant');
  });

  it('of 10 concurrent exchanges of one token exactly one answers OK', async () => {
    const ext = `c-${randomUUID()}`;
    await importUser(ext);
    const token = await sign(a0, a0Claims(ext));
    const answers = await Promise.all(Array.from({ length: 10 }, () => exchange({ token })));
    const statuses = answers.map((r) => r.json.status).sort();
    expect(statuses.filter((s) => s === 'OK')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'TOKEN_ALREADY_USED_ERROR')).toHaveLength(9);
  });

  it('takes a token whose signature is spelt another way for the same token: used once', async () => {
    const ext = `m-${randomUUID()}`;
    await importUser(ext);
    const cases: [string, string][] = [
      ['RS256, unused bits', lowBits(await sign(a0, a0Claims(ext)))],
      ['ES256, unused bits', lowBits(await sign(oidc, oidcClaims(OIDC_ISS, ext)))],
      ['ES256, n - s', highS(await sign(oidc, oidcClaims(OIDC_ISS, ext)))],
      ['HS256, unused bits', lowBits(await sign({ alg: 'HS256', secret: SECRET }, oidcClaims('https://hs.example.test', ext)))],
    ];
    for (const [name, [token, other]] of cases.map(([n, pair]) => [n, pair.split(' ')] as const)) {
      expect(other).not.toBe(token);
      // The other spelling verifies: first, it gets the OK; then the token as signed is used.
      expect([name, (await exchange({ token: other })).json.status]).toEqual([name, 'OK']);
      expect([name, (await exchange({ token })).json]).toEqual([name, { status: 'TOKEN_ALREADY_USED_ERROR' }]);
    }
  });

  it('answers the same OK again to the same Idempotency-Key and token, TOKEN_ALREADY_USED_ERROR otherwise', async () => {
    const ext = `i-${randomUUID()}`;
    await importUser(ext);
    const token = await sign(a0, a0Claims(ext));
    const key = { 'idempotency-key': `k-${randomUUID()}` };
    const first = await exchange({ token }, key);
    expect(first.json.status).toBe('OK');
    const replay = await exchange({ token }, key);
    expect(replay.json).toEqual(first.json);
    expect((await exchange({ token }, { 'idempotency-key': 'another-key' })).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
    expect((await exchange({ token })).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
    // The same key with another token is its own exchange.
    expect((await exchange({ token: await sign(a0, a0Claims(ext)) }, key)).json.status).toBe('OK');
    // Racing retries with one key all get the OK.
    const raced = await sign(a0, a0Claims(ext));
    const k2 = { 'idempotency-key': `k-${randomUUID()}` };
    const answers = await Promise.all(Array.from({ length: 5 }, () => exchange({ token: raced }, k2)));
    expect(answers.map((r) => r.json.status)).toEqual(['OK', 'OK', 'OK', 'OK', 'OK']);
  });

  it('refetches the keys for a rotated kid (cooldown 0), not within the cooldown (default 30 s)', async () => {
    const ext = `k-${randomUUID()}`;
    await importUser(ext);
    served['/a0'] = { keys: [a0.jwk, a0Next.jwk] };
    const before = fetches['/a0'] ?? 0;
    expect((await exchange({ token: await sign(a0Next, a0Claims(ext)) })).json.status).toBe('OK');
    expect(fetches['/a0']).toBe(before + 1);
    // Cached now: no fetch for the next token of that kid.
    expect((await exchange({ token: await sign(a0Next, a0Claims(ext)) })).json.status).toBe('OK');
    expect(fetches['/a0']).toBe(before + 1);

    expect((await exchange({ token: await sign(cool, oidcClaims('https://cool.example.test', ext)) })).json.status).toBe('OK');
    const coolFetches = fetches['/cool'];
    const rotated = rsaSigner('cool-2');
    served['/cool'] = { keys: [cool.jwk, rotated.jwk] };
    const res = await exchange({ token: await sign(rotated, oidcClaims('https://cool.example.test', ext)) });
    expect(res.json).toEqual({ status: 'INVALID_TOKEN_ERROR', reason: "The token's key is unknown" });
    expect(fetches['/cool']).toBe(coolFetches);
  });

  it('answers 503 while the keys cannot be fetched, and OK once they can', async () => {
    const ext = `d-${randomUUID()}`;
    await importUser(ext);
    down.add('/outage');
    const token = await sign(outage, oidcClaims('https://outage.example.test', ext));
    const res = await exchange({ token });
    expect([res.status, res.text]).toEqual([503, "The token issuer's keys could not be fetched, try again later"]);
    const line = await api.logLine((l) => l.includes('session exchange keys unavailable'));
    expect(line).toContain('outage');
    expect(line).toContain('HTTP 503');
    down.delete('/outage');
    // Not JSON, then no usable key: 503 too, and nothing kept.
    served['/outage'] = 'not json';
    expect((await exchange({ token })).status).toBe(503);
    served['/outage'] = { keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: outage.kid }] };
    expect((await exchange({ token })).status).toBe(503);
    served['/outage'] = { keys: [outage.jwk] };
    expect((await exchange({ token })).json.status).toBe('OK');
    expect(await api.logLine((l) => l.includes('not JSON') && l.includes('outage'))).toBeDefined();
    expect(await api.logLine((l) => l.includes('no usable key') && l.includes('outage'))).toBeDefined();
  });

  it('answers 503 when the key server does not answer within 5 s', async () => {
    const token = await sign(rsaSigner('h-1'), oidcClaims('https://hang.example.test', 'x'));
    const res = await exchange({ token });
    expect([res.status, res.text]).toEqual([503, "The token issuer's keys could not be fetched, try again later"]);
    expect(await api.logLine((l) => l.includes('timeout') && l.includes('hang'))).toBeDefined();
  });

  it('logs one line per exchange with the issuer and outcome, never a token', async () => {
    const line = await api.logLine((l) => l.includes('session exchange') && l.includes('TOKEN_ALREADY_USED_ERROR'));
    expect(JSON.parse(line as string)).toMatchObject({ message: 'session exchange', issuer: 'fb', outcome: 'TOKEN_ALREADY_USED_ERROR' });

    await api.logLine((l) => l.includes('session exchange'));
    const logs = api.logs.join('\n');
    for (const token of tokens) expect(logs).not.toContain(token.split('.')[2] || token);
  });
});

describe('a malformed SESSION_EXCHANGE_ISSUERS', () => {
  it('refuses the start with one sentence naming the issuer and the field', async () => {
    const issuers = JSON.stringify([{ id: 'emu', preset: 'firebase-emulator', projectId: 'demo-x' }]);
    await expect(startApi({ SESSION_EXCHANGE_ISSUERS: issuers })).rejects.toThrow(
      'SESSION_EXCHANGE_ISSUERS: issuer emu: preset firebase-emulator needs SESSION_EXCHANGE_ALLOW_EMULATOR=1',
    );
  });
});

describe('without SESSION_EXCHANGE_ISSUERS', () => {
  it('answers 400 Session exchange is not configured', async () => {
    const bare = await startApi();
    try {
      const res = await bare.post(EXCHANGE, { token: 'a.b.c' });
      expect([res.status, res.text]).toEqual([400, 'Session exchange is not configured']);
    } finally {
      await bare.stop();
    }
  });
});

/** The signers of the issuers below, made in the suite's `beforeAll` (`moreIssuers`). */
let more: Record<'other' | 'ecFirst' | 'right' | 'claim' | 'skew' | 'ec1' | 'ec2' | 'known' | 'unknown', Signer>;

/** Issuers for the cases below, appended to the suite's: a claim, skews, several keys, an EC rotation, an outage. */
function moreIssuers(base: string): Record<string, unknown>[] {
  more = {
    other: rsaSigner('many-1'),
    ecFirst: ecSigner('many-ec'),
    right: rsaSigner('many-2'),
    claim: rsaSigner('claim-1'),
    skew: rsaSigner('skew-1'),
    ec1: ecSigner('ecrot-1'),
    ec2: ecSigner('ecrot-2'),
    known: rsaSigner('re-1'),
    unknown: rsaSigner('re-2'),
  };
  served['/many'] = { keys: [more.ecFirst.jwk, more.other.jwk, more.right.jwk] };
  served['/ecrot'] = { keys: [more.ec1.jwk] };
  served['/refetch'] = { keys: [more.known.jwk] };
  const oidcIssuer = (id: string, extra: Record<string, unknown>) => ({
    id,
    preset: 'oidc',
    issuer: `https://${id}.example.test`,
    audiences: ['app'],
    ...extra,
  });
  const inlineKeys = (s: Signer) => ({ jwks: { keys: [s.jwk] } });
  return [
    oidcIssuer('many', { jwksUri: `${base}/many`, keyRefetchCooldownSeconds: 0 }),
    oidcIssuer('email-claim', { ...inlineKeys(more.claim), externalIdClaim: 'email' }),
    oidcIssuer('skew0', { ...inlineKeys(more.skew), clockSkewSeconds: 0 }),
    oidcIssuer('skew300', { ...inlineKeys(more.skew), clockSkewSeconds: 300 }),
    oidcIssuer('ecrot', { jwksUri: `${base}/ecrot`, algorithms: ['ES256'], keyRefetchCooldownSeconds: 0 }),
    oidcIssuer('refetch', { jwksUri: `${base}/refetch`, keyRefetchCooldownSeconds: 0 }),
  ];
}

/** Claims for an issuer of `moreIssuers`. */
const moreClaims = (id: string, sub: string, extra: Record<string, unknown> = {}) => oidcClaims(`https://${id}.example.test`, sub, extra);

describe('the session exchange: tenants, claims, skews and keys (SPEC §19)', () => {
  it("exchanges in a tenant the user was imported into, answering that tenant's id, and not in another", async () => {
    const ext = `t-${randomUUID()}`;
    const imported = await api.post(`/${T1}/recipe/user/passwordhash/import`, { email: `${randomUUID()}@example.test`, passwordHash: BCRYPT.hash });
    expect(imported.json.status).toBe('OK');
    expect(imported.json.user.tenantIds).toEqual([T1]);
    expect((await api.post('/recipe/userid/map', { superTokensUserId: imported.json.user.id, externalUserId: ext })).json.status).toBe('OK');
    const token = await sign(a0, a0Claims(ext));
    // Not a user of the public tenant: not consumed there.
    expect((await exchange({ token })).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    const res = await exchange({ token }, {}, `/${T1}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'OK', tenantId: T1, externalUserId: ext, recipeUserId: ext, issuer: 'a0' });
    expect(res.json.user.id).toBe(ext);
    expect(res.json.user.tenantIds).toEqual([T1]);
    expect((await exchange({ token }, {}, `/${T1}`)).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
  });

  it("finds the user by the issuer's externalIdClaim, answers its value, and refuses a token without it", async () => {
    const email = `${randomUUID()}@claim.example.test`;
    const bySub = `s-${randomUUID()}`;
    await importUser(email);
    await importUser(bySub);
    const res = await exchange({ token: await sign(more.claim, moreClaims('email-claim', bySub, { email })) });
    expect(res.json).toMatchObject({ status: 'OK', externalUserId: email, recipeUserId: email, issuer: 'email-claim' });
    expect(res.json.user.id).toBe(email);
    // The sub of an imported user does not count: only the claim does.
    expect((await exchange({ token: await sign(more.claim, moreClaims('email-claim', bySub, { email: 'nobody@claim.example.test' })) })).json).toEqual({
      status: 'UNKNOWN_USER_ERROR',
    });
    expect((await exchange({ token: await sign(more.claim, moreClaims('email-claim', bySub)) })).json).toEqual({
      status: 'INVALID_TOKEN_ERROR',
      reason: 'The token has no usable subject',
    });
    expect((await exchange({ token: await sign(more.claim, moreClaims('email-claim', bySub, { email: 7 })) })).json).toEqual({
      status: 'INVALID_TOKEN_ERROR',
      reason: 'The token has no usable subject',
    });
  });

  it("applies each issuer's clockSkewSeconds to exp and nbf", async () => {
    const ext = `sk-${randomUUID()}`;
    await importUser(ext);
    const t = now();
    const expired = { status: 'INVALID_TOKEN_ERROR', reason: 'The token has expired' };
    // exp 30 s ago: within the default 60 s, not within 0.
    expect((await exchange({ token: await sign(more.skew, moreClaims('skew0', ext, { exp: t - 30 })) })).json).toEqual(expired);
    // exp 120 s ago: past the default 60 s (see above) and 0, within 300.
    expect((await exchange({ token: await sign(more.skew, moreClaims('skew0', ext, { exp: t - 120 })) })).json).toEqual(expired);
    expect((await exchange({ token: await sign(more.skew, moreClaims('skew300', ext, { exp: t - 120 })) })).json).toMatchObject({
      status: 'OK',
      issuer: 'skew300',
    });
    expect((await exchange({ token: await sign(more.skew, moreClaims('skew300', ext, { exp: t - 600 })) })).json).toEqual(expired);
    // nbf 120 s ahead: not yet valid with 0, valid with 300.
    expect((await exchange({ token: await sign(more.skew, moreClaims('skew0', ext, { nbf: t + 120 })) })).json).toEqual({
      status: 'INVALID_TOKEN_ERROR',
      reason: 'The token is not valid yet',
    });
    expect((await exchange({ token: await sign(more.skew, moreClaims('skew300', ext, { nbf: t + 120 })) })).json.status).toBe('OK');
    expect((await exchange({ token: await sign(more.skew, moreClaims('skew0', ext)) })).json.status).toBe('OK');
  });

  it('verifies a token without kid against every key of the issuer, the right one not first, fetching once', async () => {
    const ext = `nk-${randomUUID()}`;
    await importUser(ext);
    const noKid = { kid: undefined };
    expect((await exchange({ token: await sign(more.right, moreClaims('many', ext), noKid) })).json).toMatchObject({ status: 'OK', issuer: 'many' });
    expect((await exchange({ token: await sign(more.other, moreClaims('many', ext), noKid) })).json).toMatchObject({ status: 'OK', issuer: 'many' });
    expect((await exchange({ token: await sign(rsaSigner('stranger'), moreClaims('many', ext), noKid) })).json).toEqual({
      status: 'INVALID_TOKEN_ERROR',
      reason: "The token's signature is invalid",
    });
    // No kid is no unknown kid: never a refetch, whatever the cooldown.
    expect(fetches['/many']).toBe(1);
  });

  it('refetches the JWKS for a rotated EC (ES256) kid', async () => {
    const ext = `ec-${randomUUID()}`;
    await importUser(ext);
    expect((await exchange({ token: await sign(more.ec1, moreClaims('ecrot', ext)) })).json).toMatchObject({ status: 'OK', issuer: 'ecrot' });
    expect(fetches['/ecrot']).toBe(1);
    served['/ecrot'] = { keys: [more.ec1.jwk, more.ec2.jwk] };
    expect((await exchange({ token: await sign(more.ec2, moreClaims('ecrot', ext)) })).json).toMatchObject({ status: 'OK', issuer: 'ecrot' });
    expect(fetches['/ecrot']).toBe(2);
    expect((await exchange({ token: await sign(more.ec1, moreClaims('ecrot', ext)) })).json.status).toBe('OK');
    expect(fetches['/ecrot']).toBe(2);
  });

  it('answers 503, never INVALID_TOKEN_ERROR, when the refetch for an unknown kid fails, and OK once it works', async () => {
    const ext = `rf-${randomUUID()}`;
    await importUser(ext);
    expect((await exchange({ token: await sign(more.known, moreClaims('refetch', ext)) })).json.status).toBe('OK');
    expect(fetches['/refetch']).toBe(1);
    down.add('/refetch');
    const token = await sign(more.unknown, moreClaims('refetch', ext));
    const res = await exchange({ token });
    expect([res.status, res.text]).toEqual([503, "The token issuer's keys could not be fetched, try again later"]);
    expect(fetches['/refetch']).toBe(2);
    // The known kid still verifies from the cache, without a fetch.
    expect((await exchange({ token: await sign(more.known, moreClaims('refetch', ext)) })).json.status).toBe('OK');
    expect(fetches['/refetch']).toBe(2);
    down.delete('/refetch');
    served['/refetch'] = { keys: [more.known.jwk, more.unknown.jwk] };
    expect((await exchange({ token })).json).toMatchObject({ status: 'OK', issuer: 'refetch', externalUserId: ext });
    expect(fetches['/refetch']).toBe(3);
  });

  /** `exchangeToken` itself on the server's table, with a clock the test moves (`at`), and issuers of its own. */
  async function withOwnClock(
    issuers: unknown[],
    fn: (run: (input: Parameters<typeof exchangeToken>[3]) => ReturnType<typeof exchangeToken>, clock: { at: number }) => Promise<void>,
  ) {
    const client = testDynamoClient();
    try {
      const ctx = createDynamoContext(api.tableName, client);
      const clock = { at: Date.now() };
      const deps = { users: new DynamoUserStore(ctx), sessions: new DynamoSessionStore(ctx), clock: { now: () => clock.at } };
      const parsed = sessionExchangeFromEnv({ SESSION_EXCHANGE_ISSUERS: JSON.stringify(issuers) });
      await fn((input) => exchangeToken(deps, parsed, 'public', input), clock);
    } finally {
      client.destroy();
    }
  }

  it('answers TOKEN_ALREADY_USED_ERROR to the Idempotency-Key once its 60 s are over (a clock of its own, on the suite table)', async () => {
    const ext = `ik-${randomUUID()}`;
    await importUser(ext);
    const hs = { id: 'hs', preset: 'oidc', issuer: 'https://hs.example.test', audiences: ['app'], secret: SECRET };
    await withOwnClock([hs], async (run, clock) => {
      const input = {
        token: await sign({ alg: 'HS256', secret: SECRET }, oidcClaims('https://hs.example.test', ext)),
        issuer: undefined,
        idempotencyKey: `k-${randomUUID()}`,
      };
      const first = await run(input);
      expect(first.result).toMatchObject({ status: 'OK', externalUserId: ext, tenantId: 'public', issuer: 'hs' });
      clock.at += IDEMPOTENCY_WINDOW_MS - 1000;
      expect((await run(input)).result).toEqual(first.result);
      clock.at += 2000;
      expect((await run(input)).result).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
      // The server, on the same table, agrees the token is used.
      expect((await exchange({ token: input.token })).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
    });
  });

  it('answers the OK again to its Idempotency-Key within 60 s even once the token has expired or its user is gone', async () => {
    const ext = `ix-${randomUUID()}`;
    const userId = await importUser(ext);
    const hs0 = { id: 'hs', preset: 'oidc', issuer: 'https://hs.example.test', audiences: ['app'], secret: SECRET, clockSkewSeconds: 0 };
    await withOwnClock([hs0], async (run, clock) => {
      // A token with 10 s left when the backend first sends it.
      const token = await sign({ alg: 'HS256', secret: SECRET }, oidcClaims('https://hs.example.test', ext, { exp: Math.floor(clock.at / 1000) + 10 }));
      const input = { token, issuer: undefined, idempotencyKey: `k-${randomUUID()}` };
      const first = await run(input);
      expect(first.result).toMatchObject({ status: 'OK', externalUserId: ext });
      // 30 s on, the token has expired and the user is deleted: the retry with the key still gets the OK it lost.
      clock.at += 30_000;
      expect((await api.post('/user/remove', { userId })).json.status).toBe('OK');
      expect((await run(input)).result).toEqual(first.result);
      // Without the key, or with another, the checks answer.
      const expired = { status: 'INVALID_TOKEN_ERROR', reason: 'The token has expired' };
      expect((await run({ ...input, idempotencyKey: undefined })).result).toEqual(expired);
      expect((await run({ ...input, idempotencyKey: 'another-key' })).result).toEqual(expired);
      // A forged signature on the same payload is no retry, whatever the key.
      const forged = `${token.slice(0, token.lastIndexOf('.'))}.${Buffer.alloc(32).toString('base64url')}`;
      expect((await run({ ...input, token: forged })).result).toEqual({ status: 'INVALID_TOKEN_ERROR', reason: "The token's signature is invalid" });
      clock.at += IDEMPOTENCY_WINDOW_MS;
      expect((await run(input)).result).toEqual(expired);
    });
  });
});
