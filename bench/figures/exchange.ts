import { randomUUID } from 'node:crypto';
import { LOCAL_AWS_ENV } from '../../local/dynamodb-local';
import { createDynamoContext } from '../../lib/storage/dynamo';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';
import { startApi, TEST_API_KEY } from '../../test/support/api';
import { startCountingProxy } from '../../test/support/dynamo-proxy';
import { percentile, round, table, timed } from '../stats';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { importMappedUser, rsaSigner, signToken, startKeyServer } from '../../test/support/key-server';
import type { Figure, Report } from '../figure';
import { inProcessHandler } from '../server';

export const figure: Figure = { name: 'exchange', number: 14, needs: 'dynamodb', run: sessionExchange };

/**
 * Session exchange (SPEC §19, issue #35): `POST /recipe/migration/session/exchange` of an Auth0-style
 * RS256 ID token (keys from a loopback JWKS server, fetched once and cached), against a bare
 * `jose` `jwtVerify` of the same token with a `createLocalJWKSet` made once (the same checks:
 * issuer, audience, algorithm), interleaved per round. A token is exchanged once, so every round
 * signs a fresh one (not timed). `GET /apiversion` (the HTTP hop and the handler stack) and the
 * bundle invoked in-process (no hop) in the same loop, DynamoDB calls counted on the wire.
 */
