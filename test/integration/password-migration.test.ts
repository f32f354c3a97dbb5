import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApi, type ApiResponse, type TestApi } from '../support/api';
import { useFirebaseEmulator } from '../support/firebase-emulator';
import { uniqueEmail } from '../support/flows';
import { CHEAP_OWN_HASH, COUNT_PATH, IMPORT_PATH, SOURCE_UNAVAILABLE, waitForLog } from '../support/password-migration';
import { readStoredUser } from '../support/table';
import { BCRYPT_VECTORS } from '../fixtures/password-vectors';
import { slowAnswer } from '../support/slow-answer';

/**
 * Password migration at sign-in (SPEC §16), end to end through the local server: users imported
 * without a hash wait for it, their first sign-in asks the previous provider (a local webhook that
 * checks our signature as a real one would, and the real Firebase Auth emulator), and only a
 * definite answer decides: a match stores the own hash once, a no is a wrong password, anything
 * else is a 503 that changes nothing. No password may appear in a log line or a response.
 */

const SECRET = 'webhook-secret-0123456789';
const OLD_PASSWORD = 'Old-provider-pässword-1';

/** Every password a test sent: none may show in any log line or response of this file. */
const passwords = new Set<string>([OLD_PASSWORD]);
const responses: ApiResponse[] = [];
const servers: TestApi[] = [];

async function api(env: Record<string, string>): Promise<TestApi> {
  const started = await startApi({ ...CHEAP_OWN_HASH, ...env });
  servers.push(started);
  return started;
}

async function call(on: TestApi, method: 'post' | 'put' | 'get', path: string, body?: Record<string, unknown>): Promise<ApiResponse> {
  // (An empty password is sent once on purpose; every line "contains" it.)
  if (typeof body?.password === 'string' && body.password !== '') passwords.add(body.password);
  const res = method === 'get' ? await on.get(path) : await on[method](path, body);
  responses.push(res);
  return res;
}

const importMarked = (on: TestApi, email: string, tenant = '') => call(on, 'post', `${tenant}${IMPORT_PATH}`, { email, migratePasswordOnSignIn: true });
const signIn = (on: TestApi, email: string, password: string, tenant = '') => call(on, 'post', `${tenant}/recipe/signin`, { email, password });
const pending = async (on: TestApi, tenant = ''): Promise<number> => {
  const res = await call(on, 'get', `${tenant}${COUNT_PATH}`);
  expect(res.status).toBe(200);
  return res.json.count;
};

const parseLine = (line: string): any => {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
};

