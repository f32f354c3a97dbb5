import { createHash } from 'node:crypto';
import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';
import { startApi, tableProblems, TEST_API_KEY, type ApiResponse, type TestApi } from '../support/api';
import { startCountingProxy, type CountingProxy } from '../support/dynamo-proxy';
import { tenantPath, uniqueEmail } from '../support/flows';
import { BCRYPT, linkingClient } from '../support/linking';
import { scanTable, testDocClient } from '../support/table';

/**
 * Password reset tokens (SPEC §18b), as the SDK's `POST /auth/user/password/reset/token` and
 * `POST /auth/user/password/reset` use them: per app, single use, several per user, every token
 * of a user gone once one is used, stored only as SHA-256. The server talks to DynamoDB through a
 * counting proxy, so the calls of each endpoint are counted on the wire.
 */
let proxy: CountingProxy;
let api: TestApi;
let al: ReturnType<typeof linkingClient>;
const T1 = 'pwr-one';
/** Every token the suite made: none may show in a log line or the table. */
const made: string[] = [];

beforeAll(async () => {
  proxy = await startCountingProxy(process.env.TEST_DYNAMODB_ENDPOINT!);
  api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1' });
  al = linkingClient(api);
  supertokens.init({
    supertokens: { connectionURI: api.baseUrl, apiKey: TEST_API_KEY },
    appInfo: { appName: 'password-reset', apiDomain: 'http://api.example.test', websiteDomain: 'http://app.example.test' },
    recipeList: [EmailPassword.init()],
  });
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: T1 })).json.status).toBe('OK');
});
afterAll(async () => {
  try {
    await api.stop();
  } finally {
    await proxy.close();
  }
});

const INVALID = { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };
const TOKEN = /^[A-Za-z0-9_-]{128}$/;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

function createTokenOn(server: TestApi, userId: string, email: string, tenantId?: string): Promise<ApiResponse> {
  return server.post(tenantPath(tenantId, '/recipe/user/password/reset/token'), { userId, email });
}
const createToken = (userId: string, email: string, tenantId?: string) => createTokenOn(api, userId, email, tenantId);
const consume = (token: string, tenantId?: string, server = api) => server.post(tenantPath(tenantId, '/recipe/user/password/reset/token/consume'), { token });

async function tokenOf(userId: string, email: string, tenantId?: string, server = api): Promise<string> {
  const res = await createTokenOn(server, userId, email, tenantId);
  if (res.json?.status !== 'OK') throw new Error(`create token failed: ${res.status} ${res.text}`);
  made.push(res.json.token);
  return res.json.token as string;
}

/** The reset token items of the table (tokens by hash, and entries of users). */
async function resetItems(server = api): Promise<Record<string, unknown>[]> {
  return (await scanTable(server.tableName)).filter((i) => String(i.pk).startsWith('PWRESET'));
}

/** The calls one request makes, by operation, and its answer. */
async function callsOf(request: () => Promise<ApiResponse>): Promise<{ calls: Record<string, number>; res: ApiResponse }> {
  proxy.reset();
  const res = await request();
  return { calls: Object.fromEntries([...proxy.counts].sort()), res };
}

