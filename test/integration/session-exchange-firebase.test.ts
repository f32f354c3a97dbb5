import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { createExampleApp } from '../../examples/sdk-app/app';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { FIREBASE_PROJECT_ID, type FirebaseEmulator, useFirebaseEmulator } from '../support/firebase-emulator';
import { uniqueEmail } from '../support/flows';
import { BCRYPT } from '../support/linking';
import { MIGRATION_FIXTURES } from '../support/migration';

/**
 * SPEC §19 against the real Firebase Auth emulator (reference/continuity-and-breadth.md A1.2,
 * A4.5): users signed up in the emulator, imported into the core with their `localId` as external
 * id, and the tokens the emulator hands out (unsigned, `alg: "none"`, with Firebase's real claim
 * shapes) exchanged. The `firebase-emulator` preset takes them only with
 * `SESSION_EXCHANGE_ALLOW_EMULATOR=1` and a `demo-` project; `firebase` and
 * `firebase-session-cookie` never do. Then issue #35's journey end to end: a Firebase user moved
 * with the migration command, its ID token exchanged through the example app's `/auth/exchange`,
 * a session made by the unchanged supertokens-node SDK, a protected route called with it. When
 * firebase-tools cannot be installed (no registry), every test passes with a warning instead.
 */
jest.setTimeout(120_000);

const EXCHANGE = '/recipe/migration/session/exchange';
const PASSWORD = 'an old firebase password';

const itEmulator = useFirebaseEmulator('Session exchange against the Firebase Auth emulator');

/** The Firebase fixture's hash parameters and one of its known passwords with its real Firebase-scrypt hash. */
const FIXTURE = join(MIGRATION_FIXTURES, 'firebase');
const KNOWN = JSON.parse(readFileSync(join(FIXTURE, 'known-passwords.json'), 'utf8'));
const OLD_PASSWORD: { password: string; passwordHash: string; salt: string } = KNOWN.users[0];
/** An issuer whose keys are never there (nothing listens on port 9): its tokens answer 503. */
const DOWN_ISS = 'https://down.example.test';

let api: TestApi;
beforeAll(async () => {
  api = await startApi({
    SESSION_EXCHANGE_ISSUERS: JSON.stringify([
      { id: 'emu', preset: 'firebase-emulator', projectId: FIREBASE_PROJECT_ID },
      { id: 'down', preset: 'oidc', issuer: DOWN_ISS, audiences: ['app'], jwksUri: 'http://127.0.0.1:9/jwks' },
    ]),
    SESSION_EXCHANGE_ALLOW_EMULATOR: '1',
    // For the migration command: its bulk worker, and the Firebase project's signer key (SPEC §7b).
    BULK_WORKER: 'on',
    VENDOR_PASSWORD_HASHING_SIGNER_KEY: KNOWN.hash_config.base64_signer_key,
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_ITERATIONS: '1',
  });
}, 120_000);
afterAll(async () => {
  await api?.stop();
});

const exchange = (token: string, on: TestApi = api) => on.post(EXCHANGE, { token });

/** What the emulator answers a password sign-in: the user's ID token and refresh token. */
async function signIn(emu: FirebaseEmulator, email: string) {
  const res = await emu.signInWithPassword(email, PASSWORD);
  expect(res.status).toBe(200);
  return { idToken: res.body.idToken as string, refreshToken: res.body.refreshToken as string };
}

/** The emulator user, imported into the core as the migration does: one user whose external id is the Firebase `localId`. */
async function importUser(localId: string, email: string, into: TestApi = api): Promise<void> {
  const res = await into.post('/bulk-import/import', {
    externalUserId: localId,
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: BCRYPT.hash, hashingAlgorithm: 'BCRYPT', isVerified: true, isPrimary: true }],
  });
  expect([res.status, res.json?.status]).toEqual([200, 'OK']);
}

