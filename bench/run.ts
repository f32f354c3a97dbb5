import bcrypt from 'bcryptjs';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ROUTES } from '../infra/routes';
import { LOCAL_AWS_ENV, startDynamoDbLocal } from '../local/dynamodb-local';
import { DEFAULT_OWN_HASH_PARAMS, hashPassword, verifyPassword } from '../lib/password';
import { createDynamoContext, createDynamoStores } from '../lib/storage/dynamo';
import { forEachPage } from '../lib/storage/dynamo/transact';
import { ensureTable } from '../local/create-table';
import {
  BatchGetItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  type AttributeValue,
  type BatchGetItemCommandInput,
  type GetItemCommandInput,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type PutItemCommandInput,
  type TransactWriteItemsCommandInput,
  type UpdateItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR, INDEX, keys, USER_LIST_SHARDS } from '../lib/storage/keys';
import { startApi, TEST_API_KEY, type TestApi } from '../test/support/api';
import { VENDOR_SCRYPT_PROJECT, VENDOR_SCRYPT_VECTORS } from '../test/fixtures/password-vectors';
import { FAMILY_VECTORS } from '../test/fixtures/hash-family-vectors';
import { FAMILIES } from '../lib/password/families';
import { FORM_CHECKS } from '../lib/password/checks';
import { startCountingProxy } from '../test/support/dynamo-proxy';
import { cpuMsOf, dynamoItemBytes, ownCpuMs, percentile, round, runPool, table, timed } from './stats';
import { mixedUser } from '../test/support/bulk-users';
import { configFromEnv } from '../lib/config/config';
import { cryptoRandom, systemClock, type Deps } from '../lib/recipes/deps';
import { parseBulkUser } from '../lib/recipes/bulkimport/bulk-user';
import { importBulkUser } from '../lib/recipes/bulkimport/import-user';
import { validationContext } from '../lib/recipes/bulkimport/stage-users';
import { LANES_IN_FLIGHT } from '../lib/recipes/bulkimport/worker';
import { readHashConfig } from '../lib/migrate/hash-config';
import { firebaseSource } from '../lib/migrate/sources/firebase';
import { plan } from '../test/support/migration';
import { writeFirebaseExport } from '../test/support/firebase-export';
import { SOURCES } from '../lib/migrate/sources';
import { GENERATORS } from './migrate';
import { measureInChild, PINNED_CPU, type MappingResult } from './migrate/measure';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookSignature, webhookSource } from '../lib/password-migration/sources';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { importMappedUser, rsaSigner, signToken, startKeyServer } from '../test/support/key-server';

/**
 * `npm run bench`: every figure is measured side by side in one run on this machine, so the
 * ratios mean something on a shared, noisy host. Prints markdown, writes JSON to bench/results/.
 * `BENCH_USERS` (default 5000) sets the import size.
 */
const ROOT = resolve(__dirname, '..');
const USERS = Number(process.env.BENCH_USERS ?? 5000);
const CONCURRENCY = 16;
/** Users of the bulk figure (`BENCH_BULK_USERS`). */
const BULK_USERS = 5000;
/** Users of the migration command's figure (`BENCH_MIGRATE_USERS`). */
const MIGRATE_USERS = 20_000;
/** Users of each source's export in the mapping figure (`BENCH_MAPPING_USERS`). */
const MAPPING_USERS = 100_000;
const BCRYPT_HASH = '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq';
const results: Record<string, unknown> = {};
const out: string[] = [];
const say = (s: string) => {
  out.push(s);
  process.stdout.write(s + '\n');
};