async function sessionExchange({ say, results }: Report, endpoint: string): Promise<void> {
  const N = Number(process.env.BENCH_EXCHANGE_N ?? 300);
  const keyServer = await startKeyServer();
  const signer = rsaSigner('bench-1');
  const jwks = { keys: [signer.jwk] };
  keyServer.serve('/jwks', jwks);
  const iss = 'https://bench.auth0.test/';
  const audience = 'bench-client';
  const issuers = JSON.stringify([{ id: 'bench', preset: 'auth0', domain: 'bench.auth0.test', audience: [audience], jwksUri: `${keyServer.base}/jwks` }]);
  const proxy = await startCountingProxy(endpoint);
  const api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, SESSION_EXCHANGE_ISSUERS: issuers });
  const sub = `auth0|${randomUUID()}`;
  await importMappedUser(api, sub);
  const token = () => {
    const t = Math.floor(Date.now() / 1000);
    return signToken(signer, { iss, aud: audience, sub, iat: t, exp: t + 3600, auth_time: t - 60, jti: randomUUID() });
  };
  const localJwks = createLocalJWKSet(jwks as JSONWebKeySet);
  const lambda = inProcessHandler('session-exchange', {
    ...LOCAL_AWS_ENV,
    AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
    TABLE_NAME: api.tableName,
    API_KEYS: TEST_API_KEY,
    SESSION_EXCHANGE_ISSUERS: issuers,
  });
  const path = '/recipe/migration/session/exchange';
  const ms = { exchange: [] as number[], bare: [] as number[], trivial: [] as number[], inProcess: [] as number[], getItem: [] as number[] };
  // One DynamoDB call of the kind the exchange makes, from the bench through the same proxy.
  const floorClient = new DynamoDBClient({ endpoint: proxy.endpoint });
  const floorCtx = createDynamoContext(api.tableName, floorClient);
  const getItem = () => floorCtx.doc.send(new GetCommand({ TableName: api.tableName, Key: keys.session(randomUUID()), ConsistentRead: true }));
  let calls: Record<string, number> = {};
  let writes = { single: 0, transactional: 0 };
  for (let i = 0; i < N + 10; i++) {
    const keep = i >= 10;
    const a = await token();
    const bare = await timed(() => jwtVerify(a, localJwks, { issuer: iss, audience, algorithms: ['RS256'] }));
    if (bare.value.payload.sub !== sub) throw new Error('bare verify gave another sub');
    proxy.reset();
    const ex = await timed(() => api.post(path, { token: a }));
    if (ex.value.json?.status !== 'OK') throw new Error(`exchange failed: ${ex.value.status} ${ex.value.text.slice(0, 200)}`);
    if (keep) {
      calls = Object.fromEntries(proxy.counts);
      writes = { ...proxy.writes };
    }
    const tr = await timed(() => api.get('/apiversion'));
    const g = await timed(getItem);
    const b = await token();
    const inProcess = await timed(() => lambda.invoke({ path, body: { token: b } }));
    if (inProcess.value.status !== 'OK') throw new Error(`exchange in-process: ${inProcess.value.status}`);
    if (keep) {
      ms.exchange.push(ex.ms);
      ms.bare.push(bare.ms);
      ms.trivial.push(tr.ms);
      ms.inProcess.push(inProcess.ms);
      ms.getItem.push(g.ms);
    }
  }
  lambda.restore();
  floorClient.destroy();
  const keyFetches = keyServer.fetches('/jwks');
  await api.stop();
  await proxy.close();
  await keyServer.stop();

  const q = (v: number[], at: number) => round(percentile(v, at));
  const ratio = (at: number) => percentile(ms.exchange, at) / percentile(ms.bare, at);
  const dynamoCount = Object.values(calls).reduce((x, y) => x + y, 0);
  const floor = percentile(ms.trivial, 50) + dynamoCount * percentile(ms.getItem, 50) + percentile(ms.bare, 50);
  const onWire = Object.entries(calls)
    .map(([k, v]) => `${v} ${k}`)
    .join(', ');
  results.sessionExchange = {
    n: N,
    tokenChars: (await token()).length,
    exchange: { p50Ms: percentile(ms.exchange, 50), p95Ms: percentile(ms.exchange, 95) },
    bareJoseVerify: { p50Ms: percentile(ms.bare, 50), p95Ms: percentile(ms.bare, 95) },
    ratioP50: ratio(50),
    ratioP95: ratio(95),
    trivialRequestP50Ms: percentile(ms.trivial, 50),
    getItemP50Ms: percentile(ms.getItem, 50),
    floorRatioP50: percentile(ms.exchange, 50) / floor,
    inProcess: { p50Ms: percentile(ms.inProcess, 50), p95Ms: percentile(ms.inProcess, 95) },
    dynamoCalls: calls,
    writes,
    keyFetches,
  };
  say(
    `\n### 14. Session exchange (${N} exchanges of fresh Auth0-style RS256 ID tokens, sequential, each interleaved with a bare jose jwtVerify of the same token; keys from a loopback JWKS server)\n`,
  );
  say(
    table(
      ['what', 'p50 ms', 'p95 ms', 'ratio to bare jose p50 / p95', 'DynamoDB calls'],
      [
        [
          'POST /recipe/migration/session/exchange (local server)',
          q(ms.exchange, 50),
          q(ms.exchange, 95),
          `${round(ratio(50), 1)} / ${round(ratio(95), 1)}`,
          onWire,
        ],
        [
          'the bundle invoked in-process (no HTTP hop)',
          q(ms.inProcess, 50),
          q(ms.inProcess, 95),
          `${round(percentile(ms.inProcess, 50) / percentile(ms.bare, 50), 1)} / ${round(percentile(ms.inProcess, 95) / percentile(ms.bare, 95), 1)}`,
          onWire,
        ],
        ['bare jose jwtVerify, createLocalJWKSet', q(ms.bare, 50), q(ms.bare, 95), '1', 'none'],
        ['GET /apiversion (the hop and the handler stack, no work)', q(ms.trivial, 50), q(ms.trivial, 95), '', 'none'],
        ['one GetItem from the bench, through the same proxy', q(ms.getItem, 50), q(ms.getItem, 95), '', '1 GetItem'],
      ],
    ),
  );
  say(
    `\nexchange / (GET /apiversion + ${dynamoCount} × GetItem + bare jose) p50 = ${round(percentile(ms.exchange, 50) / floor, 2)}. The key server was fetched ${keyFetches} times in all (once by the server, once by the in-process bundle: the keys are cached per process). Items written per exchange: ${writes.single} single, ${writes.transactional} in transactions.`,
  );
}
