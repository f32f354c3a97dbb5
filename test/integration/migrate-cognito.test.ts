import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startApi, type TestApi } from '../support/api';
import { useCognitoLocal, type CognitoClient } from '../support/cognito-local';
import { uniqueEmail } from '../support/flows';
import { checkImported, checkNotThere, expectedOutcomes, migrate, outcomes, rerunSummary, rowCount, userCount } from '../support/migrate-e2e';
import { expectedSet, MIGRATION_FIXTURES } from '../support/migration';
import { COUNT_PATH } from '../support/password-migration';
import { scratchDir } from '../support/scratch';

/**
 * `migrate cognito` end to end (SPEC §17b, §16b): the built command against the local service with
 * its bulk worker. The shared fixture (list-users output of the AWS CLI v2) is imported as
 * expected.json says, its password user waiting for password migration at sign-in; a re-run adds
 * nothing; a file that is not list-users output, and a service that cannot migrate passwords at
 * sign-in, stop the command with exit 2 before anything is written. Then the real journey: users
 * made in cognito-local, exported with its ListUsers (epoch-second dates) and ListUsersInGroup,
 * imported, and signed in with their Cognito password, checked once by cognito-local.
 */
const COGNITO = join(MIGRATION_FIXTURES, 'cognito');
const USERS = join(COGNITO, 'list-users.json');
const GROUPS = join(COGNITO, 'groups.json');
const ENV = { ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1', BULK_WORKER: 'on' };
/** A Cognito source that is configured but never asked: the fixture's users never sign in with a password. */
const UNCALLED_COGNITO = {
  PASSWORD_MIGRATION_SOURCE: 'cognito',
  COGNITO_USER_POOL_ID: 'us-east-1_Fixture01',
  COGNITO_CLIENT_ID: 'fixture-client',
  COGNITO_ENDPOINT_URL: 'http://127.0.0.1:9/',
};

let dynamo: DynamoDbLocal;
const dir = scratchDir('migrate-cognito-e2e-');
beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
});
afterAll(async () => {
  await dynamo.stop();
});
const serviceEnv = (extra: Record<string, string> = {}) => ({ ...ENV, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, ...extra });
const pending = async (api: TestApi): Promise<number> => (await api.get(COUNT_PATH)).json.count;

describe('migrating the Cognito fixture (list-users and list-users-in-group output of the AWS CLI v2)', () => {
  const set = expectedSet(COGNITO);
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi(serviceEnv(UNCALLED_COGNITO));
  });
  afterAll(async () => {
    await api.stop();
  });
  const args = ['cognito', USERS, '--groups', GROUPS];

  it('refuses the wrong file, a broken one and a companion of another source: exit 2, nothing written', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"Users":[{"Username":"x","Attributes":[');
    for (const [run, sentence] of [
      [
        await migrate(api, dir, ['cognito', GROUPS]),
        `${GROUPS} is not aws cognito-idp list-users output ({"Users":[…]}): it has no top-level "Users" array (only staff).`,
      ],
      [await migrate(api, dir, ['cognito', broken]), `${broken} is not aws cognito-idp list-users output ({"Users":[…]}): it is not readable JSON`],
      [await migrate(api, dir, ['cognito', USERS, '--groups', USERS]), `${USERS} is not a --groups file`],
      [await migrate(api, dir, [...args, '--hashes', USERS]), '--hashes does not apply to cognito: it is for auth0.'],
    ] as const) {
      expect([run.code, run.stderr, run.report]).toEqual([2, expect.stringContaining(sentence), undefined]);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect([await userCount(api), await rowCount(api)]).toEqual([0, 0]);
  });

  it('imports every user as expected.json says: the password user waits for its first sign-in, Google finds its user, staff is a role', async () => {
    const run = await migrate(api, dir, args);
    expect([run.code, run.report.summary]).toEqual([set.exitCode, set.summary]);
    expect(outcomes(run.report)).toEqual(expectedOutcomes(set));
    expect(run.stderr).toContain('created role(s): staff');
    for (const want of set.users) {
      if (want.outcome === 'imported') await checkImported(api, want);
      else await checkNotThere(api, want);
    }
    // gd01 (CONFIRMED): imported without a hash, checked by Cognito at its first sign-in.
    expect(await pending(api)).toBe(set.users.filter((u) => (u as { migrateOnSignIn?: boolean }).migrateOnSignIn).length);
    expect(await rowCount(api)).toBe(0);
  });

  it('a second run adds nothing: the ledger answers for every imported user', async () => {
    const before = await userCount(api);
    const run = await migrate(api, dir, args);
    expect([run.code, run.report.summary]).toEqual([set.exitCode, rerunSummary(set.summary)]);
    expect(run.report.users.filter((u: any) => u.outcome === 'imported' && u.fromLedger !== true)).toEqual([]);
    expect(await userCount(api)).toBe(before);
  });
});

describe('a service without password migration at sign-in', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi(serviceEnv());
  });
  afterAll(async () => {
    await api.stop();
  });

  it('the default --no-hash migrate-on-signin stops the command with exit 2 before writing; --no-hash passwordless imports', async () => {
    const run = await migrate(api, dir, ['cognito', USERS]);
    expect([run.code, run.stderr, run.report]).toEqual([
      2,
      expect.stringContaining('--no-hash migrate-on-signin needs password migration at sign-in'),
      undefined,
    ]);
    expect([await userCount(api), await rowCount(api)]).toEqual([0, 0]);
    const passwordless = await migrate(api, dir, ['cognito', USERS, '--no-hash', 'passwordless']);
    expect([passwordless.code, passwordless.report.summary]).toEqual([0, { total: 3, imported: 2, skipped: 1, failed: 0 }]);
    const ada = await api.get(`/user/id?userId=22222222-bbbb-4000-8000-000000000001`);
    expect(ada.json.user.loginMethods.map((lm: any) => [lm.recipeId, lm.email, lm.verified])).toEqual([['passwordless', 'ada@cg-demo.example', true]]);
  });
});