async function importThroughput(endpoint: string): Promise<void> {
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

/**
 * `BENCH_DYNAMO_LATENCY_MS` (default 0) delays every DynamoDB call of the sign-in server by that
 * much, to show the cost of storage round trips as AWS has them (a few ms each).
 */
async function signInCost(endpoint: string): Promise<void> {
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

/**
 * A handler bundle (`dist/functions/<id>`) loaded in this process and invoked with API Gateway's
 * event, as a Lambda invocation runs it: the service's own cost without the local server's HTTP
 * hop (fetch, Node's HTTP server, loopback; in AWS, API Gateway's hop is outside the function).
 * `env` is its configuration, set on this process until `restore()` (a bundle reads it at its
 * first invocation, its SDK client at each call's endpoint resolution). Its log and metric lines
 * are dropped, not written: this process's stdout carries the tables.
 */
function inProcessHandler(id: string, env: Record<string, string>) {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const { handler } = require(join(ROOT, 'dist', 'functions', id, 'index.js')) as {
    handler: (event: unknown, context: unknown) => Promise<{ statusCode: number; body?: string }>;
  };
  return {
    invoke: async ({ path, body }: { path: string; body: unknown }): Promise<{ status: string | number; json?: any }> => {
      const event = {
        version: '2.0',
        rawPath: path,
        headers: { 'api-key': TEST_API_KEY, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        isBase64Encoded: false,
        requestContext: { http: { method: 'POST', path } },
      };
      const write = process.stdout.write;
      process.stdout.write = (() => true) as typeof process.stdout.write;
      try {
        const result = await handler(event, { awsRequestId: randomUUID() });
        if (result.statusCode !== 200) return { status: result.statusCode };
        const json = JSON.parse(result.body ?? '{}') as { status: string };
        return { status: json.status, json };
      } finally {
        process.stdout.write = write;
      }
    },
    restore: () => {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    },
  };
}

/**
 * Password migration at sign-in (SPEC §16): the first sign-in of a user imported without a hash
 * (a signed call to a webhook on loopback, the own Argon2id hash, one transaction) against a later
 * sign-in of the same user (own hash), the webhook's round trip alone and the own hash alone, all
 * interleaved per user.
 */
async function passwordMigration(): Promise<void> {
  const secret = 'bench-webhook-secret-0123456789';
  const password = 'bench-Old-password-1';
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const ok = req.headers['x-signature'] === webhookSignature(secret, body) && JSON.parse(body).password === password;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ status: ok ? 'password_match' : 'password_mismatch' }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/check`;
  const api = await startApi({ PASSWORD_MIGRATION_SOURCE: 'webhook', PASSWORD_MIGRATION_WEBHOOK_URL: url, PASSWORD_MIGRATION_WEBHOOK_SECRET: secret });
  const source = webhookSource({ url, secret });
  const N = 40;
  const first: number[] = [];
  const later: number[] = [];
  const webhook: number[] = [];
  const ownHash: number[] = [];
  const signIn = async (email: string, into: number[]) => {
    const r = await timed(() => api.post('/recipe/signin', { email, password }));
    if (r.value.json?.status !== 'OK') throw new Error(`sign-in failed: ${r.value.text}`);
    into.push(r.ms);
  };
  for (let i = 0; i < N + 3; i++) {
    const email = `pwmig-${randomUUID()}@bench.example`;
    const imported = await api.post('/recipe/user/passwordhash/import', { email, migratePasswordOnSignIn: true });
    if (imported.json?.status !== 'OK') throw new Error(`import failed: ${imported.text}`);
    // The first 3 users warm up both paths and are not counted.
    const keep = i >= 3;
    const w = await timed(() => source.check({ email, password, tenantId: 'public', userId: imported.json.user.id }));
    if (w.value.kind !== 'match') throw new Error(`webhook said ${JSON.stringify(w.value)}`);
    const h = await timed(() => hashPassword(password, DEFAULT_OWN_HASH_PARAMS));
    await signIn(email, keep ? first : []);
    await signIn(email, keep ? later : []);
    if (keep) {
      webhook.push(w.ms);
      ownHash.push(h.ms);
    }
  }
  const pending = (await api.get('/recipe/user/passwordmigration/count')).json.count;
  await api.stop();
  await new Promise((r) => hook.close(r));
  if (pending !== 0) throw new Error(`${pending} users still waiting after their sign-in`);
  const p50 = (v: number[]) => percentile(v, 50);
  const yardstick = p50(later) + p50(webhook) + p50(ownHash);
  const ratio = p50(first) / yardstick;
  results.passwordMigration = {
    users: N,
    firstSignInP50Ms: p50(first),
    firstSignInP95Ms: percentile(first, 95),
    laterSignInP50Ms: p50(later),
    webhookP50Ms: p50(webhook),
    ownHashP50Ms: p50(ownHash),
    ratio: round(ratio),
  };
  say(`\n### 9. Password migration at sign-in (${N} users imported without a hash, a webhook on loopback)\n`);
  say(
    table(
      ['first sign-in p50 / p95 ms', 'later sign-in p50 ms', 'webhook alone p50 ms', 'own Argon2id hash alone p50 ms', 'first / (later + webhook + hash)'],
      [[`${round(p50(first))} / ${round(percentile(first, 95))}`, round(p50(later)), round(p50(webhook)), round(p50(ownHash)), round(ratio)]],
    ),
  );
}

/**
 * Sustained mixed traffic (issue #15): `BENCH_LOAD_CONCURRENCY` (32) clients for
 * `BENCH_LOAD_SECONDS` (60) or `BENCH_LOAD_MAX_OPS` (20,000) operations, whichever ends first,
 * each taking the next of: import (a new user with a BCrypt hash), sign-in (a user signed up
 * before, own Argon2id), passwordless create code + consume, read (`GET /user/id`). Throughput,
 * p50/p99 per operation, every 5xx counted; the consistency checker runs on the table afterwards
 * (the server's stop fails the figure if it finds anything).
 */
async function loadMix(): Promise<void> {
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 60);
  const concurrency = Number(process.env.BENCH_LOAD_CONCURRENCY ?? 32);
  const maxOps = Number(process.env.BENCH_LOAD_MAX_OPS ?? 20_000);
  const api = await startApi({});
  const password = 'load-Password-1';
  const members = await Promise.all(
    Array.from({ length: 50 }, async (_, i) => {
      const email = `load-member-${i}-${randomUUID()}@bench.example`;
      const res = await api.post('/recipe/signup', { email, password });
      return { email, id: res.json.user.id as string };
    }),
  );
  const latencies = new Map<string, number[]>();
  const statuses = new Map<string, Map<number, number>>();
  let serverErrors = 0;
  const record = (op: string, ms: number, status: number) => {
    if (!latencies.has(op)) latencies.set(op, []);
    latencies.get(op)!.push(ms);
    const byStatus = statuses.get(op) ?? new Map<number, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    statuses.set(op, byStatus);
    if (status >= 500) serverErrors++;
  };
  const call = async (op: string, request: () => Promise<{ status: number; json?: any }>) => {
    const r = await timed(request);
    record(op, r.ms, r.value.status);
    return r.value;
  };
  const kinds = ['import', 'signin', 'passwordless', 'read'] as const;
  let next = 0;
  let done = 0;
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until && done < maxOps) {
        const kind = kinds[next++ % kinds.length];
        const member = members[next % members.length];
        if (kind === 'import')
          await call('import (BCrypt hash)', () =>
            api.post('/recipe/user/passwordhash/import', { email: `load-${randomUUID()}@bench.example`, passwordHash: BCRYPT_HASH }),
          );
        if (kind === 'signin') await call('sign-in (own Argon2id)', () => api.post('/recipe/signin', { email: member.email, password }));
        if (kind === 'read') await call('read user', () => api.get(`/user/id?userId=${member.id}`));
        if (kind === 'passwordless') {
          const code = await call('passwordless create code', () => api.post('/recipe/signinup/code', { email: `load-pl-${randomUUID()}@bench.example` }));
          if (code.json?.status === 'OK')
            await call('passwordless consume', () =>
              api.post('/recipe/signinup/code/consume', { preAuthSessionId: code.json.preAuthSessionId, linkCode: code.json.linkCode }),
            );
        }
        done++;
      }
    }),
  );
  const elapsed = (Date.now() - started) / 1000;
  // Stops the server and runs the consistency checker on its table: throws on any problem.
  await api.stop();
  const total = [...latencies.values()].reduce((n, v) => n + v.length, 0);
  const rows = [...latencies].map(([op, v]) => [
    op,
    v.length,
    round(v.length / elapsed, 1),
    round(percentile(v, 50)),
    round(percentile(v, 99)),
    [...(statuses.get(op) ?? [])].map(([st, n]) => `${st}×${n}`).join(' '),
  ]);
  results.load = {
    seconds: elapsed,
    concurrency,
    requests: total,
    requestsPerSecond: total / elapsed,
    serverErrors,
    checkerClean: true,
    operations: [...latencies].map(([op, v]) => ({ op, count: v.length, p50Ms: percentile(v, 50), p99Ms: percentile(v, 99) })),
  };
  say(
    `\n### 10. Mixed load (${concurrency} clients, ${round(elapsed, 1)} s, ${total} requests, ${round(total / elapsed, 1)} requests/s, ${serverErrors} answers 5xx; consistency checker clean)\n`,
  );
  say(table(['operation', 'requests', 'per s', 'p50 ms', 'p99 ms', 'statuses'], rows));
  if (serverErrors > 0) throw new Error(`${serverErrors} answers were 5xx under load`);
}