/** A webhook as an operator writes one: checks the signature over the raw body, then the password. */
interface Hook {
  url: string;
  server: Server;
  hits: { email: string; userId: string; tenantId: string }[];
}
async function startHook(): Promise<Hook> {
  const hits: Hook['hits'] = [];
  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', async () => {
      const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`);
      const given = Buffer.from(String(req.headers['x-signature'] ?? ''));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return reply(res, 401, { error: 'bad signature' });
      const { email, password, userId, tenantId } = JSON.parse(raw);
      hits.push({ email, userId, tenantId });
      if (email.startsWith('forbidden')) return reply(res, 403, {});
      if (email.startsWith('broken')) return reply(res, 500, {});
      if (email.startsWith('slow')) await slowAnswer(res, 1500);
      if (email.startsWith('racing')) await new Promise((r) => setTimeout(r, 200));
      return reply(res, 200, { status: password === OLD_PASSWORD ? 'password_match' : 'password_mismatch' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hits };
}

afterAll(async () => {
  for (const s of servers) await s.stop();
  // Checked last, over every path of the file: outage, mismatch, match, races.
  const logs = servers.flatMap((s) => s.logs);
  expect(logs.length).toBeGreaterThan(0);
  for (const password of passwords) {
    expect(logs.filter((line) => line.includes(password))).toEqual([]);
    expect(responses.filter((r) => r.text.includes(password)).map((r) => r.text)).toEqual([]);
  }
});

describe('password migration at sign-in through a webhook', () => {
  let hook: Hook;
  let ep: TestApi;
  const hitsFor = (email: string) => hook.hits.filter((h) => h.email === email).length;

  beforeAll(async () => {
    hook = await startHook();
    ep = await api({
      PASSWORD_MIGRATION_SOURCE: 'webhook',
      PASSWORD_MIGRATION_WEBHOOK_URL: hook.url,
      PASSWORD_MIGRATION_WEBHOOK_SECRET: SECRET,
      PASSWORD_MIGRATION_TIMEOUT_MS: '500',
    });
  });
  afterAll(() => new Promise<void>((r) => hook.server.close(() => r())));

  it('imports a user without a hash: waiting, no hash stored, counted; a second import changes nothing', async () => {
    const before = await pending(ep);
    const email = uniqueEmail('marked');
    const first = await importMarked(ep, ` ${email.toUpperCase()} `);
    expect(first.json).toMatchObject({ status: 'OK', didUserAlreadyExist: false, user: { emails: [email], loginMethods: [{ recipeId: 'emailpassword' }] } });
    const stored = await readStoredUser(ep.tableName, first.json.user.id);
    expect(stored?.passwordHash).toBeUndefined();
    expect(stored?.passwordMigration).toEqual({ markedAt: expect.any(Number) });
    expect(await pending(ep)).toBe(before + 1);
    const again = await importMarked(ep, email);
    expect(again.json).toMatchObject({ status: 'OK', didUserAlreadyExist: true, user: { id: first.json.user.id } });
    expect((await readStoredUser(ep.tableName, first.json.user.id))?.version).toBe(stored?.version);
    expect(await pending(ep)).toBe(before + 1);
    expect((await call(ep, 'get', COUNT_PATH)).json).toEqual({ status: 'OK', count: before + 1, source: 'webhook' });
  });

  it('keeps the hash of a user that has one; a hash imported later ends the wait', async () => {
    const withHash = uniqueEmail('has-hash');
    const imported = await call(ep, 'post', IMPORT_PATH, { email: withHash, passwordHash: BCRYPT_VECTORS[0].hash });
    const kept = await importMarked(ep, withHash);
    expect(kept.json).toMatchObject({ status: 'OK', didUserAlreadyExist: true, user: { id: imported.json.user.id } });
    expect((await readStoredUser(ep.tableName, imported.json.user.id))?.passwordHash).toBe(BCRYPT_VECTORS[0].hash);

    const email = uniqueEmail('then-hash');
    const marked = await importMarked(ep, email);
    const count = await pending(ep);
    const hashed = await call(ep, 'post', IMPORT_PATH, { email, passwordHash: BCRYPT_VECTORS[1].hash });
    expect(hashed.json).toMatchObject({ status: 'OK', didUserAlreadyExist: true, user: { id: marked.json.user.id } });
    const stored = await readStoredUser(ep.tableName, marked.json.user.id);
    expect([stored?.passwordHash, stored?.passwordMigration]).toEqual([BCRYPT_VECTORS[1].hash, undefined]);
    expect(await pending(ep)).toBe(count - 1);
    expect((await signIn(ep, email, BCRYPT_VECTORS[1].password)).json.status).toBe('OK');
    expect(hitsFor(email)).toBe(0);
  });

  it('answers 400 naming the field for bad input', async () => {
    const email = uniqueEmail('bad');
    const cases: [Record<string, unknown>, string][] = [
      [
        { email, migratePasswordOnSignIn: true, passwordHash: BCRYPT_VECTORS[0].hash },
        'migratePasswordOnSignIn cannot be combined with passwordHash or hashingAlgorithm',
      ],
      [
        { email, migratePasswordOnSignIn: true, hashingAlgorithm: 'bcrypt' },
        'migratePasswordOnSignIn cannot be combined with passwordHash or hashingAlgorithm',
      ],
      [{ email, migratePasswordOnSignIn: 'yes' }, "Field name 'migratePasswordOnSignIn' is invalid in JSON input"],
      [{ email, migratePasswordOnSignIn: false }, "Field name 'passwordHash' is invalid in JSON input"],
      [{ migratePasswordOnSignIn: true }, "Field name 'email' is invalid in JSON input"],
    ];
    for (const [body, text] of cases) {
      const res = await call(ep, 'post', IMPORT_PATH, body);
      expect([res.status, res.text]).toEqual([400, text]);
    }
    expect((await signIn(ep, email, OLD_PASSWORD)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect(hitsFor(email)).toBe(0);
  });

  it('a right password: OK once through the webhook, the own Argon2id stored, the wait over; then never asked again', async () => {
    const email = uniqueEmail('right');
    const { json } = await importMarked(ep, email);
    const count = await pending(ep);
    const first = await signIn(ep, email, OLD_PASSWORD);
    expect(first.json).toMatchObject({ status: 'OK', user: { id: json.user.id, emails: [email] }, recipeUserId: json.user.id });
    expect(hook.hits.filter((h) => h.email === email)).toEqual([{ email, userId: json.user.id, tenantId: 'public' }]);
    const stored = await readStoredUser(ep.tableName, json.user.id);
    expect(stored?.passwordHash).toMatch(/^\$argon2id\$v=19\$m=4096,t=3,p=1\$/);
    expect(stored?.passwordMigration).toBeUndefined();
    expect(await pending(ep)).toBe(count - 1);
    expect((await signIn(ep, email, OLD_PASSWORD)).json.status).toBe('OK');
    expect((await signIn(ep, email, 'not-the-password')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(hitsFor(email)).toBe(1);
    // Counted as an embedded metric (EMF), with the user id and no password.
    // The server's stdout comes through a pipe, which may deliver the line a moment after the answer.
    await waitForLog(ep, (l) => l.includes('"SignInMigrations"') && l.includes(json.user.id));
    const metric = ep.logs.map(parseLine).find((l) => l?._aws && l.userId === json.user.id);
    expect(metric).toMatchObject({ Source: 'webhook', Outcome: 'migrated', SignInMigrations: 1, SignInMigrationLatency: expect.any(Number) });
    expect(metric._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'AuthCore', Dimensions: [['service', 'Source', 'Outcome']] });
  });

  it.each([
    ['a wrong password (password_mismatch)', 'wrong', 'not-the-password'],
    ['a 403 from the webhook', 'forbidden', OLD_PASSWORD],
  ])('%s: WRONG_CREDENTIALS_ERROR and the user unchanged', async (_name, label, password) => {
    const email = uniqueEmail(label);
    const { json } = await importMarked(ep, email);
    const before = await readStoredUser(ep.tableName, json.user.id);
    expect((await signIn(ep, email, password)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(hitsFor(email)).toBe(1);
    expect(await readStoredUser(ep.tableName, json.user.id)).toEqual(before);
  });

  it.each([
    ['a 500 from the webhook', 'broken'],
    ['an answer later than the timeout', 'slow'],
  ])('%s: 503, never a wrong password, and the user unchanged', async (_name, label) => {
    const email = uniqueEmail(label);
    const { json } = await importMarked(ep, email);
    const before = await readStoredUser(ep.tableName, json.user.id);
    const res = await signIn(ep, email, OLD_PASSWORD);
    expect([res.status, res.text]).toEqual([503, SOURCE_UNAVAILABLE]);
    expect(await readStoredUser(ep.tableName, json.user.id)).toEqual(before);
    expect(await waitForLog(ep, (l) => l.includes('password migration source unavailable') && l.includes(json.user.id))).toBe(true);
  });

  it('an empty password is wrong without asking the webhook', async () => {
    const email = uniqueEmail('empty');
    await importMarked(ep, email);
    expect((await signIn(ep, email, '')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(hitsFor(email)).toBe(0);
  });

  it('a service signing with another secret is refused by the webhook (bad signature): 503, the user unchanged', async () => {
    const wrongSecret = await api({
      TABLE_NAME: ep.tableName,
      PASSWORD_MIGRATION_SOURCE: 'webhook',
      PASSWORD_MIGRATION_WEBHOOK_URL: hook.url,
      PASSWORD_MIGRATION_WEBHOOK_SECRET: 'not-the-shared-secret',
    });
    const email = uniqueEmail('badsig');
    const { json } = await importMarked(ep, email);
    const before = await readStoredUser(ep.tableName, json.user.id);
    const res = await signIn(wrongSecret, email, OLD_PASSWORD);
    expect([res.status, res.text]).toEqual([503, SOURCE_UNAVAILABLE]);
    expect(hitsFor(email)).toBe(0);
    expect(await readStoredUser(ep.tableName, json.user.id)).toEqual(before);
    expect((await signIn(ep, email, OLD_PASSWORD)).json.status).toBe('OK');
  });

  it('concurrent first sign-ins: all OK, exactly one hash written', async () => {
    const email = uniqueEmail('racing');
    const { json } = await importMarked(ep, email);
    const results = await Promise.all(Array.from({ length: 4 }, () => signIn(ep, email, OLD_PASSWORD)));
    expect(results.map((r) => r.json.status)).toEqual(['OK', 'OK', 'OK', 'OK']);
    expect(new Set(results.map((r) => r.json.user.id))).toEqual(new Set([json.user.id]));
    const stored = await readStoredUser(ep.tableName, json.user.id);
    // Version 1 at import, +1 for the one write that stored the hash.
    expect([stored?.version, stored?.passwordMigration, typeof stored?.passwordHash]).toEqual([2, undefined, 'string']);
    expect(hitsFor(email)).toBeGreaterThanOrEqual(1);
  });

  it('a password set through PUT /recipe/user ends the wait; the old password then fails without asking', async () => {
    const email = uniqueEmail('reset');
    const { json } = await importMarked(ep, email);
    const count = await pending(ep);
    expect((await call(ep, 'put', '/recipe/user', { recipeUserId: json.user.id, password: 'a-brand-new-password' })).json).toEqual({ status: 'OK' });
    expect((await readStoredUser(ep.tableName, json.user.id))?.passwordMigration).toBeUndefined();
    expect(await pending(ep)).toBe(count - 1);
    expect((await signIn(ep, email, OLD_PASSWORD)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    expect((await signIn(ep, email, 'a-brand-new-password')).json.status).toBe('OK');
    expect(hitsFor(email)).toBe(0);
  });

  it('sends the external user id and the tenant; counts per tenant; removal ends the wait', async () => {
    expect((await call(ep, 'put', '/recipe/multitenancy/tenant/v2', { tenantId: 'pwmig' })).status).toBe(200);
    const email = uniqueEmail('tenant');
    const { json } = await importMarked(ep, email, '/pwmig');
    expect(await pending(ep, '/pwmig')).toBe(1);
    expect((await call(ep, 'post', '/recipe/userid/map', { superTokensUserId: json.user.id, externalUserId: `fb|${email}` })).json.status).toBe('OK');
    expect((await signIn(ep, email, OLD_PASSWORD)).json.status).toBe('WRONG_CREDENTIALS_ERROR'); // not in public
    const res = await signIn(ep, email, OLD_PASSWORD, '/pwmig');
    expect(res.json).toMatchObject({ status: 'OK', user: { id: `fb|${email}` } });
    expect(hook.hits.filter((h) => h.email === email)).toEqual([{ email, userId: `fb|${email}`, tenantId: 'pwmig' }]);
    expect(await pending(ep, '/pwmig')).toBe(0);

    const gone = uniqueEmail('removed');
    const removed = await importMarked(ep, gone, '/pwmig');
    expect(await pending(ep, '/pwmig')).toBe(1);
    expect((await call(ep, 'post', '/user/remove', { userId: removed.json.user.id })).json).toEqual({ status: 'OK', didUserExist: true });
    expect(await pending(ep, '/pwmig')).toBe(0);
  });

  it("never asks the previous provider for a tenant that no longer exists: the call waits for the tenant's check, which answers", async () => {
    expect((await call(ep, 'put', '/recipe/multitenancy/tenant/v2', { tenantId: 'pwmig-gone' })).status).toBe(200);
    const email = uniqueEmail('tenant-gone');
    await importMarked(ep, email, '/pwmig-gone');
    // Removing a tenant keeps its users (created again, it finds them): this one still waits there.
    expect((await call(ep, 'post', '/recipe/multitenancy/tenant/remove', { tenantId: 'pwmig-gone' })).json).toEqual({ status: 'OK', didExist: true });
    const res = await signIn(ep, email, OLD_PASSWORD, '/pwmig-gone');
    expect([res.status, res.text]).toEqual([400, 'AppId or tenantId not found']);
    await new Promise((r) => setTimeout(r, 300));
    expect(hitsFor(email)).toBe(0);
    // Created again, the tenant holds the user, and the first sign-in asks the webhook once.
    expect((await call(ep, 'put', '/recipe/multitenancy/tenant/v2', { tenantId: 'pwmig-gone' })).status).toBe(200);
    expect((await signIn(ep, email, OLD_PASSWORD, '/pwmig-gone')).json.status).toBe('OK');
    expect(hitsFor(email)).toBe(1);
  });

  it('a bulk user without a hash (linked, with an external id) waits, migrates at sign-in, and a re-run with a hash ends the wait', async () => {
    const email = uniqueEmail('bulk');
    const externalUserId = `auth0|${email}`;
    const bulkUser = (password: Record<string, unknown>) => ({
      externalUserId,
      loginMethods: [
        { recipeId: 'emailpassword', email, isPrimary: true, ...password },
        { recipeId: 'thirdparty', email, thirdPartyId: 'google', thirdPartyUserId: `g-${email}`, isVerified: true },
      ],
    });
    const count = await pending(ep);
    const imported = await call(ep, 'post', '/bulk-import/import', bulkUser({ migratePasswordOnSignIn: true }));
    expect(imported.json).toMatchObject({ status: 'OK', user: { id: externalUserId, isPrimaryUser: true } });
    expect(await pending(ep)).toBe(count + 1);
    // A re-run of the same export changes nothing: the user still waits.
    expect((await call(ep, 'post', '/bulk-import/import', bulkUser({ migratePasswordOnSignIn: true }))).json.status).toBe('OK');
    expect(await pending(ep)).toBe(count + 1);
    const res = await signIn(ep, email, OLD_PASSWORD);
    expect(res.json).toMatchObject({ status: 'OK', user: { id: externalUserId, isPrimaryUser: true, loginMethods: [{}, {}] } });
    expect(hook.hits.filter((h) => h.email === email)).toEqual([{ email, userId: externalUserId, tenantId: 'public' }]);
    expect(await pending(ep)).toBe(count);

    // Another user, given its hash by a later run: the hash replaces the wait, no webhook call.
    const later = uniqueEmail('bulk-later');
    const laterUser = (password: Record<string, unknown>) => ({ loginMethods: [{ recipeId: 'emailpassword', email: later, ...password }] });
    await call(ep, 'post', '/bulk-import/import', laterUser({ migratePasswordOnSignIn: true }));
    expect(await pending(ep)).toBe(count + 1);
    const hashed = await call(ep, 'post', '/bulk-import/import', laterUser({ passwordHash: BCRYPT_VECTORS[0].hash, hashingAlgorithm: 'bcrypt' }));
    expect(hashed.json.status).toBe('OK');
    expect(await pending(ep)).toBe(count);
    expect((await signIn(ep, later, BCRYPT_VECTORS[0].password)).json.status).toBe('OK');
    expect(hitsFor(later)).toBe(0);
  });

  it('with no source configured: imports without a hash are refused, and a waiting user gets 503, unchanged', async () => {
    const off = await api({ TABLE_NAME: ep.tableName });
    const refused = await call(off, 'post', IMPORT_PATH, { email: uniqueEmail('off'), migratePasswordOnSignIn: true });
    expect([refused.status, refused.text]).toEqual([400, 'Password migration at sign-in is not configured']);
    const staged = await call(off, 'post', '/bulk-import/users', {
      users: [{ loginMethods: [{ recipeId: 'emailpassword', email: uniqueEmail('off'), migratePasswordOnSignIn: true }] }],
    });
    expect([staged.status, staged.json.users]).toEqual([
      400,
      [{ index: 0, errors: ['Password migration at sign-in is not configured for an emailpassword recipe.'] }],
    ]);
    expect((await call(off, 'get', COUNT_PATH)).json).toMatchObject({ status: 'OK', source: 'off' });
    const email = uniqueEmail('waiting');
    const { json } = await importMarked(ep, email);
    const before = await readStoredUser(ep.tableName, json.user.id);
    const res = await signIn(off, email, OLD_PASSWORD);
    expect([res.status, res.text]).toEqual([503, SOURCE_UNAVAILABLE]);
    expect(await readStoredUser(ep.tableName, json.user.id)).toEqual(before);
  });
});

describe('password migration at sign-in against the real Firebase Auth emulator', () => {
  const itEmulator = useFirebaseEmulator('Password migration through the Firebase Auth emulator');

  itEmulator(
    'right → OK and stored (still OK once the emulator is gone); wrong, unknown at Firebase, disabled → wrong; emulator down → 503',
    async (emulator) => {
      const fb = await api({
        PASSWORD_MIGRATION_SOURCE: 'firebase',
        FIREBASE_AUTH_URL: emulator.baseUrl,
        FIREBASE_WEB_API_KEY: 'any-web-api-key',
        PASSWORD_MIGRATION_TIMEOUT_MS: '2000',
      });
      const [right, wrong, unknown, disabled, mfa, later] = ['right', 'wrong', 'unknown', 'disabled', 'mfa', 'later'].map((l) => uniqueEmail(`fb-${l}`));
      for (const email of [right, wrong, later]) await emulator.signUp(email, OLD_PASSWORD);
      await emulator.disable(await emulator.signUp(disabled, OLD_PASSWORD));
      await emulator.createMfaUser(mfa, OLD_PASSWORD);
      const ids = new Map<string, string>();
      for (const email of [right, wrong, unknown, disabled, mfa, later]) ids.set(email, (await importMarked(fb, email)).json.user.id);
      const count = await pending(fb);

      expect((await signIn(fb, right, OLD_PASSWORD)).json).toMatchObject({ status: 'OK', user: { id: ids.get(right) } });
      expect((await readStoredUser(fb.tableName, ids.get(right)!))?.passwordHash).toMatch(/^\$argon2id\$/);
      expect((await signIn(fb, mfa, OLD_PASSWORD)).json.status).toBe('OK');
      expect(await pending(fb)).toBe(count - 2);
      for (const [email, password] of [
        [wrong, 'not-the-password'],
        [unknown, OLD_PASSWORD],
        [disabled, OLD_PASSWORD],
      ]) {
        const before = await readStoredUser(fb.tableName, ids.get(email)!);
        expect([email, (await signIn(fb, email, password)).json]).toEqual([email, { status: 'WRONG_CREDENTIALS_ERROR' }]);
        expect(await readStoredUser(fb.tableName, ids.get(email)!)).toEqual(before);
      }

      await emulator.stop();
      const before = await readStoredUser(fb.tableName, ids.get(later)!);
      const down = await signIn(fb, later, OLD_PASSWORD);
      expect([down.status, down.text]).toEqual([503, SOURCE_UNAVAILABLE]);
      expect(await readStoredUser(fb.tableName, ids.get(later)!)).toEqual(before);
      // Migrated users no longer need the old provider.
      expect((await signIn(fb, right, OLD_PASSWORD)).json).toMatchObject({ status: 'OK', user: { id: ids.get(right) } });
      expect((await signIn(fb, right, 'not-the-password')).json.status).toBe('WRONG_CREDENTIALS_ERROR');
      expect(await pending(fb)).toBe(count - 2);
    },
  );
});
