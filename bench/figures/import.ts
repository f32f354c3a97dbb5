import { randomUUID } from 'node:crypto';
import { createDynamoContext, createDynamoStores } from '../../lib/storage/dynamo';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { startApi } from '../../test/support/api';
import { percentile, round, runPool, table, timed } from '../stats';
import { BCRYPT_HASH, CONCURRENCY, type Figure, type Report } from '../figure';

export const figure: Figure = { name: 'import', number: 1, needs: 'dynamodb', run: importThroughput };

const USERS = Number(process.env.BENCH_USERS ?? 5000);

async function importThroughput({ say, results }: Report, endpoint: string): Promise<void> {
  const api = await startApi({ TEST_NOTE: 'bench-import' });
  const ctx = createDynamoContext(api.tableName, new DynamoDBClient({ endpoint }));
  const stores = createDynamoStores(ctx);
  const direct = (i: number, label: string) =>
    stores.users
      .createUser({
        userId: randomUUID(),
        recipeId: 'emailpassword',
        tenantIds: ['public'],
        timeJoined: Date.now(),
        email: `${label}-${i}@bench.example`,
        verifiedEmails: [],
        phoneVerified: false,
        passwordHash: BCRYPT_HASH,
        version: 1,
      })
      .then((r) => {
        if (r.status !== 'OK') throw new Error(`direct write failed: ${r.status}`);
      });
  const viaHttp = (i: number, label: string) =>
    api.post('/recipe/user/passwordhash/import', { email: `${label}-${i}@bench.example`, passwordHash: BCRYPT_HASH }).then((r) => {
      if (r.json?.status !== 'OK') throw new Error(`import failed: ${r.status} ${r.text}`);
    });
  await runPool(300, CONCURRENCY, (i) => direct(i, 'warm-d'));
  await runPool(300, CONCURRENCY, (i) => viaHttp(i, 'warm-h'));

  const half = Math.floor(USERS / 2);
  let directMs = 0;
  let httpMs = 0;
  // Alternate halves so that drift in the machine's load hits both sides alike.
  for (const round_ of [0, 1]) {
    directMs += (await timed(() => runPool(half, CONCURRENCY, (i) => direct(i, `d${round_}`)))).ms;
    httpMs += (await timed(() => runPool(half, CONCURRENCY, (i) => viaHttp(i, `h${round_}`)))).ms;
  }
  const seqDirect = await runPool(300, 1, (i) => direct(i, 'seq-d'));
  const seqHttp = await runPool(300, 1, (i) => viaHttp(i, 'seq-h'));
  const directRate = (2 * half) / (directMs / 1000);
  const httpRate = (2 * half) / (httpMs / 1000);
  results.importThroughput = {
    users: 2 * half,
    concurrency: CONCURRENCY,
    httpUsersPerSecond: round(httpRate, 0),
    directUsersPerSecond: round(directRate, 0),
    ratio: round(httpRate / directRate),
    sequentialP50Ms: { http: round(percentile(seqHttp, 50)), direct: round(percentile(seqDirect, 50)) },
    overheadP50Ms: round(percentile(seqHttp, 50) - percentile(seqDirect, 50)),
  };
  say(`\n### 1. Import throughput (${2 * half} users, concurrency ${CONCURRENCY}, in-memory DynamoDB Local)\n`);
  say(
    table(
      ['path', 'users/s', 'sequential p50 ms'],
      [
        ['HTTP import (local server + handler bundle)', round(httpRate, 0), round(percentile(seqHttp, 50))],
        ['same writes via the SDK directly', round(directRate, 0), round(percentile(seqDirect, 50))],
        ['ratio (target ≥ 0.85) / overhead per request', round(httpRate / directRate), round(percentile(seqHttp, 50) - percentile(seqDirect, 50))],
      ],
    ),
  );
  ctx.doc.destroy();
  await api.stop();
}