describe('exchanging the Firebase Auth emulator’s tokens (preset firebase-emulator)', () => {
  itEmulator('exchanges an ID token once: the imported user, authTime in ms, signInProvider password', async (emu) => {
    const email = uniqueEmail('fb-emu');
    const localId = await emu.signUp(email, PASSWORD);
    await importUser(localId, email);
    const { idToken } = await signIn(emu, email);
    // What the emulator really issues: unsigned, Firebase's claims.
    expect(decodeProtectedHeader(idToken)).toEqual({ alg: 'none', typ: 'JWT' });
    expect(idToken.endsWith('.')).toBe(true);
    const claims = decodeJwt(idToken);
    expect(claims).toMatchObject({ iss: `https://securetoken.google.com/${FIREBASE_PROJECT_ID}`, aud: FIREBASE_PROJECT_ID, sub: localId });

    const res = await exchange(idToken);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'OK',
      user: expect.objectContaining({ id: localId, emails: [email] }),
      recipeUserId: localId,
      externalUserId: localId,
      tenantId: 'public',
      issuer: 'emu',
      authTime: (claims.auth_time as number) * 1000,
      signInProvider: 'password',
    });
    expect(res.text).not.toContain(idToken.split('.')[1]);

    expect((await exchange(idToken)).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
  });

  itEmulator('exchanges a session cookie (createSessionCookie), and an ID token refreshed with the refresh token keeps the first authTime', async (emu) => {
    const email = uniqueEmail('fb-cookie');
    const localId = await emu.signUp(email, PASSWORD);
    await importUser(localId, email);
    const { idToken, refreshToken } = await signIn(emu, email);
    const signedInAt = (decodeJwt(idToken).auth_time as number) * 1000;

    const cookie = await emu.createSessionCookie(idToken, 3600);
    expect(decodeJwt(cookie).iss).toBe(`https://session.firebase.google.com/${FIREBASE_PROJECT_ID}`);
    expect(decodeProtectedHeader(cookie).alg).toBe('none');
    expect((await exchange(cookie)).json).toMatchObject({
      status: 'OK',
      issuer: 'emu',
      recipeUserId: localId,
      authTime: signedInAt,
      signInProvider: 'password',
    });
    expect((await exchange(cookie)).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });

    // What the client SDK does every hour: a new ID token, the same sign-in time.
    const refreshed = await emu.refreshIdToken(refreshToken);
    expect((await exchange(refreshed)).json).toMatchObject({ status: 'OK', recipeUserId: localId, authTime: signedInAt });
  });

  itEmulator('answers UNKNOWN_USER_ERROR for a user not imported, without using the token up: after the import it exchanges', async (emu) => {
    const email = uniqueEmail('fb-unknown');
    const localId = await emu.signUp(email, PASSWORD);
    const { idToken } = await signIn(emu, email);
    expect((await exchange(idToken)).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
    await importUser(localId, email);
    expect((await exchange(idToken)).json).toMatchObject({ status: 'OK', recipeUserId: localId });
  });

  itEmulator('still exchanges a token issued before the user was disabled in Firebase: no online revocation check', async (emu) => {
    const email = uniqueEmail('fb-disabled');
    const localId = await emu.signUp(email, PASSWORD);
    await importUser(localId, email);
    const { idToken } = await signIn(emu, email);
    await emu.disable(localId);
    expect((await emu.signInWithPassword(email, PASSWORD)).body.error.message).toBe('USER_DISABLED');
    // SPEC §19: the token is verified locally, as the old provider's keys allow; only maxTokenAgeSeconds and acceptUntil bound this.
    expect((await exchange(idToken)).json).toMatchObject({ status: 'OK', recipeUserId: localId });
  });
});

