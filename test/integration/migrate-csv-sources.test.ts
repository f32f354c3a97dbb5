import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startApi, type TestApi } from '../support/api';
import { expectedSet, MIGRATION_FIXTURES } from '../support/migration';
import { checkImported, checkNotThere, expectedOutcomes, migrate, outcomes, rowCount, userCount } from '../support/migrate-e2e';

/**
 * The CSV sources of SPEC §17b end to end: the built command against the local service with its
 * bulk worker, on the shared fixtures. Every user is imported as expected.json says and signs in
 * with its old password through the real service (each hash family's verifier); a re-run adds
 * nothing; a broken file, or another source's file, exits 2 and writes nothing.
 */
const WORDPRESS = join(MIGRATION_FIXTURES, 'wordpress');

let dynamo: DynamoDbLocal;
let api: TestApi;
const dir = mkdtempSync(join(tmpdir(), 'migrate-csv-'));
beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
  api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1', BULK_WORKER: 'on' });
});
afterAll(async () => {
  await api?.stop();
  await dynamo?.stop();
});

/** Runs the command expecting exit 2 with `message`, and checks that nothing was written. */
async function refused(args: string[], message: string): Promise<void> {
  const [users, rows] = [await userCount(api), await rowCount(api)];
  const run = await migrate(api, dir, args);
  expect([run.code, run.stderr]).toEqual([2, expect.stringContaining(message)]);
  expect(run.stderr.trim().split('\n')).toHaveLength(1);
  expect(run.report).toBeUndefined();
  expect([await userCount(api), await rowCount(api)]).toEqual([users, rows]);
}

/** Writes `body` into the scratch folder and returns its path. */
function written(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
}

describe('migrating the WordPress fixture (wp_users.csv)', () => {
  const set = expectedSet(WORDPRESS);
  const csv = join(WORDPRESS, 'wp_users.csv');

  it('refuses a broken file, a file that is not wp_users, and --hashes: exit 2, nothing written', async () => {
    const cut = written('wp-cut.csv', `${readFileSync(csv, 'utf8')}4,"dan,`);
    await refused(['wordpress', cut], `${cut} is not a wp_users export (CSV with a header row of the table's column names): it is cut short`);
    const other = written('not-wp.csv', 'id,email,encrypted_password\nb2,amy@sb-demo.example,\n');
    await refused(
      ['wordpress', other],
      `${other} is not a wp_users export (CSV with a header row of the table's column names): its header row has no column ID`,
    );
    await refused(['wordpress', csv, '--hashes', csv], '--hashes does not apply to wordpress: it is for auth0.');
  });

  it('imports every user as the fixture expects: $P$ and $wp$ sign in with their passwords, the MD5 user is passwordless', async () => {
    const run = await migrate(api, dir, ['wordpress', csv]);
    expect([run.code, run.report.summary]).toEqual([set.exitCode, set.summary]);
    expect(outcomes(run.report)).toEqual(expectedOutcomes(set));
    for (const want of set.users) {
      if (want.outcome === 'imported') await checkImported(api, want);
      else await checkNotThere(api, want);
    }
    const carol = run.report.users.find((u: any) => u.sourceId === '3');
    expect(carol.warnings.map((w: any) => w.code)).toEqual(['hash-unsupported']);
    const secrets = readFileSync(csv, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(',')[2]);
    for (const secret of secrets) expect(run.stdout + run.stderr + JSON.stringify(run.report)).not.toContain(secret);
  });

  it('a second run adds nothing: the ledger answers for every imported user', async () => {
    const before = await userCount(api);
    const run = await migrate(api, dir, ['wordpress', csv]);
    expect([run.code, run.report.summary]).toEqual([set.exitCode, set.summary]);
    expect(run.report.users.filter((u: any) => u.outcome === 'imported' && u.fromLedger !== true)).toEqual([]);
    expect(await userCount(api)).toBe(before);
  });
});
