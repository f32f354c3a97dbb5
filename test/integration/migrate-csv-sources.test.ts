import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startApi, type TestApi } from '../support/api';
import { expectedSet, MIGRATION_FIXTURES, warningCodes } from '../support/migration';
import { checkImported, checkNotThere, expectedOutcomes, migrate, outcomes, rerunSummary, rowCount, userCount } from '../support/migrate-e2e';
import { scratchDir } from '../support/scratch';

/**
 * The CSV sources of SPEC §17b end to end: the built command against the local service with its
 * bulk worker, on the shared fixtures. Every user is imported as expected.json says and signs in
 * with its old password through the real service (each hash family's verifier); a re-run adds
 * nothing; a broken file, or another source's file, exits 2 and writes nothing.
 */
const WORDPRESS = join(MIGRATION_FIXTURES, 'wordpress');
const CLERK = join(MIGRATION_FIXTURES, 'clerk');

let dynamo: DynamoDbLocal;
let api: TestApi;
const dir = scratchDir('migrate-csv-');
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

const wordpressCsv = join(WORDPRESS, 'wp_users.csv');
const clerkCsv = join(CLERK, 'clerk-users.csv');
const WHAT = {
  wordpress: "a wp_users export (CSV with a header row of the table's column names)",
  clerk: "a Clerk users export (the dashboard's CSV with its header row)",
};

describe.each([
  { source: 'wordpress', folder: WORDPRESS, csv: wordpressCsv, other: clerkCsv, column: 'ID', notFor: ['--hashes', wordpressCsv, 'auth0'] },
  { source: 'clerk', folder: CLERK, csv: clerkCsv, other: wordpressCsv, column: 'id', notFor: ['--assume-verified', undefined, 'django and wordpress'] },
] as const)('migrating the $source fixture', ({ source, folder, csv, other, column, notFor: [flag, value, takers] }) => {
  const set = expectedSet(folder);

  it("refuses a broken file, the other source's file, and a companion it does not take: exit 2, nothing written", async () => {
    const cut = written(`${source}-cut.csv`, `${readFileSync(csv, 'utf8')}4,"dan,`);
    await refused([source, cut], `${cut} is not ${WHAT[source]}: it is cut short (a quoted cell never ends).`);
    await refused([source, other], `${other} is not ${WHAT[source]}: its header row has no column ${column}`);
    await refused([source, csv, flag, ...(value ? [value] : [])], `${flag} does not apply to ${source}: it is for ${takers}.`);
  });

  it('imports every user as the fixture expects; each password signs in through its family', async () => {
    const run = await migrate(api, dir, [source, csv]);
    expect([run.code, run.report.summary]).toEqual([set.exitCode, set.summary]);
    expect(outcomes(run.report)).toEqual(expectedOutcomes(set));
    for (const want of set.users) {
      if (want.outcome === 'imported') await checkImported(api, want);
      else await checkNotThere(api, want);
    }
    for (const want of set.users) {
      const got = run.report.users.find((u: any) => u.sourceId === want.sourceId);
      expect([want.label, (got.warnings ?? []).map((w: any) => w.code)]).toEqual([want.label, warningCodes(want)]);
    }
    // No hash of the file reaches the report or the terminal.
    const hashes = readFileSync(csv, 'utf8').match(/\$(P|wp|2b)\$\S+?(?=,)|\b[0-9a-f]{32}\b/g)!;
    expect(hashes.length).toBeGreaterThan(0);
    for (const hash of hashes) expect(run.stdout + run.stderr + JSON.stringify(run.report)).not.toContain(hash);
  });

  it('a second run adds nothing: the ledger answers for every imported user', async () => {
    const before = await userCount(api);
    const run = await migrate(api, dir, [source, csv]);
    expect([run.code, run.report.summary]).toEqual([set.exitCode, rerunSummary(set.summary)]);
    expect(run.report.users.filter((u: any) => u.outcome === 'imported' && u.fromLedger !== true)).toEqual([]);
    expect(await userCount(api)).toBe(before);
  });
});