describe('the same unsigned tokens anywhere but the emulator preset', () => {
  itEmulator("are refused by the firebase and firebase-session-cookie presets: The token's algorithm is not accepted", async (emu) => {
    // The production presets for the same demo project (two issuers with one iss cannot share a
    // configuration, so this is a core of its own). The key URLs are never fetched: the algorithm
    // is checked first, and nothing listens there.
    const production = await startApi({
      SESSION_EXCHANGE_ISSUERS: JSON.stringify([
        { id: 'fb', preset: 'firebase', projectId: FIREBASE_PROJECT_ID, x509Uri: 'http://127.0.0.1:9/x509' },
        { id: 'cookie', preset: 'firebase-session-cookie', projectId: FIREBASE_PROJECT_ID, x509Uri: 'http://127.0.0.1:9/x509' },
      ]),
      SESSION_EXCHANGE_ALLOW_EMULATOR: '1',
    });
    try {
      const email = uniqueEmail('fb-prod');
      await importUser(await emu.signUp(email, PASSWORD), email, production);
      const { idToken } = await signIn(emu, email);
      const cookie = await emu.createSessionCookie(idToken, 3600);
      const refused = { status: 'INVALID_TOKEN_ERROR', reason: "The token's algorithm is not accepted" };
      expect((await exchange(idToken, production)).json).toEqual(refused);
      expect((await exchange(cookie, production)).json).toEqual(refused);
      expect(production.logs.some((l) => l.includes('keys unavailable'))).toBe(false);
    } finally {
      await production.stop();
    }
  });

  itEmulator('the emulator preset itself refuses to start without SESSION_EXCHANGE_ALLOW_EMULATOR=1, or for a project not named demo-…', async () => {
    const issuers = (projectId: string) => JSON.stringify([{ id: 'emu', preset: 'firebase-emulator', projectId }]);
    await expect(startApi({ SESSION_EXCHANGE_ISSUERS: issuers(FIREBASE_PROJECT_ID) })).rejects.toThrow(
      'SESSION_EXCHANGE_ISSUERS: issuer emu: preset firebase-emulator needs SESSION_EXCHANGE_ALLOW_EMULATOR=1',
    );
    await expect(startApi({ SESSION_EXCHANGE_ISSUERS: issuers('my-real-project'), SESSION_EXCHANGE_ALLOW_EMULATOR: '1' })).rejects.toThrow(
      'SESSION_EXCHANGE_ISSUERS: issuer emu: preset firebase-emulator needs a projectId starting with demo-',
    );
  });
});

/** The built migration command (`npm run migrate -- …`), run to its end; resolves to its report. */
async function migrate(args: string[], dir: string): Promise<any> {
  const report = join(dir, 'report.json');
  const cli = join(__dirname, '..', '..', 'dist', 'cli', 'migrate.js');
  await promisify(execFile)(process.execPath, [cli, ...args, '--url', api.baseUrl, '--api-key', TEST_API_KEY, '--report', report], {
    cwd: dir,
    env: { PATH: process.env.PATH },
  });
  return JSON.parse(readFileSync(report, 'utf8'));
}

