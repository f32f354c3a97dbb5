import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROUTES } from '../../infra/routes';
import { LOCAL_AWS_ENV } from '../../local/dynamodb-local';
import { createDynamoContext } from '../../lib/storage/dynamo';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR, INDEX, USER_LIST_SHARDS } from '../../lib/storage/keys';
import * as keys from '../../lib/storage/keys';
import { startApi } from '../../test/support/api';
import { percentile, round, table, timed } from '../stats';
import { BCRYPT_HASH, ROOT, type Figure, type Report } from '../figure';

export const figure: Figure = { name: 'cold', number: 4, needs: 'dynamodb', run: coldStart };

/** One cheap but real request per route, for the cold-start figure. */
function sampleRequest(route: (typeof ROUTES)[number]): { path: string; body?: string; query?: Record<string, string> } {
  if (route.method === 'GET') {
    const query: Record<string, Record<string, string>> = {
      'user-get': { userId: 'nobody' },
      'users-by-account-info': { email: 'nobody@bench.example' },
      'user-get-by-recipe': { userId: 'nobody' },
      'accountlinking-primary-check': { recipeUserId: 'nobody' },
      'accountlinking-link-check': { recipeUserId: 'nobody', primaryUserId: 'nobody' },
    };
    return { path: route.path, query: query[route.id] };
  }
  const bodies: Record<string, unknown> = {
    'passwordless-create-code': { email: 'cold@bench.example' },
    'emailpassword-signin': { email: 'nobody@bench.example', password: 'x' },
    'emailpassword-import': { email: 'cold@bench.example', passwordHash: BCRYPT_HASH },
    'tenant-create': { tenantId: 'cold' },
    'accountlinking-primary': { recipeUserId: 'nobody' },
    'accountlinking-link': { recipeUserId: 'nobody', primaryUserId: 'nobody' },
    'accountlinking-unlink': { recipeUserId: 'nobody' },
  };
  return { path: route.path, body: JSON.stringify(bodies[route.id] ?? {}) };
}