/**
 * Create code and consume, sequential, for the four kinds of consume (interleaved per user): a new
 * user, an existing user on its own, a primary user's login method (found as its item), and a
 * login method linked to it found through an entry (its phone beside its email). DynamoDB calls
 * counted on the wire; `BENCH_DYNAMO_LATENCY_MS` adds each call's network round trip.
 */
async function passwordlessRoundTrip(endpoint: string): Promise<void> {
  const proxy = await startCountingProxy(endpoint, Number(process.env.BENCH_DYNAMO_LATENCY_MS ?? 0));
  const api: TestApi = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
  const N = 60;
  const ops = [
    'create code (new email)',
    'consume link (new user)',
    'consume link (existing user on its own)',
    "consume link (a primary user's login method)",
    'consume link (linked, through its phone entry)',
  ] as const;
  const ms: Record<(typeof ops)[number], number[]> = Object.fromEntries(ops.map((o) => [o, []])) as never;
  const calls: Partial<Record<(typeof ops)[number], Record<string, number>>> = {};
  const ok = (res: { status: number; json: any; text: string }, what: string) => {
    if (res.status !== 200 || res.json?.status !== 'OK') throw new Error(`${what} failed: ${res.status} ${res.text}`);
    return res.json;
  };
  const measure = async (op: (typeof ops)[number], warm: boolean, fn: () => Promise<{ status: number; json: any; text: string }>) => {
    proxy.reset();
    const t = await timed(fn);
    const json = ok(t.value, op);
    if (!warm) {
      ms[op].push(t.ms);
      calls[op] = Object.fromEntries(proxy.counts);
    }
    return json;
  };
  const consume = (code: { preAuthSessionId: string; linkCode: string }) =>
    api.post('/recipe/signinup/code/consume', { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode });
  const code = async (identity: Record<string, string>) => ok(await api.post('/recipe/signinup/code', identity), 'create code');
  for (let i = 0; i < N + 5; i++) {
    const warm = i < 5;
    const email = `pl-${i}-${randomUUID()}@bench.example`;
    const c = await measure('create code (new email)', warm, () => api.post('/recipe/signinup/code', { email }));
    const owner = (await measure('consume link (new user)', warm, () => consume(c))).user.id as string;
    const again = await code({ email });
    await measure('consume link (existing user on its own)', warm, () => consume(again));
    ok(await api.post('/recipe/accountlinking/user/primary', { recipeUserId: owner }), 'create primary');
    const asPrimary = await code({ email });
    await measure("consume link (a primary user's login method)", warm, () => consume(asPrimary));
    const linkedEmail = `pl-linked-${i}-${randomUUID()}@bench.example`;
    const phoneNumber = `+1415555${String(1000 + i).padStart(4, '0')}`;
    const linked = ok(await consume(await code({ email: linkedEmail })), 'consume').user.id as string;
    ok(await api.put('/recipe/user', { userId: linked, email: linkedEmail, phoneNumber }, { rid: 'passwordless' }), 'add phone');
    ok(await api.post('/recipe/accountlinking/user/link', { recipeUserId: linked, primaryUserId: owner }), 'link');
    const byPhone = await code({ phoneNumber });
    await measure('consume link (linked, through its phone entry)', warm, () => consume(byPhone));
  }
  const describe = (c: Record<string, number> = {}) =>
    `${Object.values(c).reduce((a, b) => a + b, 0)} (${Object.entries(c)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')})`;
  results.passwordless = {
    latencyMs: Number(process.env.BENCH_DYNAMO_LATENCY_MS ?? 0),
    ...Object.fromEntries(ops.map((op) => [op, { p50Ms: percentile(ms[op], 50), p95Ms: percentile(ms[op], 95), dynamoCalls: calls[op] }])),
  };
  say(`\n### 3. Passwordless round trip (${N} users, sequential, the four kinds of consume interleaved; DynamoDB calls counted on the wire)\n`);
  say(
    table(
      ['operation', 'p50 ms', 'p95 ms', 'DynamoDB calls'],
      ops.map((op) => [op, round(percentile(ms[op], 50)), round(percentile(ms[op], 95)), describe(calls[op])]),
    ),
  );
  await api.stop();
  await proxy.close();
}

