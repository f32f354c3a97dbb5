import { startApi, type ApiResponse, type TestApi } from '../support/api';
import { useCognitoLocal, type CognitoClient } from '../support/cognito-local';
import { uniqueEmail } from '../support/flows';
import { CHEAP_OWN_HASH, COUNT_PATH, IMPORT_PATH, SOURCE_UNAVAILABLE, waitForLog } from '../support/password-migration';
import { readStoredUser } from '../support/table';

/**
 * Cognito as the password migration source (SPEC §16b), end to end through the local server against
 * a real cognito-local: users imported without a hash have their first sign-in checked by Cognito's
 * `InitiateAuth`. cognito-local's pool ids are `local_<id>`, so the default region is `local`: beside
 * the emulator's `COGNITO_ENDPOINT_URL` (which only a process outside Lambda may set) the service
 * takes it as it is (the call is unsigned), so no `COGNITO_REGION` is given, as a newcomer would not. Its app client has a secret, so every call carries `SECRET_HASH` (cognito-local does not
 * check it: `password-migration-sources.test.ts` does, on a stub). No password may appear in a log
 * line or a response.
 */

const PASSWORD = 'Cognito-pässword-1';
const TEMPORARY = 'Temporary-Passw0rd!';

const passwords = new Set<string>([PASSWORD, TEMPORARY]);
const responses: ApiResponse[] = [];
const servers: TestApi[] = [];

let pool: string;
let client: CognitoClient;
let api: TestApi;
/** The users of the file: in Cognito or not, then imported without a hash. */
const email = {
  right: uniqueEmail('cog-right'),
  wrong: uniqueEmail('cog-wrong'),
  unknown: uniqueEmail('cog-unknown'),
  temporary: uniqueEmail('cog-temporary'),
  later: uniqueEmail('cog-later'),
};
const ids = new Map<string, string>();

async function start(env: Record<string, string>): Promise<TestApi> {
  const started = await startApi({ ...CHEAP_OWN_HASH, ...env });
  servers.push(started);
  return started;
}

async function call(on: TestApi, method: 'post' | 'get', path: string, body?: Record<string, unknown>): Promise<ApiResponse> {
  if (typeof body?.password === 'string') passwords.add(body.password);
  const res = method === 'get' ? await on.get(path) : await on.post(path, body);
  responses.push(res);
  return res;
}
const signIn = (on: TestApi, who: string, password: string) => call(on, 'post', '/recipe/signin', { email: who, password });
const pending = async (): Promise<number> => (await call(api, 'get', COUNT_PATH)).json.count;
const stored = (who: string) => readStoredUser(api.tableName, ids.get(who)!);

const cognitoIt = useCognitoLocal('the Cognito password migration tests', async (cognito) => {
  pool = await cognito.createUserPool();
  client = await cognito.createClient(pool, { secret: true });
  for (const who of [email.right, email.wrong, email.later]) await cognito.createUser(pool, who, PASSWORD);
  // FORCE_CHANGE_PASSWORD: created with a temporary password, never set for good.
  const created = await cognito.call('AdminCreateUser', {
    UserPoolId: pool,
    Username: email.temporary,
    TemporaryPassword: TEMPORARY,
    MessageAction: 'SUPPRESS',
    UserAttributes: [{ Name: 'email', Value: email.temporary }],
  });
  expect(created.status).toBe(200);
  api = await start({
    PASSWORD_MIGRATION_SOURCE: 'cognito',
    COGNITO_USER_POOL_ID: pool,
    COGNITO_CLIENT_ID: client.clientId,
    COGNITO_CLIENT_SECRET: client.clientSecret!,
    COGNITO_ENDPOINT_URL: cognito.origin,
    PASSWORD_MIGRATION_TIMEOUT_MS: '3000',
  });
  for (const who of Object.values(email)) {
    const imported = await call(api, 'post', IMPORT_PATH, { email: who, migratePasswordOnSignIn: true });
    expect(imported.json).toMatchObject({ status: 'OK', didUserAlreadyExist: false });
    ids.set(who, imported.json.user.id);
  }
});

afterAll(async () => {
  for (const s of servers) await s.stop();
  const logs = servers.flatMap((s) => s.logs);
  for (const password of passwords) {
    expect(logs.filter((line) => line.includes(password))).toEqual([]);
    expect(responses.filter((r) => r.text.includes(password)).map((r) => r.text)).toEqual([]);
  }
  // Nor any token or challenge session cognito-local handed out.
  expect(logs.filter((line) => /eyJ[\w-]+\.eyJ|"Session"/.test(line))).toEqual([]);
});