async function coldStart({ say, results }: Report, endpoint: string): Promise<void> {
  const api = await startApi({ TEST_NOTE: 'bench-cold' });
  await api.stop();
  // `BENCH_COLD_BASELINE=<a dist/functions folder>`: the same measure of other bundles (an older
  // build), interleaved run by run with these, so a change's effect is read from one run.
  const baseline = process.env.BENCH_COLD_BASELINE;
  const rows: (string | number)[][] = [];
  const data: unknown[] = [];
  const sizeKb = (dir: string, ext: string) =>
    readdirSync(dir)
      .filter((f) => f.endsWith(ext))
      .reduce((s, f) => s + statSync(join(dir, f)).size, 0) / 1024;
  for (const route of ROUTES) {
    const dirs = [join(ROOT, 'dist', 'functions', route.id), ...(baseline ? [join(baseline, route.id)] : [])];
    const sample = sampleRequest(route);
    const script = (dir: string) => `
      const t0 = performance.now();
      const { handler } = require(${JSON.stringify(join(dir, 'index.js'))});
      const t1 = performance.now();
      handler(${JSON.stringify({
        version: '2.0',
        rawPath: sample.path,
        headers: { 'api-key': 'bench-key-0123456789abcdef', 'content-type': 'application/json' },
        queryStringParameters: sample.query,
        body: sample.body,
        isBase64Encoded: false,
        requestContext: { http: { method: route.method, path: sample.path } },
      })}, { awsRequestId: 'cold' }).then((r) => {
        const t2 = performance.now();
        process.stdout.write(JSON.stringify({ load: t1 - t0, first: t2 - t1, status: r.statusCode }) + '\\n');
      });`;
    const runs: { load: number; first: number; status: number }[][] = dirs.map(() => []);
    for (let i = 0; i < 5; i++) {
      dirs.forEach((dir, d) => {
        const child = spawnSync(process.execPath, ['-e', script(dir)], {
          encoding: 'utf8',
          env: {
            PATH: process.env.PATH,
            ...LOCAL_AWS_ENV,
            AWS_ENDPOINT_URL_DYNAMODB: endpoint,
            TABLE_NAME: api.tableName,
            API_KEYS: 'bench-key-0123456789abcdef',
          },
        });
        runs[d].push(JSON.parse(child.stdout.trim().split('\n').pop() ?? ''));
      });
    }
    const [load, first] = [
      percentile(
        runs[0].map((r) => r.load),
        50,
      ),
      percentile(
        runs[0].map((r) => r.first),
        50,
      ),
    ];
    const jsKb = sizeKb(dirs[0], '.js');
    // Data files beside the bundle (the phone metadata, brotli): not JS, but loaded with it.
    const dataKb = sizeKb(dirs[0], '.br');
    const row: (string | number)[] = [
      route.id,
      round(jsKb, 0),
      round(dataKb, 0),
      round(sizeKb(dirs[0], '.node'), 0),
      round(load, 1),
      round(first, 1),
      round(load + first, 1),
      runs[0][0].status,
    ];
    const entry: Record<string, unknown> = {
      route: route.id,
      jsKb,
      dataKb,
      nativeKb: sizeKb(dirs[0], '.node'),
      loadMs: load,
      firstRequestMs: first,
      totalMs: load + first,
      status: runs[0][0].status,
      hashesPasswords: route.hashesPasswords,
    };
    if (baseline) {
      const baseTotal = percentile(
        runs[1].map((r) => r.load + r.first),
        50,
      );
      row.push(round(sizeKb(dirs[1], '.js'), 0), round(baseTotal, 1), round((load + first) / baseTotal));
      Object.assign(entry, { baselineJsKb: sizeKb(dirs[1], '.js'), baselineTotalMs: baseTotal });
    }
    rows.push(row);
    data.push(entry);
  }
  // What a fan-out costs this DynamoDB Local, warm: the user count reads 16 shards at once (one
  // COUNT Query each, empty here), which a first request pays on top of one Query's cold start.
  const warm = createDynamoContext(api.tableName, new DynamoDBClient({ endpoint }));
  const countQuery = (shard: number) =>
    warm.doc.send(
      new QueryCommand({
        TableName: api.tableName,
        IndexName: INDEX.usersByTenant,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': ATTR.gsi1pk },
        ExpressionAttributeValues: { ':pk': keys.usersOfTenant('public', shard) },
        Select: 'COUNT',
      }),
    );
  const fanOut = { one: [] as number[], all: [] as number[] };
  for (let i = 0; i < 23; i++) {
    const one = await timed(() => countQuery(0));
    const all = await timed(() => Promise.all(Array.from({ length: USER_LIST_SHARDS }, (_, shard) => countQuery(shard))));
    if (i < 3) continue;
    fanOut.one.push(one.ms);
    fanOut.all.push(all.ms);
  }
  warm.doc.destroy();
  results.coldStart = {
    functions: data,
    warmFanOut: { oneQueryP50Ms: percentile(fanOut.one, 50), shardQueriesP50Ms: percentile(fanOut.all, 50), shards: USER_LIST_SHARDS },
  };
  say('\n### 4. Cold start (fresh Node process per run, median of 5; targets: ≤ 260 KB JS, ≤ 150 ms for functions that do not hash)\n');
  say(
    table(
      [
        'function',
        'JS KB',
        'data KB',
        'native KB',
        'load ms',
        'first request ms',
        'total ms',
        'status',
        ...(baseline ? ['baseline JS KB', 'baseline total ms', 'total / baseline'] : []),
      ],
      rows,
    ),
  );
  say(
    `\nWarm, from this process (20 runs, p50): one COUNT Query ${round(percentile(fanOut.one, 50))} ms, the ${USER_LIST_SHARDS} of a user count at once ${round(percentile(fanOut.all, 50))} ms: ` +
      "what this DynamoDB Local takes for the fan-out functions' extra calls, warm or cold (in AWS they are parallel round trips)",
  );
}
