import { randomUUID } from 'node:crypto';
import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { startApi } from '../../test/support/api';
import { VENDOR_SCRYPT_PROJECT } from '../../test/fixtures/password-vectors';
import { startCountingProxy } from '../../test/support/dynamo-proxy';
import { round, table, timed } from '../stats';
import { mixedUser } from '../../test/support/bulk-users';
import type { Figure, Report } from '../figure';
import { untilNoRowLeft } from '../server';

export const figure: Figure = { name: 'capacity', number: 11, needs: 'dynamodb', run: bulkUnderCapacity };

/**
 * Figure 11: the bulk import on a table short of write capacity. The proxy stands in for a
 * provisioned table (`limitWriteUnits`: a bucket of write units refilled each second, a write it
 * cannot pay for refused as DynamoDB refuses it). The mixed users of figure 6: the worker alone
 * (staged while the stream is held back) with no limit, its write units per second measured; the
 * worker alone with the limit at half that; and staging during the import under the same limit,
 * a request answered 503 sent again as the migration command does (with the same idempotency key). The worker waits for capacity
 * instead of failing rows, and staging waits chunk by chunk instead of answering 503 half done, so
 * the import should go at the capacity's pace, every user imported once and no row `FAILED`.
 */
async function bulkUnderCapacity({ say, results }: Report): Promise<void> {
  const users = Number(process.env.BENCH_CAPACITY_USERS ?? 2000);
  const rows: (string | number)[][] = [];
  const data: Record<string, unknown>[] = [];
  let unlimited: number | undefined;
  const runs = [
    { name: 'worker alone', share: undefined, stagingDuring: false },
    { name: 'worker alone', share: 0.5, stagingDuring: false },
    { name: 'staging during the import', share: 0.5, stagingDuring: true },
  ];
  for (const run of runs) {
    const dynamo = await startDynamoDbLocal();
    const proxy = await startCountingProxy(dynamo.endpoint);
    const api = await startApi({
      ARGON2_MEMORY_KIB: '19456',
      AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
      BULK_WORKER: 'on',
      VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey,
    });
    try {
      await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'shop' });
      await api.put('/recipe/role', { role: 'member' });
      const count = async (status: string) => (await api.get(`/bulk-import/users/count?status=${status}`)).json.count as number;
      const limit = run.share === undefined || unlimited === undefined ? undefined : Math.round(unlimited * run.share);
      const staged = Array.from({ length: users }, (_, i) => mixedUser('capacity', i).user);
      let busy = 0;
      const stageAll = async () => {
        for (let i = 0; i < staged.length; i += 1000) {
          // Every try of a request with the same key, as the migration command sends it.
          const key = randomUUID();
          for (;;) {
            const res = await api.post('/bulk-import/users', { users: staged.slice(i, i + 1000) }, { 'idempotency-key': key });
            if (res.status === 200) break;
            if (res.status !== 503) throw new Error(`staging failed: ${res.status} ${res.text.slice(0, 200)}`);
            busy++;
            await new Promise((r) => setTimeout(r, 250));
          }
        }
      };
      if (!run.stagingDuring) {
        proxy.throttleNext(Infinity, (operation) => operation.startsWith('DynamoDBStreams'));
        await stageAll();
      }
      proxy.limitWriteUnits(limit);
      const before = { ...proxy.writeUnits };
      const { ms } = await timed(async () => {
        if (run.stagingDuring) await stageAll();
        else proxy.throttleNext(0);
        await untilNoRowLeft(count);
      });
      const consumed = proxy.writeUnits.consumed - before.consumed;
      const refused = proxy.writeUnits.refused - before.refused;
      const unitsPerSecond = consumed / (ms / 1000);
      unlimited ??= unitsPerSecond;
      const failed = await count('FAILED');
      const imported = (await api.get('/users/count?includeAllTenants=true')).json.count as number;
      const logged = api.logs.filter((l) => l.includes('bulk rows processed')).map((l) => JSON.parse(l) as { throttled?: number; IMPORTED?: number });
      const waits = logged.reduce((n, l) => n + (l.throttled ?? 0), 0);
      // Rows imported beyond the users: the same user staged twice (a 503 answered half staged).
      const twice = logged.reduce((n, l) => n + (l.IMPORTED ?? 0), 0) - users;
      const use = limit === undefined ? undefined : unitsPerSecond / limit;
      rows.push([
        run.name,
        limit ?? 'none',
        round(users / (ms / 1000), 0),
        round(unitsPerSecond, 0),
        use === undefined ? '' : `${round(100 * use, 0)} %`,
        `${imported} / ${users}`,
        failed,
        waits,
        busy,
        twice,
        round(refused / Math.max(1, consumed), 1),
      ]);
      data.push({
        ...run,
        limit,
        users,
        ms,
        usersPerSecond: users / (ms / 1000),
        consumed,
        refused,
        unitsPerSecond,
        use,
        imported,
        failed,
        waits,
        stagingAnswered503: busy,
        stagedTwice: twice,
      });
    } finally {
      await api.stop();
      await proxy.close();
      await dynamo.stop();
    }
  }
  results.bulkUnderCapacity = data;
  say(
    `\n### 11. Bulk import on a table short of write capacity (${users} mixed users; write units as the proxy counts them: 1 per item, 2 in a transaction)\n`,
  );
  say(
    table(
      [
        'run',
        'write capacity (units/s)',
        'users/s',
        'write units/s used',
        'use of the capacity',
        'users imported',
        'rows FAILED',
        'worker waits',
        'staging answered 503',
        'rows staged twice',
        'units refused per unit used',
      ],
      rows,
    ),
  );
}