describe('end to end: a migrated Firebase user stays signed in through the example app (issue #35)', () => {
  let app: Server;
  let appUrl = '';
  const dir = mkdtempSync(join(tmpdir(), 'exchange-e2e-'));

  beforeAll(async () => {
    // The unchanged SDK's app, its core the server above. Its third party is never used here.
    const { app: express } = createExampleApp({
      coreUrl: api.baseUrl,
      coreApiKey: TEST_API_KEY,
      apiDomain: 'http://localhost:3001',
      websiteDomain: 'http://localhost:3000',
      oidc: { discoveryEndpoint: 'http://127.0.0.1:9/.well-known/openid-configuration', clientId: 'unused', clientSecret: 'unused' },
      dashboardApiKey: 'dashboard-key-unused-0123456789',
    });
    app = createServer(express);
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    app?.closeAllConnections();
    await new Promise((resolve) => app?.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  /** The frontend's call: a browser on cookies, as the SDK's frontend asks with `st-auth-mode`. */
  const postExchange = (body: unknown, raw?: string, path = '/auth/exchange') =>
    fetch(`${appUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'st-auth-mode': 'cookie' },
      body: raw ?? JSON.stringify(body),
    });
  const cookiesOf = (res: Response) =>
    Object.fromEntries(
      res.headers.getSetCookie().map((c) => {
        const pair = c.split(';')[0];
        return [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      }),
    );

  itEmulator('imports the user with the migration command, exchanges its ID token for a session, and a verifySession route lets it in', async (emu) => {
    // In Firebase: a password user with a verified email, signed in on the old app.
    const email = uniqueEmail('fb-e2e');
    const localId = await emu.signUp(email, OLD_PASSWORD.password);
    await emu.verifyEmail(localId);
    const idToken = (await emu.signInWithPassword(email, OLD_PASSWORD.password)).body.idToken as string;

    // The switch: the export (the emulator keeps fake hashes, which the exporter drops, so the
    // user gets its real Firebase-scrypt hash, as a production export carries it), then the command.
    const exported = await emu.exportUsers();
    const user = exported.users.find((u) => u.localId === localId)!;
    Object.assign(user, { passwordHash: OLD_PASSWORD.passwordHash, salt: OLD_PASSWORD.salt });
    writeFileSync(join(dir, 'users.json'), JSON.stringify({ users: [user] }, null, 2));
    const report = await migrate(['firebase', join(dir, 'users.json'), '--hash-config', join(FIXTURE, 'hash-config.txt')], dir);
    expect(report.summary).toEqual({ total: 1, imported: 1, skipped: 0, failed: 0 });
    expect(report.users[0]).toMatchObject({ sourceId: localId, outcome: 'imported', userId: localId });

    // The frontend sends the token it still has; the app answers the user and a session in cookies.
    const res = await postExchange({ token: idToken });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body).toEqual({ status: 'OK', user: expect.objectContaining({ id: localId, emails: [email] }) });
    const cookies = cookiesOf(res);
    expect(Object.keys(cookies).sort()).toEqual(['sAccessToken', 'sRefreshToken']);

    const me = await fetch(`${appUrl}/me/strict`, { headers: { cookie: `sAccessToken=${cookies.sAccessToken}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual(expect.objectContaining({ userId: localId, recipeUserId: localId, tenantId: 'public' }));
    expect(await fetch(`${appUrl}/me`).then((r) => r.status)).toBe(401);

    // The token is spent: a second exchange makes no session.
    const again = await postExchange({ token: idToken });
    expect([again.status, await again.json(), again.headers.getSetCookie()]).toEqual([200, { status: 'TOKEN_ALREADY_USED_ERROR' }, []]);

    // The old password works too: the same user, by either way in.
    const signIn = await fetch(`${appUrl}/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'st-auth-mode': 'cookie' },
      body: JSON.stringify({
        formFields: [
          { id: 'email', value: email },
          { id: 'password', value: OLD_PASSWORD.password },
        ],
      }),
    });
    expect(((await signIn.json()) as any).user.id).toBe(localId);
  });

  itEmulator('answers the frontend every other outcome without a session: refusals, 400 and 503', async (emu) => {
    const email = uniqueEmail('fb-e2e-no');
    await emu.signUp(email, PASSWORD);
    const notImported = await postExchange({ token: (await signIn(emu, email)).idToken });
    expect([notImported.status, await notImported.json(), notImported.headers.getSetCookie()]).toEqual([200, { status: 'UNKNOWN_USER_ERROR' }, []]);
    expect(await (await postExchange({ token: 'not-a-token' })).json()).toEqual({ status: 'INVALID_TOKEN_ERROR' });

    const missing = { message: "Field 'token' (the old provider's token) is required" };
    for (const [body, raw, answer] of [
      [{}, undefined, missing],
      [{ token: 7 }, undefined, missing],
      [undefined, '{"token":', { message: 'The body is not valid JSON' }],
    ] as const) {
      const res = await postExchange(body, raw);
      expect([res.status, await res.json()]).toEqual([400, answer]);
    }
    // The tenant of the path goes to the core's path.
    const tenant = await postExchange({ token: 'not-a-token' }, undefined, '/auth/no-such-tenant/exchange');
    expect([tenant.status, await tenant.json()]).toEqual([400, { message: 'AppId or tenantId not found' }]);
    const tooLong = await postExchange({ token: 'x'.repeat(16385) });
    expect([tooLong.status, await tooLong.json()]).toEqual([400, { message: "Field name 'token' is invalid in JSON input" }]);

    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const t = Math.floor(Date.now() / 1000);
    const signed = await new SignJWT({ iss: DOWN_ISS, aud: 'app', sub: 'someone', iat: t, exp: t + 600 })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .sign(privateKey);
    const down = await postExchange({ token: signed });
    expect([down.status, await down.json(), down.headers.getSetCookie()]).toEqual([
      503,
      { message: "The token issuer's keys could not be fetched, try again later" },
      [],
    ]);
  });
});
