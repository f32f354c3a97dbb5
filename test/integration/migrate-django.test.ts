import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startApi, type TestApi } from '../support/api';
import { expectedSet, MIGRATION_FIXTURES } from '../support/migration';
import { checkImported, checkNotThere, expectedOutcomes, migrate, outcomes, rerunSummary, rowCount, userCount } from '../support/migrate-e2e';
import { scratchDir } from '../support/scratch';

/**
 * The Django source end to end (SPEC §17b): the built command on the dump Django wrote
 * (`manage.py dumpdata auth.group auth.user`) against the local service with its bulk worker.
 * Afterwards every password user signs in with its Django password under its Django id, the
 * unusable-password user is found by its email, the group is a role; a second run adds nothing;
 * a dump cut short or another source's file exits 2 with nothing written.
 */
const DJANGO = join(MIGRATION_FIXTURES, 'django');
const DUMP = join(DJANGO, 'auth.json');
const SET = expectedSet(DJANGO);
const ENV = { ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1', BULK_WORKER: 'on' };
const RECORDS: { model: string }[] = JSON.parse(readFileSync(DUMP, 'utf8'));

let dynamo: DynamoDbLocal;
const dir = scratchDir('migrate-django-e2e-');
const file = (name: string, body: string): string => {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
};
beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
});
afterAll(async () => {
  await dynamo.stop();
});

/** A service of its own (a fresh table) for the suite that calls it. */
function freshService(): () => TestApi {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi({ ...ENV, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint });
  });
  afterAll(async () => {
    await api.stop();
  });
  return () => api;
}
/** The fixture's records of one model, as a dump of their own. */
const dumpOfModel = (model: string): string => {
  const records = RECORDS.filter((r) => r.model === model);
  return file(`${model}.json`, JSON.stringify(records, null, 2));
};

describe('migrating the Django fixture (dumpdata auth.group auth.user)', () => {
  const service = freshService();

  it('refuses a dump cut short, another source file and --hashes: exit 2, one line naming the file, nothing written', async () => {
    const api = service();
    const text = readFileSync(DUMP, 'utf8');
    const cut = file('cut.json', text.slice(0, text.length - 200));
    const realm = file('demo-realm.json', JSON.stringify({ realm: 'demo', users: [{ id: 'k1', username: 'kc', email: 'kc@x.example' }] }, null, 2));
    const supabase = join(MIGRATION_FIXTURES, 'supabase', 'users.ndjson');
    for (const [args, message] of [
      [['django', cut], `${cut} is not a Django dumpdata file`],
      [['django', realm], `${realm} is not a Django dumpdata file`],
      [['django', supabase], `${supabase} is not a Django dumpdata file`],
      [['django', DUMP, '--hashes', DUMP], '--hashes does not apply to django: it is for auth0.'],
    ] as const) {
      const run = await migrate(api, dir, [...args]);
      expect([args[1], run.code, run.stderr]).toEqual([args[1], 2, expect.stringContaining(message)]);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.report).toBeUndefined();
    }
    expect(await userCount(api)).toBe(0);
    expect(await rowCount(api)).toBe(0);
  });

  it('imports every user as the fixture expects: each password signs in, the group is a role', async () => {
    const api = service();
    const run = await migrate(api, dir, ['django', DUMP]);
    expect([run.code, run.report.summary]).toEqual([SET.exitCode, SET.summary]);
    expect(outcomes(run.report)).toEqual(expectedOutcomes(SET));
    expect(run.report.rolesCreated).toEqual(SET.rolesToCreate);
    for (const want of SET.users) {
      if (want.outcome === 'imported') await checkImported(api, want);
      else await checkNotThere(api, want);
    }
    // No hash (nor its salt) on the terminal or in the report.
    const printed = run.stdout + run.stderr + JSON.stringify(run.report);
    const salts = ['14a84d23cd1df77db20db8', 'NnVOODljc3BFMmVvODFkbHIzS1dSMg', 'MyKuPAnC61yTIUqTtTsJSe', '0eoo0CX1Odbwnnop'];
    for (const salt of salts) expect(printed).not.toContain(salt);
  });

  it('a second run adds nothing: the ledger answers for every imported user', async () => {
    const api = service();
    const before = await userCount(api);
    const run = await migrate(api, dir, ['django', DUMP]);
    expect([run.code, run.report.summary]).toEqual([SET.exitCode, rerunSummary(SET.summary)]);
    const imported = run.report.users.filter((u: any) => u.outcome === 'imported');
    expect(imported.filter((u: any) => u.fromLedger !== true)).toEqual([]);
    expect(await userCount(api)).toBe(before);
  });
});

describe('the users dumped alone, the groups given with --groups, --assume-verified', () => {
  const service = freshService();

  it('imports the same users, verified, with the group as a role', async () => {
    const api = service();
    const users = dumpOfModel('auth.user');
    const groups = dumpOfModel('auth.group');
    const alone = await migrate(api, dir, ['django', users]);
    expect([alone.code, alone.stderr]).toEqual([2, expect.stringContaining('user 1 is in group 1 but the dump holds no auth.group record of that id')]);
    expect(await rowCount(api)).toBe(0);

    const run = await migrate(api, dir, ['django', users, '--groups', groups, '--assume-verified']);
    expect([run.code, run.report.summary]).toEqual([SET.exitCode, SET.summary]);
    for (const want of SET.users.filter((u) => u.outcome === 'imported')) {
      await checkImported(api, { ...want, loginMethods: want.loginMethods.map((lm) => ({ ...lm, verified: true })) });
    }
  });
});
