import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startApi, type TestApi } from '../support/api';
import { expectedSet, MIGRATION_FIXTURES, type ExpectedUser } from '../support/migration';
import {
  checkImported,
  checkNotThere,
  expectedOutcomes,
  expectRerunAddsNothing,
  migrate,
  outcomes,
  rerunSummary,
  rowCount,
  userCount,
} from '../support/migrate-e2e';
import { testDocClient } from '../support/table';
import { scratchDir } from '../support/scratch';

/**
 * The Keycloak source end to end (SPEC §17b): the built command on the fixture of a `kc.sh export`
 * realm file, against the local service and its bulk worker. Every user is as expected.json says;
 * the converted PBKDF2 and Argon2 hashes sign in with the known passwords and are then rehashed to
 * the service's own Argon2id; the realm role is created; a re-run adds nothing; a file that is not a
 * Keycloak export (another source's, or cut short) exits 2 and writes nothing.
 */
const KEYCLOAK = join(MIGRATION_FIXTURES, 'keycloak');
const REALM_FILE = join(KEYCLOAK, 'demo-realm.json');
const SUPABASE_USERS = join(MIGRATION_FIXTURES, 'supabase', 'users.ndjson');
/** Own hashing parameters smaller than any of the fixture's, to tell the rehash apart. */
const ENV = { ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1', BULK_WORKER: 'on' };
const OWN_HASH = /^\$argon2id\$v=19\$m=1024,t=1,p=1\$/;

const set = expectedSet(KEYCLOAK);
const realm = JSON.parse(readFileSync(REALM_FILE, 'utf8'));
/** The salts and values of the fixture's credentials: none may reach the terminal or the report. */
const secrets: string[] = realm.users.flatMap((u: any) =>
  u.credentials.flatMap((c: any) => Object.values(JSON.parse(c.secretData)).filter((v) => typeof v === 'string')),
);

let dynamo: DynamoDbLocal;
let api: TestApi;
const dir = scratchDir('migrate-keycloak-e2e-');
beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
  api = await startApi({ ...ENV, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint });
});
afterAll(async () => {
  await api?.stop();
  await dynamo?.stop();
});

/** Every stored copy of a login method's password hash (the login method item and any snapshot of it). */
async function storedHashes(email: string): Promise<string[]> {
  const doc = testDocClient(dynamo.endpoint);
  try {
    const out = await doc.send(new ScanCommand({ TableName: api.tableName, ConsistentRead: true }));
    return (out.Items ?? []).filter((item) => item.email === email && typeof item.passwordHash === 'string').map((item) => item.passwordHash as string);
  } finally {
    doc.destroy();
  }
}

/**
 * expected.json lists the metadata keys that must hold its values; every imported user also has
 * its `username` (SPEC §17b). What the service holds must be exactly that.
 */
function withUsername(want: ExpectedUser): ExpectedUser {
  const source = realm.users.find((u: any) => u.id === want.sourceId);
  return { ...want, metadata: { username: source.username, ...want.metadata } };
}