describe('password migration at sign-in against cognito-local (SPEC §16b)', () => {
  cognitoIt('imported without a hash: waiting, counted, and the count names the source', async () => {
    expect((await call(api, 'get', COUNT_PATH)).json).toEqual({ status: 'OK', count: 5, source: 'cognito' });
    expect((await stored(email.right))?.passwordMigration).toEqual({ markedAt: expect.any(Number) });
  });

  cognitoIt('a right password: OK, the own Argon2id stored, no longer waiting', async () => {
    const before = await pending();
    const res = await signIn(api, email.right, PASSWORD);
    expect(res.json).toMatchObject({ status: 'OK', user: { id: ids.get(email.right), emails: [email.right] }, recipeUserId: ids.get(email.right) });
    const user = await stored(email.right);
    expect([user?.passwordHash, user?.passwordMigration]).toEqual([expect.stringMatching(/^\$argon2id\$v=19\$m=4096,t=3,p=1\$/), undefined]);
    expect(await pending()).toBe(before - 1);
    await waitForLog(api, (l) => l.includes('"SignInMigrations"') && l.includes(ids.get(email.right)!));
    const metric = api.logs.map((l) => (l.startsWith('{') ? JSON.parse(l) : undefined)).find((l) => l?._aws && l.userId === ids.get(email.right));
    expect(metric).toMatchObject({ Source: 'cognito', Outcome: 'migrated', SignInMigrations: 1 });
  });

  cognitoIt('a wrong password (cognito-local: InvalidPasswordException) or a user Cognito does not know: WRONG_CREDENTIALS_ERROR, still waiting', async () => {
    const before = await pending();
    for (const [who, password] of [
      [email.wrong, 'not-the-password'],
      [email.unknown, PASSWORD],
    ]) {
      const user = await stored(who);
      expect([who, (await signIn(api, who, password)).json]).toEqual([who, { status: 'WRONG_CREDENTIALS_ERROR' }]);
      expect(await stored(who)).toEqual(user);
    }
    expect(await pending()).toBe(before);
  });

  cognitoIt('a FORCE_CHANGE_PASSWORD user signs in with the temporary password: Cognito asks NEW_PASSWORD_REQUIRED, a match', async (cognito) => {
    // What Cognito answers the service (tokens would come only after the challenge).
    const asked = await cognito.initiateAuth(client, email.temporary, TEMPORARY);
    expect([asked.status, asked.body.ChallengeName, asked.body.AuthenticationResult]).toEqual([200, 'NEW_PASSWORD_REQUIRED', undefined]);
    const before = await pending();
    const res = await signIn(api, email.temporary, TEMPORARY);
    expect(res.json).toMatchObject({ status: 'OK', user: { id: ids.get(email.temporary) } });
    expect((await stored(email.temporary))?.passwordMigration).toBeUndefined();
    expect(await pending()).toBe(before - 1);
  });

  cognitoIt('configuration errors: each missing or malformed piece refuses the start with one sentence naming it (SPEC §16b)', async (cognito) => {
    const base = {
      TABLE_NAME: api.tableName,
      PASSWORD_MIGRATION_SOURCE: 'cognito',
      COGNITO_USER_POOL_ID: pool,
      COGNITO_REGION: 'us-east-1',
      COGNITO_CLIENT_ID: client.clientId,
      COGNITO_ENDPOINT_URL: cognito.origin,
    };
    const { COGNITO_CLIENT_ID: _client, ...noClient } = base;
    const { COGNITO_USER_POOL_ID: _pool, ...noPool } = base;
    const { COGNITO_ENDPOINT_URL: _endpoint, ...noEndpoint } = base;
    const cases: [Record<string, string>, string][] = [
      [noPool, 'PASSWORD_MIGRATION_SOURCE=cognito needs COGNITO_USER_POOL_ID'],
      [noClient, 'PASSWORD_MIGRATION_SOURCE=cognito needs COGNITO_CLIENT_ID'],
      [{ ...base, COGNITO_USER_POOL_ID: 'not-a-pool-id' }, 'COGNITO_USER_POOL_ID must be <region>_<id>'],
      // `local_…` is no AWS region: without the emulator's endpoint it would name no Cognito.
      [noEndpoint, "COGNITO_REGION (default: COGNITO_USER_POOL_ID's prefix) must be the pool's AWS region"],
      [{ ...base, PASSWORD_MIGRATION_SOURCE: 'cognitoo' }, 'PASSWORD_MIGRATION_SOURCE must be off, firebase, webhook or cognito'],
    ];
    for (const [env, text] of cases) await expect(start(env)).rejects.toThrow(`server exited with 1: ${text}`);
    expect((await stored(email.later))?.passwordMigration).toEqual({ markedAt: expect.any(Number) });
  });

  cognitoIt('once cognito-local is stopped: 503 for a waiting user, unchanged; migrated users sign in without it', async (cognito) => {
    await cognito.stop();
    const before = await stored(email.later);
    const count = await pending();
    const res = await signIn(api, email.later, PASSWORD);
    expect([res.status, res.text]).toEqual([503, SOURCE_UNAVAILABLE]);
    expect(await stored(email.later)).toEqual(before);
    expect(await pending()).toBe(count);
    expect(
      await waitForLog(api, (l) => l.includes('password migration source unavailable') && l.includes('ECONNREFUSED') && l.includes(ids.get(email.later)!)),
    ).toBe(true);
    expect((await signIn(api, email.right, PASSWORD)).json).toMatchObject({ status: 'OK', user: { id: ids.get(email.right) } });
    expect((await signIn(api, email.temporary, TEMPORARY)).json.status).toBe('OK');
    expect((await signIn(api, email.right, 'not-the-password')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });
});
