import { generateKeyPairSync, randomUUID, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { LOCAL_AWS_ENV } from '../../local/dynamodb-local';
import { createDynamoContext } from '../../lib/storage/dynamo';
import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  ScanCommand,
  type AttributeValue,
  type BatchGetItemCommandInput,
  type GetItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';
import { startApi, TEST_API_KEY } from '../../test/support/api';
import { startCountingProxy } from '../../test/support/dynamo-proxy';
import { dynamoItemBytes, percentile, round, runPool, table, timed } from '../stats';
import type { Figure, Report } from '../figure';
import { inProcessHandler } from '../server';

export const figure: Figure = { name: 'sessions', number: 13, needs: 'dynamodb', run: sessionCost };

/**
 * Figure 13, sessions (SPEC §18, issue #34): create, verify (a fresh token, no `checkDatabase`:
 * answered without DynamoDB) and refresh, each over HTTP to the local server, interleaved with the
 * bare `node:crypto` RS256 sign and verify of a token of the same size (a 2048-bit key of the
 * bench's own); `GET /apiversion` and the bundles invoked in-process beside them, so the ratio can
 * be read apart (the HTTP hop, the handler, DynamoDB Local). Then refreshes per second at
 * concurrency 32 (distinct sessions, each with its current token; a refresh cycle with its
 * promoting verify; one token refreshed by 32 at once), and the write units of each step counted
 * on the wire by the proxy, with the session item's size from a scan of the table.
 */
async function sessionCost({ say, results }: Report, endpoint: string): Promise<void> {
  const latencyMs = Number(process.env.BENCH_DYNAMO_LATENCY_MS ?? 0);
  const N = Number(process.env.BENCH_SESSION_N ?? 300);
  const C = 32;
  const proxy = await startCountingProxy(endpoint, latencyMs);
  const api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
  // What supertokens-node 24 puts in a session of an app with EmailVerification and UserRoles.
  const t = Date.now();
  const userDataInJWT = {
    iss: 'https://api.example.com/auth',
    'st-ev': { v: true, t },
    'st-role': { v: ['user'], t },
    'st-perm': { v: ['read:own'], t },
  };
  const createBody = (userId: string) => ({ userId, userDataInJWT, userDataInDatabase: {}, enableAntiCsrf: false });
  const verifyBody = (accessToken: string) => ({ accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase: false });
  const refreshBody = (refreshToken: string) => ({ refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true });
  type Tokens = { session: { handle: string }; accessToken: { token: string }; refreshToken: { token: string } };
  const ok = (res: { status: number; json?: any; text: string }, what: string) => {
    if (res.status !== 200 || res.json?.status !== 'OK') throw new Error(`${what} failed: ${res.status} ${res.text.slice(0, 200)}`);
    return res.json;
  };
  const create = async (userId = randomUUID()): Promise<Tokens> => ok(await api.post('/recipe/session', createBody(userId)), 'create');
  const refresh = async (token: string): Promise<Tokens> => ok(await api.post('/recipe/session/refresh', refreshBody(token)), 'refresh');
  const verify = async (token: string) => ok(await api.post('/recipe/session/verify', verifyBody(token)), 'verify');

  // The yardstick: the same header and payload, signed and verified with node:crypto alone.
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 65537 });
  const sample = await create();
  const [h64, p64] = sample.accessToken.token.split('.');
  const header = JSON.parse(Buffer.from(h64, 'base64url').toString('utf8')) as Record<string, unknown>;
  const claims = JSON.parse(Buffer.from(p64, 'base64url').toString('utf8')) as Record<string, unknown>;
  const bareSign = (): string => {
    const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return `${input}.${cryptoSign('sha256', Buffer.from(input), privateKey).toString('base64url')}`;
  };
  const bareVerify = (token: string): boolean => {
    const dot = token.lastIndexOf('.');
    return cryptoVerify('sha256', Buffer.from(token.slice(0, dot)), publicKey, Buffer.from(token.slice(dot + 1), 'base64url'));
  };
  const bareToken = bareSign();
  if (bareToken.length !== sample.accessToken.token.length || !bareVerify(bareToken)) throw new Error('the bare token differs in size from the service');

  // The bundles as a Lambda invocation runs them, on the same table (the keys the server made).
  const lambdaEnv = { ...LOCAL_AWS_ENV, AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, TABLE_NAME: api.tableName, API_KEYS: TEST_API_KEY };
  const lambdas = {
    create: inProcessHandler('session-create', lambdaEnv),
    verify: inProcessHandler('session-verify', lambdaEnv),
    refresh: inProcessHandler('session-refresh', lambdaEnv),
  };
  const invoked = async (fn: () => Promise<{ status: string | number }>, what: string) => {
    const r = await timed(fn);
    if (r.value.status !== 'OK') throw new Error(`${what} in-process: ${r.value.status}`);
    return r.ms;
  };

  const ops = ['create', 'verify', 'refresh', 'promoting verify'] as const;
  type Op = (typeof ops)[number];
  const ms = Object.fromEntries(ops.map((o) => [o, [] as number[]])) as Record<Op, number[]>;
  const inProcess = { create: [] as number[], verify: [] as number[], refresh: [] as number[] };
  const bare = { sign: [] as number[], verify: [] as number[] };
  const trivial: number[] = [];
  const getItem: number[] = [];
  // Refresh's own DynamoDB call, timed from the bench process through the same proxy.
  const floorCtx = createDynamoContext(api.tableName, new DynamoDBClient({ endpoint: proxy.endpoint }));
  const getSessionItem = () => floorCtx.doc.send(new GetCommand({ TableName: api.tableName, Key: keys.session(sample.session.handle), ConsistentRead: true }));
  const wire: Partial<Record<Op, { calls: Record<string, number>; single: number; transactional: number; units: number }>> = {};
  const measure = async <T>(op: Op, keep: boolean, fn: () => Promise<T>): Promise<T> => {
    proxy.reset();
    const units = proxy.writeUnits.consumed;
    const r = await timed(fn);
    if (keep) {
      ms[op].push(r.ms);
      wire[op] = { calls: Object.fromEntries(proxy.counts), ...proxy.writes, units: proxy.writeUnits.consumed - units };
    }
    return r.value;
  };
  for (let i = 0; i < N + 10; i++) {
    const keep = i >= 10;
    const s = await measure('create', keep, () => create());
    const signed = await timed(async () => bareSign());
    await measure('verify', keep, () => verify(s.accessToken.token));
    const v = await timed(async () => bareVerify(signed.value));
    if (!v.value) throw new Error('bare verify failed');
    const r = await measure('refresh', keep, () => refresh(s.refreshToken.token));
    const promoted = await measure('promoting verify', keep, () => verify(r.accessToken.token));
    if (!promoted.accessToken) throw new Error('the first verify after a refresh did not promote');
    const tr = await timed(() => api.get('/apiversion'));
    const g = await timed(getSessionItem);
    // In-process: a create, a verify of its token and a refresh of its refresh token.
    const inCreate = await timed(() => lambdas.create.invoke({ path: '/recipe/session', body: createBody(randomUUID()) }));
    if (inCreate.value.status !== 'OK') throw new Error(`create in-process: ${inCreate.value.status}`);
    const created = inCreate.value.json as Tokens;
    const inVerify = await invoked(() => lambdas.verify.invoke({ path: '/recipe/session/verify', body: verifyBody(created.accessToken.token) }), 'verify');
    const inRefresh = await invoked(
      () => lambdas.refresh.invoke({ path: '/recipe/session/refresh', body: refreshBody(created.refreshToken.token) }),
      'refresh',
    );
    if (keep) {
      bare.sign.push(signed.ms);
      bare.verify.push(v.ms);
      trivial.push(tr.ms);
      getItem.push(g.ms);
      inProcess.create.push(inCreate.ms);
      inProcess.verify.push(inVerify);
      inProcess.refresh.push(inRefresh);
    }
  }
  for (const l of [lambdas.refresh, lambdas.verify, lambdas.create]) l.restore();
  floorCtx.doc.destroy();

  // Concurrency 32: sessions made 32 at a time, then refreshed with their current token (a refresh
  // that is not followed by a verify leaves the stored token as it was, so each pass is alike).
  const sessions = Number(process.env.BENCH_SESSION_COUNT ?? 1024);
  const passes = 3;
  const made: Tokens[] = [];
  const unitsBeforeCreate = proxy.writeUnits.consumed;
  const createRun = await timed(() => runPool(sessions, C, async () => void made.push(await create())));
  const createUnits = (proxy.writeUnits.consumed - unitsBeforeCreate) / sessions;
  const unitsBeforeRefresh = proxy.writeUnits.consumed;
  proxy.reset();
  const refreshRun = await timed(() => runPool(sessions * passes, C, async (i) => void (await refresh(made[i % sessions].refreshToken.token))));
  const refreshCalls = Object.fromEntries(proxy.counts);
  const refreshUnits = (proxy.writeUnits.consumed - unitsBeforeRefresh) / (sessions * passes);
  // The cycle as an app runs it: refresh, then the first request's verify promotes the new token.
  const current = made.map((m) => m.refreshToken.token);
  const unitsBeforeCycle = proxy.writeUnits.consumed;
  const cycleRun = await timed(() =>
    runPool(sessions, C, async (i) => {
      const r = await refresh(current[i]);
      if (!(await verify(r.accessToken.token)).accessToken) throw new Error('the verify after a refresh did not promote');
      current[i] = r.refreshToken.token;
    }),
  );
  const cycleUnits = (proxy.writeUnits.consumed - unitsBeforeCycle) / sessions;
  // One token refreshed by 32 at once, for 20 sessions: every answer OK, each a child of its own.
  const statuses = new Map<string, number>();
  const sameToken: number[] = [];
  proxy.reset();
  for (let k = 0; k < 20; k++) {
    const token = current[k];
    const t0 = await timed(() =>
      Promise.all(
        Array.from({ length: C }, async () => {
          const res = await api.post('/recipe/session/refresh', refreshBody(token));
          const key = res.status === 200 ? String(res.json?.status) : `HTTP ${res.status}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          return res.json?.refreshToken?.token as string | undefined;
        }),
      ),
    );
    if (new Set(t0.value).size !== C) throw new Error('32 refreshes of one token did not answer 32 different tokens');
    sameToken.push(t0.ms);
  }
  const sameTokenCalls = Object.fromEntries(proxy.counts);

  // The session item's size (DynamoDB's rule: names and values in UTF-8, numbers by digits).
  const scanClient = new DynamoDBClient({ endpoint });
  const sizes: number[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await scanClient.send(
      new ScanCommand({
        TableName: api.tableName,
        FilterExpression: '#t = :s',
        ExpressionAttributeNames: { '#t': 'type' },
        ExpressionAttributeValues: { ':s': { S: 'session' } },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) sizes.push(dynamoItemBytes(item));
    start = page.LastEvaluatedKey;
  } while (start);
  // The read units of the reads on the wire, as DynamoDB Local reports them for the same requests.
  const handle = sample.session.handle;
  const readUnits = async (input: GetItemCommandInput | BatchGetItemCommandInput) => {
    const out =
      'Key' in input
        ? await scanClient.send(new GetItemCommand({ ...input, ReturnConsumedCapacity: 'TOTAL' }))
        : await scanClient.send(new BatchGetItemCommand({ ...input, ReturnConsumedCapacity: 'TOTAL' }));
    const c = out.ConsumedCapacity;
    return Array.isArray(c) ? c.reduce((n, x) => n + (x.CapacityUnits ?? 0), 0) : (c?.CapacityUnits ?? 0);
  };
  const marshallKey = (k: { pk: string; sk: string }) => ({ pk: { S: k.pk }, sk: { S: k.sk } });
  const refreshRead = await readUnits({ TableName: api.tableName, Key: marshallKey(keys.session(handle)), ConsistentRead: true });
  const nobody = randomUUID();
  const createRead = await readUnits({
    RequestItems: {
      [api.tableName]: { Keys: [keys.loginMethod(nobody, nobody), keys.link(nobody), keys.externalIdGuard(nobody)].map(marshallKey), ConsistentRead: true },
    },
  });
  scanClient.destroy();
  await api.stop();
  await proxy.close();

  const p = (v: number[], q: number) => round(percentile(v, q));
  const describe = (w?: { calls: Record<string, number> }) =>
    w && Object.keys(w.calls).length > 0
      ? Object.entries(w.calls)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ')
      : 'none';
  const yard = { create: bare.sign, verify: bare.verify, refresh: bare.sign, 'promoting verify': bare.sign } as const;
  const yardName = { create: 'sign', verify: 'verify', refresh: 'sign', 'promoting verify': 'sign' } as const;
  const ratio = (op: Op) => percentile(ms[op], 50) / percentile(yard[op], 50);
  const maxBytes = Math.max(...sizes);
  results.sessions = {
    latencyMs,
    n: N,
    tokenChars: sample.accessToken.token.length,
    bare: {
      signP50Ms: percentile(bare.sign, 50),
      signP99Ms: percentile(bare.sign, 99),
      verifyP50Ms: percentile(bare.verify, 50),
      verifyP99Ms: percentile(bare.verify, 99),
    },
    trivialRequestP50Ms: percentile(trivial, 50),
    getItemP50Ms: percentile(getItem, 50),
    refreshFloorRatioP50: percentile(ms.refresh, 50) / (percentile(getItem, 50) + percentile(bare.sign, 50)),
    ops: Object.fromEntries(
      ops.map((op) => [
        op,
        {
          p50Ms: percentile(ms[op], 50),
          p99Ms: percentile(ms[op], 99),
          ratioP50: ratio(op),
          ratioP99: percentile(ms[op], 99) / percentile(yard[op], 99),
          yardstick: `bare ${yardName[op]}`,
          inProcessP50Ms: op in inProcess ? percentile(inProcess[op as keyof typeof inProcess], 50) : undefined,
          wire: wire[op],
        },
      ]),
    ),
    concurrency: {
      clients: C,
      sessions,
      createsPerSecond: sessions / (createRun.ms / 1000),
      createWriteUnits: createUnits,
      refreshes: sessions * passes,
      refreshesPerSecond: (sessions * passes) / (refreshRun.ms / 1000),
      refreshCalls,
      refreshWriteUnits: refreshUnits,
      cyclesPerSecond: sessions / (cycleRun.ms / 1000),
      cycleWriteUnits: cycleUnits,
      oneTokenBy32: Object.fromEntries(statuses),
      oneTokenBy32P50Ms: percentile(sameToken, 50),
      oneTokenBy32Calls: sameTokenCalls,
    },
    sessionItemBytes: { items: sizes.length, min: Math.min(...sizes), median: percentile(sizes, 50), max: maxBytes },
    readUnits: { refreshGetItem: refreshRead, createBatchGet: createRead },
  };
  say(
    `\n### 13. Sessions (${N} of each, sequential, interleaved with the bare node:crypto RS256 sign/verify of a ${sample.accessToken.token.length}-character token; DynamoDB calls and write units counted on the wire${latencyMs ? `; ${latencyMs} ms added to each call` : ''})\n`,
  );
  say(
    table(
      [
        'operation',
        'p50 ms',
        'p99 ms',
        'bare node:crypto p50 / p99 ms',
        'ratio p50 / p99',
        'handler in-process p50 ms',
        'DynamoDB calls',
        'write units (proxy)',
      ],
      ops.map((op) => [
        op === 'verify' ? 'verify (fresh token, no checkDatabase)' : op === 'promoting verify' ? 'verify, first after a refresh (promotes)' : op,
        p(ms[op], 50),
        p(ms[op], 99),
        `${yardName[op]} ${p(yard[op], 50)} / ${p(yard[op], 99)}`,
        `${round(ratio(op), 1)} / ${round(percentile(ms[op], 99) / percentile(yard[op], 99), 1)}`,
        op in inProcess ? p(inProcess[op as keyof typeof inProcess], 50) : '',
        describe(wire[op]),
        wire[op]?.units ?? 0,
      ]),
    ),
  );
  say(
    `\nIn the same loop: GET /apiversion (the HTTP hop and the handler stack, no work) p50 ${p(trivial, 50)} ms; refresh's GetItem from the bench p50 ${p(getItem, 50)} ms, so refresh / (GetItem + bare sign) = ${round(percentile(ms.refresh, 50) / (percentile(getItem, 50) + percentile(bare.sign, 50)), 1)}, and verify / (GET /apiversion + bare verify) = ${round(percentile(ms.verify, 50) / (percentile(trivial, 50) + percentile(bare.verify, 50)), 2)}.`,
  );
  say(`\nConcurrency ${C}:\n`);
  say(
    table(
      ['run', 'per s', 'write units each (proxy)'],
      [
        [`create, ${sessions} sessions`, round(sessions / (createRun.ms / 1000), 0), round(createUnits, 2)],
        [
          `refresh, ${sessions} distinct sessions × ${passes}, each with its current token (${describe({ calls: refreshCalls })})`,
          round((sessions * passes) / (refreshRun.ms / 1000), 0),
          round(refreshUnits, 2),
        ],
        [`refresh + its promoting verify, ${sessions} sessions`, round(sessions / (cycleRun.ms / 1000), 0), round(cycleUnits, 2)],
        [
          `one token refreshed by ${C} at once, 20 times (p50 ${p(sameToken, 50)} ms for the 32; ${describe({ calls: sameTokenCalls })}): ${[...statuses].map(([k, v]) => `${k}×${v}`).join(' ')}`,
          '',
          '',
        ],
      ],
    ),
  );
  say(
    `\nSession item: ${sizes.length} scanned, ${Math.min(...sizes)}–${maxBytes} bytes (median ${percentile(sizes, 50)}): one write unit (≤ 1 KB), one read unit (≤ 4 KB). The proxy counts 1 unit per item written and no GSI copy; every session write also writes its gsi2 copy (projection ALL), +1 each: create ${(wire.create?.units ?? 0) + (wire.create?.single ?? 0)}, refresh 0, promoting verify ${(wire['promoting verify']?.units ?? 0) + (wire['promoting verify']?.single ?? 0)} write units with it. Read units DynamoDB Local reports for the same reads: refresh's GetItem ${refreshRead}, create's BatchGetItem of 3 keys not there ${createRead} (AWS bills each key as a consistent GetItem).`,
  );
}