/**
 * What linking costs: creating a primary user and linking a second login method (DynamoDB calls
 * and items written, counted on the wire), and what it adds to a sign-in through a linked login
 * method (one more Query, to follow its link) against a login method on its own, interleaved; and
 * a third-party sign-in of the primary user, unchanged and newly verified (the
 * write beside the read). `BENCH_DYNAMO_LATENCY_MS` adds each call's network round trip.
 */
async function accountLinking(endpoint: string): Promise<void> {
  const latencyMs = Number(process.env.BENCH_DYNAMO_LATENCY_MS ?? 0);
  const proxy = await startCountingProxy(endpoint, latencyMs);
  const api: TestApi = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, PASSWORD_REHASH_ON_SIGNIN: 'false' });
  const N = 40;
  const password = 'bench-Password-1';
  // A cheap hash (bcrypt cost 4, about 1 ms) so the storage reads, not the hash, show.
  const hash = bcrypt.hashSync(password, 4);
  const ops = [
    'create primary',
    'link',
    'sign-in, login method on its own',
    'sign-in, linked login method',
    'GET /user/id by a linked id',
    'third-party sign-in of the primary user, nothing changed',
    'third-party sign-in of the primary user, email newly verified',
  ] as const;
  const ms: Record<(typeof ops)[number], number[]> = Object.fromEntries(ops.map((o) => [o, []])) as never;
  const calls: Record<string, string> = {};
  const written: Record<string, number> = {};
  const measure = async (op: (typeof ops)[number], warm: boolean, fn: () => Promise<{ status: number; json: any }>) => {
    proxy.reset();
    const t = await timed(fn);
    if (t.value.status !== 200 || t.value.json?.status !== 'OK') throw new Error(`${op} failed: ${t.value.status} ${JSON.stringify(t.value.json)}`);
    if (warm) return;
    ms[op].push(t.ms);
    calls[op] = `${proxy.total()} (${[...proxy.counts].map(([k, v]) => `${v} ${k}`).join(', ')})`;
    written[op] = proxy.writes.transactional;
  };
  for (let i = 0; i < N + 5; i++) {
    const warm = i < 5;
    const email = `al-${i}-${randomUUID()}@bench.example`;
    const alone = `al-alone-${i}-${randomUUID()}@bench.example`;
    const identity = { thirdPartyId: 'google', thirdPartyUserId: randomUUID() };
    const tp = (await api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } })).json.user.id;
    const ep = (await api.post('/recipe/user/passwordhash/import', { email, passwordHash: hash })).json.user.id;
    await api.post('/recipe/user/passwordhash/import', { email: alone, passwordHash: hash });
    await measure('create primary', warm, () => api.post('/recipe/accountlinking/user/primary', { recipeUserId: tp }));
    await measure('link', warm, () => api.post('/recipe/accountlinking/user/link', { recipeUserId: ep, primaryUserId: tp }));
    await measure('sign-in, login method on its own', warm, () => api.post('/recipe/signin', { email: alone, password }));
    await measure('sign-in, linked login method', warm, () => api.post('/recipe/signin', { email, password }));
    await measure('GET /user/id by a linked id', warm, () => api.get(`/user/id?userId=${ep}`));
    await measure('third-party sign-in of the primary user, nothing changed', warm, () =>
      api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } }),
    );
    // The provider verifies again an email taken back meanwhile (not timed): written from the
    // guard's copy beside the read of the user.
    await api.post('/recipe/user/email/verify/remove', { userId: tp, email });
    await measure('third-party sign-in of the primary user, email newly verified', warm, () =>
      api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } }),
    );
  }
  results.accountLinking = {
    latencyMs,
    ...Object.fromEntries(
      ops.map((op) => [op, { p50Ms: percentile(ms[op], 50), p95Ms: percentile(ms[op], 95), dynamoCalls: calls[op], transactionalItemsWritten: written[op] }]),
    ),
  };
  say(
    `\n### 5. Account linking (${N} users of two login methods, sequential; DynamoDB calls and transactional items written counted on the wire; ${latencyMs} ms added to each call)\n`,
  );
  say(
    table(
      ['operation', 'p50 ms', 'p95 ms', 'DynamoDB calls', 'items written in a transaction'],
      ops.map((op) => [op, round(percentile(ms[op], 50)), round(percentile(ms[op], 95)), calls[op], written[op]]),
    ),
  );
  const ratio = percentile(ms['sign-in, linked login method'], 50) / percentile(ms['sign-in, login method on its own'], 50);
  say(
    `\nSign-in through a linked login method / on its own, p50: ${round(ratio)} (both read the email guard; on its own it holds a copy of the login method, so that is all; linked, it names the primary user, whose partition is read while the hash is verified)`,
  );
  await api.stop();
  await proxy.close();
}

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

