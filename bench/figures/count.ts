import { randomUUID } from 'node:crypto';
import { createDynamoContext } from '../../lib/storage/dynamo';
import { forEachPage } from '../../lib/storage/dynamo/transact';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ATTR, INDEX, USER_LIST_SHARDS } from '../../lib/storage/keys';
import * as keys from '../../lib/storage/keys';
import { startApi } from '../../test/support/api';
import { percentile, round, runPool, table, timed } from '../stats';
import { BCRYPT_HASH, CONCURRENCY, type Figure, type Report } from '../figure';

export const figure: Figure = { name: 'count', number: 12, needs: 'dynamodb', run: countCost };

/**
 * Counting (bench/SCALE.md): `BENCH_COUNT_USERS` (1,500) users, two in three email-password with a
 * BCrypt hash and one in three third-party, then `GET /users/count` timed, and the read units one
 * count consumes (DynamoDB Local reports them: `ReturnConsumedCapacity` on the same Queries
 * `countList` sends, 16 shards, page after page), per user and as they scale to 10 million users.
 */
async function countCost({ say, results }: Report, endpoint: string): Promise<void> {
  const users = Number(process.env.BENCH_COUNT_USERS ?? 1500);
  const api = await startApi({});
  await runPool(users, CONCURRENCY, async (i) => {
    const r =
      i % 3 === 2
        ? await api.post('/recipe/signinup', {
            thirdPartyId: 'google',
            thirdPartyUserId: `count-${i}-${randomUUID()}`,
            email: { id: `count-tp-${i}@bench.example`, isVerified: true },
          })
        : await api.post('/recipe/user/passwordhash/import', { email: `count-ep-${i}@bench.example`, passwordHash: BCRYPT_HASH });
    if (r.json?.status !== 'OK') throw new Error(`count figure: a user was not made: ${r.text}`);
  });
  const client = new DynamoDBClient({ endpoint });
  const ctx = createDynamoContext(api.tableName, client);
  let units = 0;
  let counted = 0;
  let calls = 0;
  for (let shard = 0; shard < USER_LIST_SHARDS; shard++) {
    await forEachPage(
      ctx,
      {
        IndexName: INDEX.usersByTenant,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': ATTR.gsi1pk },
        ExpressionAttributeValues: { ':pk': keys.usersOfTenant('public', shard) },
        Select: 'COUNT',
        ReturnConsumedCapacity: 'TOTAL',
      },
      (out) => {
        units += out.ConsumedCapacity?.CapacityUnits ?? 0;
        counted += out.Count ?? 0;
        calls++;
      },
    );
  }
  client.destroy();
  const answered: number[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await timed(() => api.get('/users/count'));
    if (r.value.json?.count !== counted) throw new Error(`count figure: GET /users/count said ${r.value.text}, the Queries ${counted}`);
    answered.push(r.ms);
  }
  await api.stop();
  const perUser = units / counted;
  const tenMillion = perUser * 10_000_000;
  results.countCost = {
    users: counted,
    readUnits: units,
    calls,
    readUnitsPerUser: perUser,
    bytesPerEntry: perUser * 2 * 4096,
    countP50Ms: percentile(answered, 50),
    readUnitsAt10M: tenMillion,
    dollarsAt10M: (tenMillion / 1e6) * 0.25,
  };
  say(`\n### 12. Counting users (${counted} users, one tenant)\n`);
  say(
    table(
      [
        'users',
        'read units (16 shards)',
        'Query calls',
        'read units per user',
        'bytes per list entry',
        'GET /users/count p50 ms',
        'read units at 10 M users',
        '$ per count at 10 M',
      ],
      [
        [
          counted,
          round(units),
          calls,
          round(perUser, 4),
          round(perUser * 2 * 4096, 0),
          round(percentile(answered, 50)),
          round(tenMillion, 0),
          round((tenMillion / 1e6) * 0.25),
        ],
      ],
    ),
  );
}
