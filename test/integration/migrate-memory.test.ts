import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