async function coldStart(endpoint: string): Promise<void> {
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
  say('\n### 4. Cold start (fresh Node process per run, median of 5; targets: ≤ 300 KB JS, ≤ 150 ms for functions that do not hash)\n');
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

/**
 * Waits until no bulk row is `NEW` or `PROCESSING`. Each count reads the 288 counter items on the
 * DynamoDB Local the worker writes to, on the same two cores: asked ten times a second throughout
 * (as this did at first), the counts took CPU from the very import they timed. So once a second
 * while many rows are left, ten times a second for the last few hundred (the time is exact to
 * about 0.1 s either way).
 */
async function untilNoRowLeft(count: (status: string) => Promise<number>): Promise<void> {
  for (;;) {
    const left = (await count('NEW')) || (await count('PROCESSING'));
    if (left === 0) return;
    await new Promise((r) => setTimeout(r, left > 300 ? 1000 : 100));
  }
}

/**
 * Bulk import end to end: users/s from the first `POST /bulk-import/users` until no row is `NEW`
 * or `PROCESSING` (staging, the stream, the worker bundle), against the same users imported by the
 * same engine in-process straight into DynamoDB Local at the worker's concurrency, on a DynamoDB
 * Local of its own (its streams start empty: DynamoDB Local slows every write as they fill).
 */
async function bulkImport(): Promise<void> {
  const users = Number(process.env.BENCH_BULK_USERS ?? BULK_USERS);
  // Each side on a DynamoDB Local of its own, both tables with a stream: the second side would
  // otherwise write into a DynamoDB Local the first one has already filled.
  const dynamo = await startDynamoDbLocal();
  const directDynamo = await startDynamoDbLocal();
  const rawDynamo = await startDynamoDbLocal();
  const env = { ARGON2_MEMORY_KIB: '19456' };
  // One batch of the stream at a time (16 lanes in flight, `LANES_IN_FLIGHT`): the concurrency of
  // the baseline. With the mapping's factor of 10, as `npm start` runs, up to 160 rows are in
  // flight; measured on 2 cores it imports no faster (both sides use the two cores whole).
  const api = await startApi({
    ...env,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    BULK_WORKER: 'on',
    BULK_STREAM_PARALLELIZATION: '1',
    VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey,
  });
  const client = new DynamoDBClient({ endpoint: directDynamo.endpoint });
  const rawClient = new DynamoDBClient({ endpoint: rawDynamo.endpoint });
  // Every write the in-process side commits, as sent: the baseline the issue names (the same user
  // items written straight with the SDK) is these, sent again into a fresh table.
  const WRITES = { PutItemCommand, UpdateItemCommand, TransactWriteItemsCommand } as const;
  const committed: { command: keyof typeof WRITES; input: unknown }[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (context.commandName && context.commandName in WRITES)
        committed.push({ command: context.commandName as keyof typeof WRITES, input: structuredClone(args.input) });
      return out;
    },
    { step: 'build', name: 'benchRecordCommittedWrites' },
  );
  const resend = async (w: (typeof committed)[number]): Promise<void> => {
    if (w.command === 'PutItemCommand') await rawClient.send(new PutItemCommand(w.input as PutItemCommandInput));
    else if (w.command === 'UpdateItemCommand') await rawClient.send(new UpdateItemCommand(w.input as UpdateItemCommandInput));
    else await rawClient.send(new TransactWriteItemsCommand(w.input as TransactWriteItemsCommandInput));
  };
  try {
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'shop' });
    await api.put('/recipe/role', { role: 'member' });
    const count = async (status: string) => (await api.get(`/bulk-import/users/count?status=${status}`)).json.count as number;

    const staged = Array.from({ length: users }, (_, i) => mixedUser('bulk', i).user);
    // CPU each side uses per user, DynamoDB Local's (java) apart from Node's: both sides keep the
    // two cores busy, so their rates stand in about the inverse ratio of their CPU per user.
    const cpu = (java: number | undefined, ...node: (number | undefined)[]) => ({
      java,
      node: node.reduce<number | undefined>((a, b) => (a === undefined || b === undefined ? undefined : a + b), 0),
    });
    const bulkCpu0 = cpu(cpuMsOf(dynamo.pid), cpuMsOf(api.pid), ownCpuMs());
    const { ms: bulkMs } = await timed(async () => {
      for (let i = 0; i < staged.length; i += 1000) {
        const res = await api.post('/bulk-import/users', { users: staged.slice(i, i + 1000) });
        if (res.status !== 200) throw new Error(`staging failed: ${res.status} ${res.text.slice(0, 200)}`);
      }
      await untilNoRowLeft(count);
    });
    const bulkCpu1 = cpu(cpuMsOf(dynamo.pid), cpuMsOf(api.pid), ownCpuMs());
    const failed = await count('FAILED');

    // The same users, imported by the same engine in-process into a table of their own.
    await ensureTable(client, 'bench-bulk-direct');
    const ctx = createDynamoContext('bench-bulk-direct', client);
    const deps: Deps = {
      ...createDynamoStores(ctx),
      config: configFromEnv(env, { signerKey: VENDOR_SCRYPT_PROJECT.signerKey }),
      clock: systemClock,
      random: cryptoRandom,
    };
    await deps.tenants.putTenant('shop', Date.now());
    await deps.roles.createRole({ role: 'member', roleUid: randomUUID() });
    const direct = Array.from({ length: users }, (_, i) => mixedUser('direct', i).user);
    const vctx = await validationContext(deps, direct);
    const parsed = direct.map((u) => {
      const r = parseBulkUser(u, vctx);
      if (!r.ok) throw new Error(r.errors.join(' '));
      return r.user;
    });
    const setup = committed.splice(0);
    const directCpu0 = cpu(cpuMsOf(directDynamo.pid), ownCpuMs());
    const { ms: directMs } = await timed(() =>
      runPool(parsed.length, LANES_IN_FLIGHT, async (i) => {
        const outcome = await importBulkUser(deps, parsed[i]);
        if (outcome.status !== 'OK') throw new Error(`direct import failed: ${JSON.stringify(outcome)}`);
      }),
    );
    const directCpu1 = cpu(cpuMsOf(directDynamo.pid), ownCpuMs());
    // The same user items, written straight: each user's committed transaction sent again with
    // the SDK, at the same concurrency, into a table of the same shape on a fresh DynamoDB Local.
    const userWrites = committed.splice(0);
    if (userWrites.length !== users || userWrites.some((w) => w.command !== 'TransactWriteItemsCommand')) {
      throw new Error(`recorded ${userWrites.length} writes for ${users} users, not one transaction each`);
    }
    await ensureTable(rawClient, 'bench-bulk-direct');
    for (const w of setup) await resend(w);
    const rawCpu0 = cpu(cpuMsOf(rawDynamo.pid), ownCpuMs());
    const { ms: rawMs } = await timed(() => runPool(userWrites.length, LANES_IN_FLIGHT, (i) => resend(userWrites[i])));
    const rawCpu1 = cpu(cpuMsOf(rawDynamo.pid), ownCpuMs());
    const perUser = (a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>) => ({
      javaMs: a.java === undefined || b.java === undefined ? undefined : round((b.java - a.java) / users, 1),
      nodeMs: a.node === undefined || b.node === undefined ? undefined : round((b.node - a.node) / users, 1),
    });
    const cpuPerUser = { bulk: perUser(bulkCpu0, bulkCpu1), direct: perUser(directCpu0, directCpu1), raw: perUser(rawCpu0, rawCpu1) };
    const cpuCells = (c: { javaMs?: number; nodeMs?: number }) => [c.javaMs ?? '', c.nodeMs ?? ''];

    const bulkRate = users / (bulkMs / 1000);
    const directRate = users / (directMs / 1000);
    const rawRate = users / (rawMs / 1000);
    results.bulkImport = {
      users,
      concurrency: LANES_IN_FLIGHT,
      bulkUsersPerSecond: round(bulkRate, 0),
      rawItemsUsersPerSecond: round(rawRate, 0),
      ratio: round(bulkRate / rawRate),
      directUsersPerSecond: round(directRate, 0),
      ratioToEngine: round(bulkRate / directRate),
      failedRows: failed,
      cpuMsPerUser: cpuPerUser,
    };
    say(`\n### 6. Bulk import (${users} mixed users: every recipe and hash format, linked, external ids, metadata, roles)\n`);
    say(
      table(
        ['path', 'users/s', 'seconds', 'CPU ms per user: DynamoDB Local', 'CPU ms per user: Node'],
        [
          ['staged in requests of 1,000, imported by the worker through the stream', round(bulkRate, 0), round(bulkMs / 1000, 1), ...cpuCells(cpuPerUser.bulk)],
          [
            `the same user items written straight with the SDK (each user's transaction), ${LANES_IN_FLIGHT} at a time`,
            round(rawRate, 0),
            round(rawMs / 1000, 1),
            ...cpuCells(cpuPerUser.raw),
          ],
          ['ratio (target ≥ 0.7)', round(bulkRate / rawRate), '', '', ''],
          [
            `same users, same engine in-process (reads, Argon2id of plain-text passwords, the transaction), ${LANES_IN_FLIGHT} at a time`,
            round(directRate, 0),
            round(directMs / 1000, 1),
            ...cpuCells(cpuPerUser.direct),
          ],
          ['ratio to the engine in-process', round(bulkRate / directRate), '', '', ''],
        ],
      ),
    );
  } finally {
    client.destroy();
    rawClient.destroy();
    await rawDynamo.stop();
    await api.stop();
    await dynamo.stop();
    await directDynamo.stop();
  }
}

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
async function bulkUnderCapacity(): Promise<void> {
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

/**
 * Figure 7: a generated Firebase export through the migration command (the built bin, a child
 * process) against the local service, next to the same users mapped in-process and staged
 * straight through the bulk-import API in requests of 1,000: what the command costs on top of
 * the API. Each side on a DynamoDB Local of its own.
 */
async function migrationCommand(): Promise<void> {
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
async function sessionCost(endpoint: string): Promise<void> {
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

/**
 * Counting (bench/SCALE.md): `BENCH_COUNT_USERS` (1,500) users, two in three email-password with a
 * BCrypt hash and one in three third-party, then `GET /users/count` timed, and the read units one
 * count consumes (DynamoDB Local reports them: `ReturnConsumedCapacity` on the same Queries
 * `countList` sends, 16 shards, page after page), per user and as they scale to 10 million users.
 */
async function countCost(endpoint: string): Promise<void> {
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

/**
 * Session exchange (SPEC §19, issue #35): `POST /recipe/migration/session/exchange` of an Auth0-style
 * RS256 ID token (keys from a loopback JWKS server, fetched once and cached), against a bare
 * `jose` `jwtVerify` of the same token with a `createLocalJWKSet` made once (the same checks:
 * issuer, audience, algorithm), interleaved per round. A token is exchanged once, so every round
 * signs a fresh one (not timed). `GET /apiversion` (the HTTP hop and the handler stack) and the
 * bundle invoked in-process (no hop) in the same loop, DynamoDB calls counted on the wire.
 */
async function sessionExchange(endpoint: string): Promise<void> {
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

/**
 * Figure 15, hashes (SPEC §7b, issue #36): per password-hash family, a typical vector and, where
 * one exists, a vector at or near the §7b bound (all made by independent tools). The bare check
 * (the form's parse, then its check from FORM_CHECKS) against `POST /recipe/signin` of a user
 * imported with that hash, interleaved with the bare check + one GetItem of the email guard (the
 * floor of a sign-in). `PASSWORD_REHASH_ON_SIGNIN=false`, so every sign-in pays the imported hash.
 * `BENCH_HASH_N` (default 20) rounds; a vector whose check takes over 200 ms gets 5.
 */
async function hashFamilies(endpoint: string): Promise<void> {
  const N = Number(process.env.BENCH_HASH_N ?? 20);
  const proxy = await startCountingProxy(endpoint);
  const api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, PASSWORD_REHASH_ON_SIGNIN: 'false' });
  const floorClient = new DynamoDBClient({ endpoint: proxy.endpoint });
  const floorCtx = createDynamoContext(api.tableName, floorClient);
  const getGuard = (email: string) =>
    floorCtx.doc.send(new GetCommand({ TableName: api.tableName, Key: keys.emailGuard('public', 'emailpassword', email), ConsistentRead: true }));
  // SHA-crypt at rounds=1000000, phpass/Drupal count characters F–Z (2^17 and up): near the bound.
  const nearBound = (hash: string) => hash.includes('rounds=1000000') || /^\$[PHS]\$[F-Z]/.test(hash);
  const vectors = FAMILY_VECTORS.filter((v) => v.family !== null).map((v) => ({
    algorithm: v.family as string,
    hash: v.hash,
    password: v.password,
    atBound: v.note?.includes('max') === true || nearBound(v.hash),
  }));
  const rows: (string | number)[][] = [];
  const figures: Record<string, unknown>[] = [];
  for (const family of FAMILIES) {
    const own = vectors.filter((v) => v.algorithm === family.value);
    // Typical: the family's own first form where it has a vector (WordPress's `$wp$`, not phpass's `$P$`).
    const typical = own.find((v) => !v.atBound && family.forms[0].parse(v.hash).ok) ?? own.find((v) => !v.atBound);
    const picks = [typical, own.find((v) => v.atBound)].filter((v): v is (typeof own)[number] => v !== undefined);
    for (const v of picks) {
      const found = family.forms.map((form) => ({ form, parsed: form.parse(v.hash) })).find((f) => f.parsed.ok);
      const check = found && FORM_CHECKS.get(found.form);
      if (!found || !found.parsed.ok || !check) throw new Error(`no form of ${family.value} parses ${v.hash.slice(0, 12)}…`);
      const bare = async () => {
        const parsed = found.form.parse(v.hash);
        if (!parsed.ok || !(await check(v.password, parsed.params))) throw new Error(`bare check of ${family.value} failed`);
      };
      const email = `hash-${randomUUID()}@bench.example`;
      const imported = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: v.hash, hashingAlgorithm: family.value });
      if (imported.json?.status !== 'OK') throw new Error(`import failed: ${imported.status} ${imported.text.slice(0, 200)}`);
      const signIn = () => api.post('/recipe/signin', { email, password: v.password });
      const first = await timed(bare);
      const n = first.ms > 200 ? Math.min(N, 5) : N;
      const warm = await signIn();
      if (warm.json?.status !== 'OK') throw new Error(`sign-in failed: ${warm.status} ${warm.text.slice(0, 200)}`);
      const ms = { bare: [] as number[], signIn: [] as number[], floor: [] as number[] };
      let calls: Record<string, number> = {};
      // Interleaved, so all three see the same machine load.
      for (let i = 0; i < n; i++) {
        ms.bare.push((await timed(bare)).ms);
        proxy.reset();
        const s = await timed(signIn);
        if (s.value.json?.status !== 'OK') throw new Error(`sign-in failed: ${s.value.status}`);
        ms.signIn.push(s.ms);
        calls = Object.fromEntries(proxy.counts);
        // The floor: the guard's GetItem (which carries the hash), then the check.
        ms.floor.push(
          (
            await timed(async () => {
              await getGuard(email);
              await bare();
            })
          ).ms,
        );
      }
      const p = (x: number[]) => round(percentile(x, 50));
      const label = `${family.name}${v.atBound ? ' (at/near bound)' : ''}`;
      const shown = v.hash.length > 28 ? `${v.hash.slice(0, 28)}…` : v.hash;
      const ratio = round(percentile(ms.signIn, 50) / percentile(ms.floor, 50));
      figures.push({
        family: family.value,
        hash: shown,
        atBound: v.atBound,
        n,
        bareP50Ms: p(ms.bare),
        signInP50Ms: p(ms.signIn),
        floorP50Ms: p(ms.floor),
        ratioP50: ratio,
        dynamoCalls: calls,
      });
      rows.push([label, `\`${shown}\``, n, p(ms.bare), p(ms.signIn), p(ms.floor), ratio]);
    }
  }
  floorClient.destroy();
  await api.stop();
  await proxy.close();
  results.hashes = figures;
  say(`\n### 15. Password-hash families (SPEC §7b; per vector N rounds, sequential; PASSWORD_REHASH_ON_SIGNIN=false)\n`);
  say(table(['family', 'vector', 'N', 'bare check p50 ms', 'sign-in p50 ms (local server)', 'check + GetItem p50 ms', 'sign-in / (check + GetItem)'], rows));
}

/**
 * Figure 16, mapping (issue #37): the migration command's read + map throughput per source, in
 * process, no service. For each source of `SOURCES`, each of its generators (bench/migrate/)
 * writes `BENCH_MAPPING_USERS` (100,000) users of one population in the source's own format; then,
 * each in a fresh Node process pinned to one CPU (bench/migrate/measure.ts): the source's `open`
 * (its companions read) and one read of `users()` to the end, and the command's plan (`open`, the
 * collision index pass, the decide pass). A source without a generator is listed as such.
 */
async function mappingThroughput(): Promise<void> {
  const n = Number(process.env.BENCH_MAPPING_USERS ?? MAPPING_USERS);
  const dir = mkdtempSync(join(tmpdir(), 'bench-mapping-'));
  const rows: (string | number)[][] = [];
  const figures: Record<string, unknown>[] = [];
  const s = (ms: number) => round(ms / 1000, 1);
  const mb = (bytes: number) => round(bytes / 1e6, 1);
  try {
    // `BENCH_MAPPING_SOURCES=cognito,clerk`: measure only these (a row again after a change).
    const only = process.env.BENCH_MAPPING_SOURCES?.split(',');
    for (const definition of SOURCES.filter((d) => !only || only.includes(d.name))) {
      const generators = GENERATORS.filter((g) => g.source === definition.name);
      if (generators.length === 0) {
        rows.push([definition.name, 'no generator', '', '', '', '', '', '', '', '']);
        figures.push({ source: definition.name, generator: null });
      }
      for (const generator of generators) {
        const sub = mkdtempSync(join(dir, `${generator.source}-`));
        const written = await generator.write(sub, n);
        const files = [written.file, ...Object.values(written.companions).filter((v): v is string => typeof v === 'string')];
        const bytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
        const job = { source: generator.source, file: written.file, companions: written.companions };
        const read = measureInChild({ ...job, pass: 'read' });
        const plan = measureInChild({ ...job, pass: 'plan' });
        rmSync(sub, { recursive: true, force: true });
        if (read.users !== n || plan.users !== n) throw new Error(`${generator.source} (${generator.format}) read ${read.users} / ${plan.users} users of ${n}`);
        // Per second of wall time, and per second of the process's CPU time (what the core gives when not shared).
        const perSecond = (r: MappingResult) => `${round(n / (r.ms / 1000), 0)} (${round(n / (r.cpuMs / 1000), 0)})`;
        figures.push({ source: generator.source, format: generator.format, users: n, bytes, read, plan, pinnedCpu: PINNED_CPU ?? null });
        rows.push([
          definition.name,
          generator.format,
          mb(bytes),
          perSecond(read),
          round(bytes / 1e6 / (read.ms / 1000), 1),
          `${s(read.ms)} (${s(read.cpuMs)})`,
          perSecond(plan),
          `${s(plan.ms)} (${s(plan.cpuMs)})`,
          `${mb(read.rssGrowthBytes)} / ${mb(plan.rssGrowthBytes)}`,
          `${plan.imported} / ${plan.skipped} / ${plan.failed}`,
        ]);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  results.mapping = figures;
  const pinned = PINNED_CPU === undefined ? 'not pinned (no taskset)' : `pinned to CPU ${PINNED_CPU}`;
  say(`\n### 16. Mapping throughput per source (${n} users each; open + read + map in a fresh Node process ${pinned}; no service)\n`);
  say(
    table(
      [
        'source',
        'export (+ companions)',
        'MB read',
        'read: users/s (per CPU s)',
        'read: MB/s',
        'read: s (CPU s)',
        'plan: users/s (per CPU s)',
        'plan: s (CPU s)',
        'peak RSS growth MB, read / plan',
        'plan: imported / skipped / failed',
      ],
      rows,
    ),
  );
}

/** Figures 1–15, beside one DynamoDB Local. */
async function serviceFigures(want: (figure: string) => boolean): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  const client = new DynamoDBClient({ endpoint: dynamo.endpoint });
  await ensureTable(client, 'bench-probe');
  client.destroy();
  try {
    if (want('import')) await importThroughput(dynamo.endpoint);
    if (want('signin')) await signInCost(dynamo.endpoint);
    if (want('passwordless')) await passwordlessRoundTrip(dynamo.endpoint);
    if (want('linking')) await accountLinking(dynamo.endpoint);
    if (want('cold')) await coldStart(dynamo.endpoint);
    if (want('bulk')) await bulkImport();
    if (want('migrate')) await migrationCommand();
    if (want('capacity')) await bulkUnderCapacity();
    if (want('pwmig')) await passwordMigration();
    if (want('load')) await loadMix();
    if (want('count')) await countCost(dynamo.endpoint);
    if (want('sessions')) await sessionCost(dynamo.endpoint);
    if (want('exchange')) await sessionExchange(dynamo.endpoint);
    if (want('hashes')) await hashFamilies(dynamo.endpoint);
  } finally {
    await dynamo.stop();
  }
}

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  Object.assign(process.env, LOCAL_AWS_ENV);
  say(`## Benchmarks (${new Date().toISOString()}, Node ${process.version}, ${require('node:os').cpus().length} cores)`);
  const only = process.env.BENCH_ONLY?.split(',');
  const want = (n: string) => !only || only.includes(n);
  // Figure 16 needs no service: alone, it runs without DynamoDB Local's JVM beside it.
  if (!only || only.some((n) => n !== 'mapping')) await serviceFigures(want);
  if (want('mapping')) await mappingThroughput();
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2));
  say(`\nJSON: ${file}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