describe('password reset tokens', () => {
  it('makes a URL-safe token for a user, and consuming it answers the user and email, once', async () => {
    const email = uniqueEmail('pwr');
    const id = await al.emailPassword(email);
    const created = await createToken(id, ` ${email.toUpperCase()} `);
    expect(created.status).toBe(200);
    expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(created.json).toEqual({ status: 'OK', token: expect.stringMatching(TOKEN) });
    made.push(created.json.token);
    // The email is recorded normalised (SPEC §3).
    expect((await consume(created.json.token)).json).toEqual({ status: 'OK', userId: id, email });
    expect((await consume(created.json.token)).json).toEqual(INVALID);
    expect((await consume('a'.repeat(128))).json).toEqual(INVALID);
    expect((await consume('')).json).toEqual(INVALID);
  });

  it('answers UNKNOWN_USER_ID_ERROR for an id that names no user, and stores nothing', async () => {
    const before = (await resetItems()).length;
    expect((await createToken('2b7d5a6e-0000-4000-8000-000000000000', 'a@b.c')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await createToken('', 'a@b.c')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await createToken('no-such-external-id', 'a@b.c')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await resetItems()).length).toBe(before);
  });

  it.each([
    ['token', {}, "Field name 'userId' is invalid in JSON input"],
    ['token', { userId: 'u1' }, "Field name 'email' is invalid in JSON input"],
    ['token', { email: 'a@b.c' }, "Field name 'userId' is invalid in JSON input"],
    ['token', { userId: 7, email: 'a@b.c' }, "Field name 'userId' is invalid in JSON input"],
    ['token', { userId: null, email: 'a@b.c' }, "Field name 'userId' is invalid in JSON input"],
    ['token', { userId: 'u1', email: ['a@b.c'] }, "Field name 'email' is invalid in JSON input"],
    ['token', { userId: 'u1', email: 'nobody' }, "Field name 'email' is not an email address: it has no '@'"],
    ['token', { userId: 'u1', email: 'a@b.c\ud800' }, "Field name 'email' is not valid Unicode: it holds a lone surrogate"],
    ['token', { userId: 'u'.repeat(129), email: 'a@b.c' }, "Field name 'userId' is too long: the maximum is 128 characters"],
    ['token/consume', {}, "Field name 'token' is invalid in JSON input"],
    ['token/consume', { token: 12 }, "Field name 'token' is invalid in JSON input"],
    ['token/consume', { token: { t: 'x' } }, "Field name 'token' is invalid in JSON input"],
  ])('POST …/reset/%s %j → 400 %s', async (op, body, text) => {
    const res = await api.post(`/recipe/user/password/reset/${op}`, body);
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([400, 'text/plain; charset=utf-8', text]);
  });

  it('refuses a body that is no JSON object, an unknown tenant, a missing key and a wrong method as every route does', async () => {
    for (const op of ['token', 'token/consume']) {
      const path = `/recipe/user/password/reset/${op}`;
      expect([(await api.request('POST', path, { rawBody: '[1]' })).text, (await api.request('POST', path)).text]).toEqual([
        'Invalid Json Input',
        'Invalid Json Input',
      ]);
      const unknownTenant = await api.post(`/pwr-none${path}`, { userId: 'u1', email: 'a@b.c', token: 'x' });
      expect([unknownTenant.status, unknownTenant.text]).toEqual([400, 'AppId or tenantId not found']);
      expect((await api.request('POST', path, { body: { token: 'x' }, apiKey: null })).status).toBe(401);
      expect((await api.get(path)).status).toBe(405);
    }
  });

  it('takes an external id, and answers the id as the outside sees it when the token is used', async () => {
    const email = uniqueEmail('pwr-ext');
    const id = await al.emailPassword(email);
    const external = `auth0|pwr-${Date.now().toString(36)}`;
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: external })).json.status).toBe('OK');
    // Made for the external id or for the SuperTokens id, both answer the external id.
    expect((await consume(await tokenOf(external, email))).json).toEqual({ status: 'OK', userId: external, email });
    expect((await consume(await tokenOf(id, email))).json).toEqual({ status: 'OK', userId: external, email });
    // The token is the user's, not the external id's: unmapped since, it answers the user's own id.
    const token = await tokenOf(external, email);
    expect((await api.post('/recipe/userid/map/remove', { userId: external })).json).toEqual({ status: 'OK', didMappingExist: true });
    expect((await consume(token)).json).toEqual({ status: 'OK', userId: id, email });
    expect((await createToken(external, email)).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it("works for a linked user: by the primary user's id or a linked login method's, with any email", async () => {
    // A third-party user asks to reset a password it does not have yet (the SDK then adds an
    // email-password login method): the core records any email for any user.
    const tpEmail = uniqueEmail('pwr-tp');
    const tp = await al.thirdParty(tpEmail);
    const epEmail = uniqueEmail('pwr-ep');
    const ep = await al.emailPassword(epEmail);
    const primary = await al.group(tp, ep);
    expect(primary.id).toBe(tp);
    expect((await consume(await tokenOf(tp, tpEmail))).json).toEqual({ status: 'OK', userId: tp, email: tpEmail });
    expect((await consume(await tokenOf(ep, epEmail))).json).toEqual({ status: 'OK', userId: ep, email: epEmail });
    // Unlinked since: still that login method's token.
    const token = await tokenOf(ep, epEmail);
    expect((await al.unlink(ep)).status).toBe(200);
    expect((await consume(token)).json).toEqual({ status: 'OK', userId: ep, email: epEmail });
  });

  it("is the app's: made in one tenant, any tenant's segment consumes it", async () => {
    const email = uniqueEmail('pwr-t1');
    const id = await al.emailPassword(email, T1);
    expect((await consume(await tokenOf(id, email, T1))).json).toEqual({ status: 'OK', userId: id, email });
    expect((await consume(await tokenOf(id, email), T1)).json).toEqual({ status: 'OK', userId: id, email });
    expect((await consume(await tokenOf(id, email, T1), `appid-public/${T1}`)).json).toEqual({ status: 'OK', userId: id, email });
    // A user of the public tenant only, through a tenant's segment.
    const publicEmail = uniqueEmail('pwr-pub');
    const publicId = await al.emailPassword(publicEmail);
    expect((await consume(await tokenOf(publicId, publicEmail, T1), T1)).json).toEqual({ status: 'OK', userId: publicId, email: publicEmail });
  });

  it('keeps several live tokens per user; using one deletes them all, and only that user’s', async () => {
    const email = uniqueEmail('pwr-many');
    const id = await al.emailPassword(email);
    const otherEmail = uniqueEmail('pwr-other');
    const other = await al.emailPassword(otherEmail);
    const [a, b, c] = [await tokenOf(id, email), await tokenOf(id, email), await tokenOf(id, 'another@example.com')];
    const theirs = await tokenOf(other, otherEmail);
    const ofUser = async (userId: string) => (await resetItems()).filter((i) => i.userId === userId);
    expect(await ofUser(id)).toHaveLength(6);
    expect((await consume(b)).json).toEqual({ status: 'OK', userId: id, email });
    expect(await ofUser(id)).toEqual([]);
    expect([(await consume(a)).json, (await consume(c)).json]).toEqual([INVALID, INVALID]);
    expect((await consume(theirs)).json).toEqual({ status: 'OK', userId: other, email: otherEmail });
  });

  it('lets exactly one of 10 concurrent consumes of one token through, and one of two tokens of a user used at once', async () => {
    const email = uniqueEmail('pwr-race');
    const id = await al.emailPassword(email);
    const token = await tokenOf(id, email);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => consume(token, i % 2 === 0 ? undefined : T1)));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(200));
    const ok = answers.filter((r) => r.json.status === 'OK');
    expect(ok.map((r) => r.json)).toEqual([{ status: 'OK', userId: id, email }]);
    expect(answers.filter((r) => r.json.status !== 'OK').map((r) => r.json)).toEqual(Array(9).fill(INVALID));
    for (let round = 0; round < 3; round++) {
      const pair = [await tokenOf(id, email), await tokenOf(id, email)];
      const both = await Promise.all(pair.map((t) => consume(t)));
      expect(both.map((r) => r.json.status).sort()).toEqual(['OK', 'RESET_PASSWORD_INVALID_TOKEN_ERROR']);
    }
    expect((await resetItems()).filter((i) => i.userId === id)).toEqual([]);
  });

  it('runs the SDK sequence: token, consume, set the password, sign in with the new one', async () => {
    const email = uniqueEmail('pwr-sdk');
    const id = await al.emailPassword(email);
    expect((await al.signIn(email)).json.status).toBe('OK');
    const token = await tokenOf(id, email);
    const consumed = await consume(token);
    expect(consumed.json).toEqual({ status: 'OK', userId: id, email });
    // Consuming changed no password.
    expect((await al.signIn(email)).json.status).toBe('OK');
    const user = await al.user(consumed.json.userId);
    const login = user.loginMethods.find((lm: { recipeId: string; email: string }) => lm.recipeId === 'emailpassword' && lm.email === email);
    const password = 'a brand new password 1';
    expect((await api.put('/recipe/user', { recipeUserId: login.recipeUserId, password })).json).toEqual({ status: 'OK' });
    expect((await al.signIn(email, password)).json).toMatchObject({ status: 'OK', recipeUserId: id });
    expect((await al.signIn(email, BCRYPT.password)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await consume(token)).json).toEqual(INVALID);
  });

  it('serves the SDK unchanged: createResetPasswordToken, then resetPasswordUsingToken (consume, user, PUT /recipe/user), then signIn', async () => {
    const email = uniqueEmail('pwr-node');
    const id = await al.emailPassword(email);
    const created = await EmailPassword.createResetPasswordToken('public', id, email);
    expect(created).toEqual({ status: 'OK', token: expect.stringMatching(TOKEN) });
    if (created.status !== 'OK') return;
    made.push(created.token);
    expect(await EmailPassword.createResetPasswordToken('public', 'c0ffee00-0000-4000-8000-000000000000', email)).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const password = 'sdk new password 2';
    expect(await EmailPassword.resetPasswordUsingToken(T1, created.token, password)).toEqual({ status: 'OK' });
    expect(await EmailPassword.resetPasswordUsingToken('public', created.token, password)).toEqual({ status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' });
    const signedIn = await EmailPassword.signIn('public', email, password);
    expect([signedIn.status, signedIn.status === 'OK' && signedIn.recipeUserId.getAsString()]).toEqual(['OK', id]);
    const token = await tokenOf(id, email);
    expect(await EmailPassword.consumePasswordResetToken('public', token)).toEqual({ status: 'OK', userId: id, email });
  });

  it("answers RESET_PASSWORD_INVALID_TOKEN_ERROR for a removed user's token, and deletes it", async () => {
    const email = uniqueEmail('pwr-removed');
    const id = await al.emailPassword(email);
    const token = await tokenOf(id, email);
    expect((await al.remove(id)).json.status).toBe('OK');
    expect((await consume(token)).json).toEqual(INVALID);
    expect((await resetItems()).filter((i) => i.userId === id)).toEqual([]);
  });

  it('counts its DynamoDB calls: create 2, consume 4 in 3 round trips, an unknown token 1', async () => {
    const email = uniqueEmail('pwr-calls');
    const id = await al.emailPassword(email);
    // The user (its partition), then the token and its entry in one transaction.
    const created = await callsOf(() => createToken(id, email));
    expect(created.calls).toEqual({ Query: 1, TransactWriteItems: 1 });
    made.push(created.res.json.token);
    // An external id: its guard, then the user's partition.
    const external = `pwr-calls-${Date.now().toString(36)}`;
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: external })).json.status).toBe('OK');
    const byExternal = await callsOf(() => createToken(external, email));
    made.push(byExternal.res.json.token);
    expect(byExternal.calls).toEqual({ GetItem: 1, Query: 2, TransactWriteItems: 1 });
    // The token; its user and the user's tokens together; the transaction deleting them all.
    const used = await callsOf(() => consume(created.res.json.token));
    expect(used.res.json).toEqual({ status: 'OK', userId: external, email });
    expect(used.calls).toEqual({ GetItem: 1, Query: 2, TransactWriteItems: 1 });
    expect(proxy.arrivals.map((a) => a.operation)).toEqual(['GetItem', 'Query', 'Query', 'TransactWriteItems']);
    // That the two Queries are in flight together is shown on a slow wire (round-trips.test.ts).
    const unknown = await callsOf(() => consume(created.res.json.token));
    expect([unknown.res.json, unknown.calls]).toEqual([INVALID, { GetItem: 1 }]);
    // Another tenant's segment adds the check that the tenant exists, beside the first read.
    const inT1 = await callsOf(() => consume(byExternal.res.json.token, T1));
    expect([inT1.res.json, inT1.calls]).toEqual([INVALID, { GetItem: 2 }]);
  });

  it('is checked by the consistency checker: a token without its entry, an entry without its token', async () => {
    const email = uniqueEmail('pwr-broken');
    const id = await al.emailPassword(email);
    const [a, b] = [await tokenOf(id, email), await tokenOf(id, email)];
    const doc = testDocClient();
    const drop = (Key: { pk: string; sk: string }) => doc.send(new DeleteCommand({ TableName: api.tableName, Key }));
    try {
      await drop({ pk: keys.resetTokensOf(id), sk: sha256(a) });
      await drop(keys.resetToken(sha256(b)));
      const problems = await tableProblems(api.tableName);
      expect(problems.map((p) => [p.kind, p.key]).sort()).toEqual(
        [
          ['reset-entry-without-token', keys.resetTokensOf(id)],
          ['reset-token-without-entry', keys.resetToken(sha256(a)).pk],
        ].sort(),
      );
      expect(JSON.stringify(problems)).not.toContain(a);
    } finally {
      // Mended, so the suite's own check at the end finds nothing.
      await drop(keys.resetToken(sha256(a)));
      await drop({ pk: keys.resetTokensOf(id), sk: sha256(b) });
      doc.destroy();
    }
  });

  it('never logs a token, and stores only its hash', async () => {
    expect(made.length).toBeGreaterThan(20);
    const items = await scanTable(api.tableName);
    const text = JSON.stringify(items);
    const logs = api.logs.join('\n');
    for (const token of made) {
      expect(text.includes(token)).toBe(false);
      expect(logs.includes(token)).toBe(false);
    }
    // Live tokens are there by their hash only.
    const email = uniqueEmail('pwr-hash');
    const id = await al.emailPassword(email);
    const token = await tokenOf(id, email);
    const stored = (await resetItems()).filter((i) => i.userId === id);
    expect(stored.map((i) => [i.pk, i.sk]).sort()).toEqual(
      [
        [`PWRESET#${sha256(token)}`, 'PWRESET'],
        [`PWRESETS#${id}`, sha256(token)],
      ].sort(),
    );
    expect(stored.every((i) => typeof i.ttl === 'number')).toBe(true);
  });
});

