import bcrypt from 'bcryptjs';
import { randomUUID } from 'node:crypto';
import { LOCAL_AWS_ENV } from '../../local/dynamodb-local';
import { DEFAULT_OWN_HASH_PARAMS, hashPassword, verifyPassword } from '../../lib/password';
import { createDynamoContext, createDynamoStores } from '../../lib/storage/dynamo';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';
import { startApi, TEST_API_KEY } from '../../test/support/api';
import { VENDOR_SCRYPT_PROJECT, VENDOR_SCRYPT_VECTORS } from '../../test/fixtures/password-vectors';
import { startCountingProxy } from '../../test/support/dynamo-proxy';
import { percentile, round, table, timed } from '../stats';
import type { Figure, Report } from '../figure';
import { inProcessHandler } from '../server';

export const figure: Figure = { name: 'signin', number: 2, needs: 'dynamodb', run: signInCost };

/**
 * `BENCH_DYNAMO_LATENCY_MS` (default 0) delays every DynamoDB call of the sign-in server by that
 * much, to show the cost of storage round trips as AWS has them (a few ms each).
 */
async function signInCost({ say, results }: Report, endpoint: string): Promise<void> {
  const latency = Number(process.env.BENCH_DYNAMO_LATENCY_MS ?? 0);
  const proxy = latency > 0 ? await startCountingProxy(endpoint, latency) : undefined;
  const api = await startApi({
    VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey,
    PASSWORD_REHASH_ON_SIGNIN: 'false',
    ...(proxy ? { AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint } : {}),
  });
  const password = 'bench-Password-1';
  const own = DEFAULT_OWN_HASH_PARAMS;
  const cases = [
    { name: 'BCrypt cost 10', hash: bcrypt.hashSync(password, 10), password, algorithm: undefined as string | undefined },
    { name: `Argon2id m=${own.memoryKiB}, t=${own.iterations}, p=${own.parallelism}`, hash: await hashPassword(password, own), password, algorithm: undefined },
    {
      name: 'vendor scrypt mem_cost 14, rounds 8',
      hash: VENDOR_SCRYPT_VECTORS[0].hash,
      password: VENDOR_SCRYPT_VECTORS[0].password,
      algorithm: 'vendor_scrypt',
    },
  ];
  const rows: (string | number)[][] = [];
  const data: unknown[] = [];
  const N = 40;
  const lambda = inProcessHandler('emailpassword-signin', {
    ...LOCAL_AWS_ENV,
    AWS_ENDPOINT_URL_DYNAMODB: proxy?.endpoint ?? endpoint,
    TABLE_NAME: api.tableName,
    API_KEYS: TEST_API_KEY,
    VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey,
    PASSWORD_REHASH_ON_SIGNIN: 'false',
  });
  // The floor of a sign-in (issue #15): one GetItem (the email guard, which carries the hash) and
  // the verifier; the user's partition is read while the hash is verified. The GetItem is timed
  // from this process through the same endpoint (and added latency) the server uses.
  const floorClient = createDynamoContext(api.tableName, new DynamoDBClient({ endpoint: proxy?.endpoint ?? endpoint }));
  const getGuard = (email: string) =>
    floorClient.doc.send(new GetCommand({ TableName: api.tableName, Key: keys.emailGuard('public', 'emailpassword', email), ConsistentRead: true }));
  for (const c of cases) {
    const email = `signin-${randomUUID()}@bench.example`;
    const imported = await api.post('/recipe/user/passwordhash/import', {
      email,
      passwordHash: c.hash,
      ...(c.algorithm ? { hashingAlgorithm: c.algorithm } : {}),
    });
    if (imported.json?.status !== 'OK') throw new Error(`import failed: ${imported.text}`);
    const ctx = { signerKey: VENDOR_SCRYPT_PROJECT.signerKey };
    const bare: number[] = [];
    const http: number[] = [];
    const getItem: number[] = [];
    const trivial: number[] = [];
    const inProcess: number[] = [];
    const signInEvent = { path: '/recipe/signin', body: { email, password: c.password } };
    for (let i = 0; i < 3; i++) {
      await verifyPassword(c.password, c.hash, ctx);
      await api.post('/recipe/signin', { email, password: c.password });
      await lambda.invoke(signInEvent);
    }
    // Interleaved, so both sides see the same machine load.
    for (let i = 0; i < N; i++) {
      bare.push((await timed(() => verifyPassword(c.password, c.hash, ctx))).ms);
      getItem.push((await timed(() => getGuard(email))).ms);
      trivial.push((await timed(() => api.get('/apiversion'))).ms);
      const r = await timed(() => api.post('/recipe/signin', { email, password: c.password }));
      if (r.value.json?.status !== 'OK') throw new Error(`sign-in failed: ${r.value.text}`);
      http.push(r.ms);
      const l = await timed(() => lambda.invoke(signInEvent));
      if (l.value.status !== 'OK') throw new Error(`in-process sign-in failed: ${l.value.status}`);
      inProcess.push(l.ms);
    }
    const ratio = percentile(http, 50) / percentile(bare, 50);
    const floor = percentile(bare, 50) + percentile(getItem, 50);
    const floorRatio = percentile(http, 50) / floor;
    // What any request costs on this local server (HTTP, event, middy stack, API key, JSON, log),
    // which neither yardstick holds: the part of the gap that is not sign-in's own.
    const withRequest = percentile(http, 50) / (floor + percentile(trivial, 50));
    // The handler as a Lambda invocation runs it, without the local server's HTTP hop.
    const inProcessRatio = percentile(inProcess, 50) / floor;
    rows.push([
      c.name,
      round(percentile(http, 50)),
      round(percentile(http, 95)),
      round(percentile(bare, 50)),
      round(ratio),
      round(percentile(getItem, 50)),
      round(floorRatio),
      round(percentile(trivial, 50)),
      round(withRequest),
      round(percentile(inProcess, 50)),
      round(inProcessRatio),
    ]);
    data.push({
      algorithm: c.name,
      signInP50Ms: percentile(http, 50),
      signInP95Ms: percentile(http, 95),
      verifierP50Ms: percentile(bare, 50),
      ratio,
      getItemP50Ms: percentile(getItem, 50),
      floorRatio,
      trivialRequestP50Ms: percentile(trivial, 50),
      ratioWithRequest: withRequest,
      inProcessP50Ms: percentile(inProcess, 50),
      inProcessFloorRatio: inProcessRatio,
    });
  }
  // Where Argon2id's gap comes from: the verify alone, beside a pure 5 ms wait (what a remote
  // DynamoDB read is to this process), and beside the partition Query sign-in overlaps it with
  // (which on this machine also needs CPU: DynamoDB Local's JVM, the SDK on the main thread).
  const argon = cases[1];
  const users = createDynamoStores(floorClient).users;
  const overlap = { alone: [] as number[], wait: [] as number[], query: [] as number[], afterGet: [] as number[] };
  const argonEmail = `signin-after-get-${randomUUID()}@bench.example`;
  for (let i = 0; i < N; i++) {
    overlap.alone.push((await timed(() => verifyPassword(argon.password, argon.hash, {}))).ms);
    // The verify as sign-in runs it: straight after the guard's GetItem has answered (DynamoDB
    // Local's JVM may still be busy with it on these cores); only the verify is timed.
    await getGuard(argonEmail);
    overlap.afterGet.push((await timed(() => verifyPassword(argon.password, argon.hash, {}))).ms);
    overlap.wait.push((await timed(() => Promise.all([verifyPassword(argon.password, argon.hash, {}), new Promise((r) => setTimeout(r, 5))]))).ms);
    overlap.query.push((await timed(() => Promise.all([verifyPassword(argon.password, argon.hash, {}), users.getUser(`nobody-${i}`, 'SUPERTOKENS')]))).ms);
  }
  const [alone, wait, query, afterGet] = [overlap.alone, overlap.wait, overlap.query, overlap.afterGet].map((v) => round(percentile(v, 50)));
  results.signInOverlap = { verifierP50Ms: alone, withWait5msP50Ms: wait, withPartitionQueryP50Ms: query, rightAfterGetItemP50Ms: afterGet };
  floorClient.doc.destroy();

  // Timing oracle: unknown email vs known email with a wrong password (own Argon2id hash).
  const known = `known-${randomUUID()}@bench.example`;
  await api.post('/recipe/signup', { email: known, password });
  const unknownMs: number[] = [];
  const wrongMs: number[] = [];
  for (let i = 0; i < N; i++) {
    unknownMs.push((await timed(() => api.post('/recipe/signin', { email: `nobody-${i}@bench.example`, password: 'wrong-password' }))).ms);
    wrongMs.push((await timed(() => api.post('/recipe/signin', { email: known, password: 'wrong-password' }))).ms);
  }
  const timingRatio = percentile(unknownMs, 50) / percentile(wrongMs, 50);
  results.signIn = { dynamoLatencyMs: latency, cases: data };
  results.timing = { unknownEmailP50Ms: percentile(unknownMs, 50), knownEmailWrongPasswordP50Ms: percentile(wrongMs, 50), ratio: round(timingRatio) };
  say(
    `\n### 2. Sign-in cost (${N} sequential sign-ins each, interleaved with the bare verifier${latency ? `; ${latency} ms added to every DynamoDB call` : ''})\n`,
  );
  say(
    table(
      [
        'hash',
        'sign-in p50 ms',
        'sign-in p95 ms',
        'bare verifier p50 ms',
        'ratio to verifier',
        'one GetItem p50 ms',
        'ratio to verifier + GetItem (target ≤ 1.10)',
        'GET /apiversion p50 ms',
        'ratio to all three',
        'handler in-process p50 ms',
        'its ratio to verifier + GetItem',
      ],
      rows,
    ),
  );
  say(
    `\nArgon2id verify p50 ${alone} ms alone, ${wait} ms beside a 5 ms wait, ${query} ms beside the user's partition Query, ${afterGet} ms straight after a GetItem answered (in-process)`,
  );
  say(
    `\nTiming: unknown email p50 ${round(percentile(unknownMs, 50))} ms vs known email + wrong password p50 ${round(percentile(wrongMs, 50))} ms → ratio ${round(timingRatio)} (target 0.8–1.25)`,
  );
  lambda.restore();
  await api.stop();
  await proxy?.close();
}