describe('migrating the Keycloak fixture (a kc.sh export realm file)', () => {
  const args = ['keycloak', REALM_FILE];

  it.each([
    ["the Supabase fixture's auth.users", SUPABASE_USERS, 'it has no top-level "realm" (only instance_id, id'],
    ['a Django dumpdata file', '[{"model": "auth.user", "pk": 1, "fields": {"username": "amy"}}]', 'it is a JSON array'],
    ['a Firebase auth:export file', '{"users": [{"localId": "x", "email": "x@example.com"}]}', 'it has no top-level "realm"'],
    ['the realm file cut short', readFileSync(REALM_FILE, 'utf8').slice(0, 2500), 'it is not readable JSON'],
  ])('refuses %s: exit 2, one sentence naming the file, nothing written', async (_name, input, sentence) => {
    const file = input === SUPABASE_USERS ? input : join(dir, `wrong-${Math.random().toString(16).slice(2)}.json`);
    if (file !== input) writeFileSync(file, input);
    const run = await migrate(api, dir, ['keycloak', file]);
    expect([run.code, run.stdout]).toEqual([2, '']);
    expect(run.stderr).toContain(`error: ${file} is not a Keycloak export`);
    expect(run.stderr).toContain(sentence);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.report).toBeUndefined();
    for (const secret of secrets) expect(run.stderr).not.toContain(secret);
    expect([await userCount(api), await rowCount(api)]).toEqual([0, 0]);
  });

  it('refuses a realm folder without users, and a folder given to another source', async () => {
    const folder = join(dir, 'realm-only');
    mkdirSync(folder);
    const { users: _users, ...withoutUsers } = realm;
    writeFileSync(join(folder, 'demo-realm.json'), JSON.stringify(withoutUsers));
    const none = await migrate(api, dir, ['keycloak', folder]);
    expect([none.code, none.stderr]).toEqual([2, expect.stringContaining(`error: ${folder} has no users`)]);
    const other = await migrate(api, dir, ['supabase', folder]);
    expect([other.code, other.stderr]).toEqual([2, expect.stringContaining(`cannot read the export ${folder}: EISDIR.`)]);
    expect([none.report, other.report]).toEqual([undefined, undefined]);
    expect([await userCount(api), await rowCount(api)]).toEqual([0, 0]);
  });

  it('imports every user as expected.json says; each password signs in and is rehashed to the own Argon2id', async () => {
    const run = await migrate(api, dir, args);
    expect([run.code, run.report.summary]).toEqual([set.exitCode, set.summary]);
    expect(outcomes(run.report)).toEqual(expectedOutcomes(set));
    expect(run.report.rolesCreated).toEqual(set.rolesToCreate);
    expect(run.stdout).toContain('4 users: 3 imported, 1 skipped, 0 failed');
    for (const secret of secrets) expect(run.stdout + run.stderr + JSON.stringify(run.report)).not.toContain(secret);

    for (const want of set.users) {
      if (want.outcome !== 'imported') {
        await checkNotThere(api, want);
        continue;
      }
      const email = want.loginMethods.find((lm) => lm.recipeId === 'emailpassword')!.email!;
      const before = await storedHashes(email);
      expect([want.label, before.length > 0, before.some((h) => OWN_HASH.test(h))]).toEqual([want.label, true, false]);
      // Signs in with the password (and not with a wrong one), finds Google's identity, checks metadata and roles.
      await checkImported(api, withUsername(want));
      const after = await storedHashes(email);
      expect([want.label, after.length > 0, after.every((h) => OWN_HASH.test(h))]).toEqual([want.label, true, true]);
      expect((await api.post('/recipe/signin', { email, password: want.password })).json.status).toBe('OK');
    }
    expect(await userCount(api)).toBe(set.summary.imported);
  });

  it('a second run adds nothing: the ledger answers for every imported user', async () => {
    await expectRerunAddsNothing(api, dir, args, set);
  });

  it('the same export as a folder of users files is answered by the same ledger (found by source, service and tenant)', async () => {
    const folder = join(dir, 'different-files');
    mkdirSync(folder);
    const { users, ...withoutUsers } = realm;
    writeFileSync(join(folder, 'demo-realm.json'), JSON.stringify(withoutUsers));
    writeFileSync(join(folder, 'demo-users-0.json'), JSON.stringify({ realm: 'demo', users: users.slice(0, 2) }));
    writeFileSync(join(folder, 'demo-users-1.json'), JSON.stringify({ realm: 'demo', users: users.slice(2) }));
    const before = await userCount(api);
    const run = await migrate(api, dir, ['keycloak', folder]);
    expect([run.code, run.report.summary]).toEqual([set.exitCode, rerunSummary(set.summary)]);
    expect(outcomes(run.report)).toEqual(expectedOutcomes(set));
    expect(run.report.users.filter((u: any) => u.outcome === 'imported' && u.fromLedger !== true)).toEqual([]);
    expect(await userCount(api)).toBe(before);
  });
});