describe('an expired password reset token', () => {
  const LIFETIME_MS = 1500;
  let short: TestApi;
  beforeAll(async () => {
    short = await startApi({ PASSWORD_RESET_TOKEN_LIFETIME: String(LIFETIME_MS), AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
  });
  afterAll(() => short.stop());

  it('answers RESET_PASSWORD_INVALID_TOKEN_ERROR and deletes every token of its user, as the core', async () => {
    const sl = linkingClient(short);
    const email = uniqueEmail('pwr-expired');
    const id = await sl.emailPassword(email);
    const created = Date.now();
    const [a, b] = [await tokenOf(id, email, undefined, short), await tokenOf(id, email, undefined, short)];
    const stored = await resetItems(short);
    expect(stored).toHaveLength(4);
    // Stored with their expiry, and a TTL no earlier than it.
    for (const item of stored.filter((i) => i.sk === 'PWRESET')) {
      expect(item.expiresAt).toBeGreaterThanOrEqual(created + LIFETIME_MS);
      expect(item.ttl).toBeGreaterThanOrEqual(Math.floor((item.expiresAt as number) / 1000));
    }
    await new Promise((r) => setTimeout(r, LIFETIME_MS + 300));
    // The token, the user's tokens, the transaction deleting them.
    const expired = await callsOf(() => consume(a, undefined, short));
    expect([expired.res.json, expired.calls]).toEqual([INVALID, { GetItem: 1, Query: 1, TransactWriteItems: 1 }]);
    expect(await resetItems(short)).toEqual([]);
    expect((await consume(b, undefined, short)).json).toEqual(INVALID);
    // A fresh one works.
    expect((await consume(await tokenOf(id, email, undefined, short), undefined, short)).json).toEqual({ status: 'OK', userId: id, email });
  });
});
