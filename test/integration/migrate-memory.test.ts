import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auth0 } from '../../bench/migrate/auth0';
import { dryRun } from '../../bench/migrate/dry-run';
import { supabase } from '../../bench/migrate/supabase';
import { writeFirebaseExport } from '../support/firebase-export';
import { MIGRATION_FIXTURES } from '../support/migration';

/**
 * A 100,000-user Firebase export is read and mapped (`--dry-run --offline`) by the built command
 * in a JavaScript heap smaller than the file itself: the export is streamed, never loaded whole
 * (parsed whole, its 37 MB of JSON would take several times that), and the collision index keeps
 * hashes, not users.
 */
const CLI = join(__dirname, '..', '..', 'dist', 'cli', 'migrate.js');
const HEAP_MB = 34;
const dir = mkdtempSync(join(tmpdir(), 'migrate-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it(`maps 100,000 users with a ${HEAP_MB} MB heap, finding every collision`, async () => {
  const N = 100_000;
  const file = join(dir, 'users.json');
  await writeFirebaseExport(file, N);
  const bytes = statSync(file).size;
  expect(bytes).toBeGreaterThan(HEAP_MB * 1024 * 1024);

  const report = join(dir, 'report.json');
  const hashConfig = join(MIGRATION_FIXTURES, 'firebase', 'hash-config.txt');
  const run = spawnSync(
    process.execPath,
    [`--max-old-space-size=${HEAP_MB}`, CLI, 'firebase', file, '--hash-config', hashConfig, '--dry-run', '--offline', '--report', report],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    },
  );
  expect([run.status, run.stderr]).toEqual([1, expect.not.stringContaining('heap out of memory')]);
  const result = JSON.parse(readFileSync(report, 'utf8'));
  // One pair of users sharing an email per 1,000 (both fail), one user in 50 disabled (skipped).
  const disabled = Array.from({ length: N }, (_, i) => i).filter((i) => i % 50 === 7).length;
  expect(result.summary).toEqual({ total: N, imported: N - 200 - disabled, skipped: disabled, failed: 200 });
  expect(result.collisions).toHaveLength(100);
  expect(result.users).toHaveLength(N);
}, 180_000);

/**
 * SPEC §17c, bounded memory: Auth0 with its hash export and Supabase with `auth.identities`, at
 * 10,000 and at 40,000 users, each in one small heap (16 MB, where the command that held its
 * companions and collision hashes in memory runs out at 40,000), and the larger run's peak
 * resident memory at most 1.3 times the smaller's: the companion joins and the collision index
 * are on disk (`MIGRATE_SORT_BUFFER_MB=1` keeps their buffers small enough to fill at this size).
 */
describe.each([
  { source: 'auth0', generator: auth0 },
  { source: 'supabase', generator: supabase },
])('$source with its companions', ({ source, generator }) => {
  const FLAGS: Record<string, string> = { hashes: '--hashes', identities: '--identities' };

  it('maps 4 times the users in the same 16 MB heap and at most 1.3 times the peak RSS', async () => {
    // Each size's export is written, then mapped by the command in a child process of its own (its
    // own peak RSS): the smaller one is mapped while the larger one is being written.
    const mapped = async (n: number) => {
      const sub = join(dir, `${source}-${n}`);
      mkdirSync(sub);
      const written = await generator.write(sub, n);
      const companions = Object.entries(written.companions).flatMap(([k, v]) => (typeof v === 'string' ? [FLAGS[k], v] : []));
      const report = join(sub, 'report.json');
      const run = dryRun([source, written.file, ...companions, '--dry-run', '--offline', '--report', report], {
        node: ['--max-old-space-size=16'],
        env: { MIGRATE_SORT_BUFFER_MB: '1' },
      });
      run.catch(() => undefined); // awaited below; a spawn error fails the test there
      return { n, report, run };
    };
    const small = await mapped(10_000);
    const large = await mapped(40_000);
    const peaks: number[] = [];
    for (const { n, report, run } of [small, large]) {
      const { status, stderr, peakRssBytes } = await run;
      expect([status, stderr]).toEqual([1, expect.not.stringContaining('heap out of memory')]);
      const result = JSON.parse(readFileSync(report, 'utf8'));
      // One pair of users sharing an email per 1,000 (both fail), one user in 50 disabled (skipped).
      expect(result.summary).toEqual({ total: n, imported: n - n / 50 - n / 500, skipped: n / 50, failed: n / 500 });
      expect(result.collisions).toHaveLength(n / 1000);
      peaks.push(peakRssBytes);
    }
    expect(peaks[1] / peaks[0]).toBeLessThanOrEqual(1.3);
  }, 240_000);
});
