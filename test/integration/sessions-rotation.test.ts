import { decodeProtectedHeader } from 'jose';
import { startApi, type TestApi } from '../support/api';
import { scanTable } from '../support/table';

/**
 * Signing-key rotation and expiry (SPEC §18) with tiny settings: a key every 0.003 h (10.8 s;
 * published P = 5.4 s before it signs), access tokens of 3 s, sessions of 0.2 min (12 s). The
 * assertions are on the order of what the service answers, never on how long anything took.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startApi({ ACCESS_TOKEN_VALIDITY: '3', REFRESH_TOKEN_VALIDITY: '0.2', ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL: '0.003' });
});
afterAll(async () => api?.stop());

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const create = async () =>
  (await api.post('/recipe/session', { userId: 'rotating', userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false })).json as {
    session: { handle: string };
    accessToken: { token: string };
    refreshToken: { token: string };
  };
const verify = (accessToken: string) =>
  api.post('/recipe/session/verify', { accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: false });
const dynamicKids = async (): Promise<string[]> =>
  ((await api.get('/.well-known/jwks.json')).json.keys as { kid: string }[]).map((k) => k.kid).filter((k) => k.startsWith('d-'));
const kidOf = (token: string) => decodeProtectedHeader(token).kid as string;

it('publishes a new key before it signs, keeps verifying the old one through the overlap, then drops it', async () => {
  const first = await create();
  const k0 = kidOf(first.accessToken.token);
  expect(await dynamicKids()).toEqual([k0]);

  // Until a second key is published, tokens are signed by the first.
  const seen: { published: string[]; signedBy: string; token: string }[] = [];
  for (let i = 0; i < 200; i++) {
    const published = await dynamicKids();
    const c = await create();
    seen.push({ published, signedBy: kidOf(c.accessToken.token), token: c.accessToken.token });
    if (seen.at(-1)!.signedBy !== k0) break;
    await pause(250);
  }
  const firstByNew = seen.findIndex((s) => s.signedBy !== k0);
  expect(firstByNew).toBeGreaterThan(0);
  const k1 = seen[firstByNew].signedBy;
  const publishedAt = seen.findIndex((s) => s.published.includes(k1));
  // Published first, newest first, and tokens went on being signed by the old key meanwhile.
  expect(publishedAt).toBeGreaterThanOrEqual(0);
  expect(publishedAt).toBeLessThan(firstByNew);
  expect(seen[publishedAt].published).toEqual([k1, k0]);
  expect(seen.slice(publishedAt, firstByNew).every((s) => s.signedBy === k0)).toBe(true);

  // The last token of the old key still verifies after the new key signs (it has not expired).
  const lastByOld = seen[firstByNew - 1].token;
  expect((await verify(lastByOld)).json.status).toBe('OK');
  expect((await verify(seen[firstByNew].token)).json.status).toBe('OK');

  // The old key leaves the JWKS once it is older than the interval plus twice the token validity.
  for (let i = 0; i < 200 && (await dynamicKids()).includes(k0); i++) await pause(250);
  const after = await dynamicKids();
  expect(after).not.toContain(k0);
  expect(after).toContain(k1);
  const refused = (await verify(lastByOld)).json;
  expect(refused.status).toBe('TRY_REFRESH_TOKEN');
  // One key made per slot: the table never held two keys of one generation.
  const keys = (await scanTable(api.tableName)).filter((i) => String(i.sk).startsWith('DYNAMIC#'));
  expect(new Set(keys.map((k) => k.sk)).size).toBe(keys.length);
  expect(keys.length).toBeGreaterThanOrEqual(2);
}, 120_000);

it('refuses an expired access token, and a refresh token after the session expired', async () => {
  const c = await create();
  expect((await verify(c.accessToken.token)).json.status).toBe('OK');
  await pause(4_000);
  expect((await verify(c.accessToken.token)).json).toEqual({ status: 'TRY_REFRESH_TOKEN', message: 'Access token expired' });
  const refreshed = (await api.post('/recipe/session/refresh', { refreshToken: c.refreshToken.token, enableAntiCsrf: false, useDynamicSigningKey: true })).json;
  expect(refreshed.status).toBe('OK');
  await pause(13_000);
  expect(
    (await api.post('/recipe/session/refresh', { refreshToken: refreshed.refreshToken.token, enableAntiCsrf: false, useDynamicSigningKey: true })).json,
  ).toEqual({
    status: 'UNAUTHORISED',
    message: 'Session missing in db or has expired',
  });
  expect((await api.get(`/recipe/session?sessionHandle=${c.session.handle}`)).json).toEqual({ status: 'UNAUTHORISED', message: 'Session does not exist.' });
  expect((await api.get('/recipe/session/user?userId=rotating')).json.sessionHandles).not.toContain(c.session.handle);
}, 60_000);
