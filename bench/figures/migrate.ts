import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { startApi, TEST_API_KEY } from '../../test/support/api';
import { VENDOR_SCRYPT_PROJECT } from '../../test/fixtures/password-vectors';
import { round, table, timed } from '../stats';
import { readHashConfig } from '../../lib/migrate/hash-config';
import { firebaseSource } from '../../lib/migrate/sources/firebase';
import { plan } from '../../test/support/migration';
import { writeFirebaseExport } from '../../test/support/firebase-export';
import { ROOT, type Figure, type Report } from '../figure';
import { untilNoRowLeft } from '../server';

export const figure: Figure = { name: 'migrate', number: 7, needs: 'dynamodb', run: migrationCommand };

/** Users of the migration command's figure (`BENCH_MIGRATE_USERS`). */
const MIGRATE_USERS = 20_000;

/**
 * Figure 7: a generated Firebase export through the migration command (the built bin, a child
 * process) against the local service, next to the same users mapped in-process and staged
 * straight through the bulk-import API in requests of 1,000: what the command costs on top of
 * the API. Each side on a DynamoDB Local of its own.
 */
async function migrationCommand({ say, results }: Report): Promise<void> {
  const users = Number(process.env.BENCH_MIGRATE_USERS ?? MIGRATE_USERS);
  const dir = mkdtempSync(join(tmpdir(), 'bench-migrate-'));
  const file = join(dir, 'users.json');
  const { bytes } = await writeFirebaseExport(file, users);
  const hashConfigFile = join(ROOT, 'test', 'fixtures', 'migration', 'firebase', 'hash-config.txt');
  const env = { BULK_WORKER: 'on', VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey };
  const sides: { name: string; imported: number; ms: number }[] = [];

  // The command.
  {
    const dynamo = await startDynamoDbLocal();
    const api = await startApi({ ...env, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint });
    try {
      const report = join(dir, 'report.json');
      const { ms } = await timed(async () => {
        const run = spawnSync(
          process.execPath,
          [
            join(ROOT, 'dist', 'cli', 'migrate.js'),
            'firebase',
            file,
            '--hash-config',
            hashConfigFile,
            '--url',
            api.baseUrl,
            '--api-key',
            TEST_API_KEY,
            '--report',
            report,
          ],
          {
            encoding: 'utf8',
          },
        );
        if (run.status !== 1 && run.status !== 0) throw new Error(`migrate exited ${run.status}: ${run.stderr.slice(-500)}`);
      });
      const summary = JSON.parse(readFileSync(report, 'utf8')).summary;
      sides.push({ name: 'the command (read twice, collisions, staged 1,000 a request, every row followed to the end)', imported: summary.imported, ms });
    } finally {
      await api.stop();
      await dynamo.stop();
    }
  }
  // The same users, mapped in-process, staged straight through the API.
  {
    const dynamo = await startDynamoDbLocal();
    const api = await startApi({ ...env, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint });
    try {
      const { users: planned } = await plan(
        firebaseSource(file, { opts: { tenant: 'public', noHash: 'passwordless', includeDisabled: false }, hashConfig: readHashConfig(hashConfigFile) }),
      );
      const bulk = planned.filter((p) => p.outcome === 'imported').map((p) => p.mapped.user);
      const count = async (status: string) => (await api.get(`/bulk-import/users/count?status=${status}`)).json.count as number;
      const { ms } = await timed(async () => {
        for (let i = 0; i < bulk.length; i += 1000) {
          const res = await api.post('/bulk-import/users', { users: bulk.slice(i, i + 1000) });
          if (res.status !== 200) throw new Error(`staging failed: ${res.status} ${res.text.slice(0, 200)}`);
        }
        await untilNoRowLeft(count);
      });
      sides.push({ name: 'the same users mapped in-process, staged straight through the bulk API', imported: bulk.length, ms });
    } finally {
      await api.stop();
      await dynamo.stop();
    }
  }
  const [cmd, api] = sides;
  const rate = (s: (typeof sides)[number]) => s.imported / (s.ms / 1000);
  results.migrationCommand = {
    sourceUsers: users,
    exportBytes: bytes,
    commandImported: cmd.imported,
    commandUsersPerSecond: round(rate(cmd), 0),
    apiUsersPerSecond: round(rate(api), 0),
    ratio: round(rate(cmd) / rate(api)),
  };
  say(`\n### 7. Migration command (${users} Firebase users, ${round(bytes / 1e6, 1)} MB export)\n`);
  say(
    table(
      ['path', 'users imported', 'users/s', 'seconds'],
      [...sides.map((s) => [s.name, s.imported, round(rate(s), 0), round(s.ms / 1000, 1)]), ['ratio command / API', '', round(rate(cmd) / rate(api)), '']],
    ),
  );
}