describe('the real journey: cognito-local → ListUsers → migrate cognito → sign in with the Cognito password', () => {
  const PASSWORD = 'Cognito-journey-1';
  const who = { ada: uniqueEmail('cgj-ada'), ben: uniqueEmail('cgj-ben'), cy: uniqueEmail('cgj-cy') };
  const subs: Record<string, string> = {};
  let listed: any;
  let client: CognitoClient;
  let api: TestApi;
  const users = join(dir, 'cognito-local-users.json');
  const groups = join(dir, 'cognito-local-groups.json');

  const cognitoIt = useCognitoLocal('the cognito-local migration journey', async (cognito) => {
    const pool = await cognito.createUserPool();
    client = await cognito.createClient(pool);
    for (const [name, email] of Object.entries(who)) subs[name] = await cognito.createUser(pool, email, PASSWORD);
    const must = async (op: string, body: Record<string, unknown>) => {
      const res = await cognito.call(op, { UserPoolId: pool, ...body });
      if (res.status !== 200) throw new Error(`cognito-local ${op}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    await must('CreateGroup', { GroupName: 'editors' });
    await must('AdminAddUserToGroup', { GroupName: 'editors', Username: who.ada });
    await must('AdminDisableUser', { Username: who.cy });
    // The export as the command's user would make it: `aws cognito-idp list-users` and `list-users-in-group`.
    listed = await must('ListUsers', {});
    writeFileSync(users, JSON.stringify(listed, null, 4));
    writeFileSync(groups, JSON.stringify({ editors: await must('ListUsersInGroup', { GroupName: 'editors' }) }, null, 4));
    api = await startApi(
      serviceEnv({
        PASSWORD_MIGRATION_SOURCE: 'cognito',
        COGNITO_USER_POOL_ID: pool,
        COGNITO_REGION: 'us-east-1',
        COGNITO_CLIENT_ID: client.clientId,
        COGNITO_ENDPOINT_URL: cognito.origin,
      }),
    );
  });
  afterAll(async () => {
    await api?.stop();
  });

  cognitoIt('ListUsers writes epoch seconds; the users are imported by sub with those times, the disabled one skipped', async () => {
    const ada = listed.Users.find((u: any) => u.Attributes.some((a: any) => a.Name === 'sub' && a.Value === subs.ada));
    expect(typeof ada.UserCreateDate).toBe('number');
    const run = await migrate(api, dir, ['cognito', users, '--groups', groups]);
    expect([run.code, run.report.summary]).toEqual([0, { total: 3, imported: 2, skipped: 1, failed: 0 }]);
    expect(outcomes(run.report)).toEqual({ [subs.ada]: ['imported', undefined], [subs.ben]: ['imported', undefined], [subs.cy]: ['skipped', 'disabled'] });
    for (const name of ['ada', 'ben'] as const) {
      const got = (await api.get(`/user/id?userId=${subs[name]}`)).json.user;
      const listedUser = listed.Users.find((u: any) => u.Attributes.some((a: any) => a.Value === subs[name]));
      expect([name, got.timeJoined, got.loginMethods.map((lm: any) => [lm.recipeId, lm.email, lm.verified])]).toEqual([
        name,
        Math.round(listedUser.UserCreateDate * 1000),
        [['emailpassword', who[name], true]],
      ]);
    }
    expect((await api.get(`/recipe/user/roles?userId=${subs.ada}`)).json.roles).toEqual(['editors']);
    expect((await api.get(`/recipe/user/roles?userId=${subs.ben}`)).json.roles).toEqual([]);
    expect(await pending(api)).toBe(2);
  });

  cognitoIt('the Cognito password signs in, checked once by cognito-local; a wrong one does not and changes nothing', async (cognito) => {
    const wrong = await api.post('/recipe/signin', { email: who.ben, password: `${PASSWORD}x` });
    expect(wrong.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(await pending(api)).toBe(2);
    const right = await api.post('/recipe/signin', { email: who.ada, password: PASSWORD });
    expect([right.json.status, right.json.user?.id]).toEqual(['OK', subs.ada]);
    expect(await pending(api)).toBe(1);
    // From now on Ada's password is the service's own: Cognito gone, it still signs in.
    await cognito.stop();
    const again = await api.post('/recipe/signin', { email: who.ada, password: PASSWORD });
    expect([again.json.status, again.json.user?.id]).toEqual(['OK', subs.ada]);
    const wrongAfter = await api.post('/recipe/signin', { email: who.ada, password: `${PASSWORD}x` });
    expect(wrongAfter.json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    // Ben still waits for Cognito, which is gone: an outage, never a wrong password.
    const outage = await api.post('/recipe/signin', { email: who.ben, password: PASSWORD });
    expect(outage.status).toBe(503);
    expect(await pending(api)).toBe(1);
    expect(api.logs.filter((line) => line.includes(PASSWORD))).toEqual([]);
  });
});
