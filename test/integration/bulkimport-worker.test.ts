import { BCRYPT_VECTORS, VENDOR_SCRYPT_PROJECT } from '../fixtures/password-vectors';
import { bulkRowCount, bulkRowsDrained, hashVariants, mixedUser, type ExpectedLoginMethod } from '../support/bulk-users';
import { inPool } from '../../lib/pool';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startCountingProxy, type CountingProxy } from '../support/dynamo-proxy';
import { startApi, tableProblems, type TestApi } from '../support/api';
import { DeleteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { testDocClient } from '../support/table';
import * as keys from '../../lib/storage/keys';

/**
 * The bulk-import worker (SPEC §15): staged rows reach it through the table's stream (the local
 * poller invokes the worker bundle as Lambda would), each user is imported in its own
 * transaction, re-staging is harmless, conflicts end as FAILED rows, and a crash or an outage of
 * DynamoDB leaves no row behind once the service is back (the sweeper).
 */
const ENV = { VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey, ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1', BULK_WORKER: 'on' };

/**
 * The file runs on a DynamoDB Local of its own, not the suite's: DynamoDB Local slows writes to
 * stream-enabled tables after heavy stream use, which other suites need not pay. The parts stage
 * about 650 rows in all (a few thousand stream records), far from the 40,000 records after which
 * the slowing shows (bench/README.md), so they share it.
 */
let dynamo: DynamoDbLocal;

/**
 * Every server and proxy a test starts, so the last `afterAll` ends what a failed or timed-out
 * test left running (jest goes on to the next test while the timed-out one still awaits) before
 * it stops DynamoDB Local. A test stops its own as before: that stop checks the table.
 */
const started: { servers: TestApi[]; proxies: CountingProxy[] } = { servers: [], proxies: [] };
async function server(env: Record<string, string>): Promise<TestApi> {
  const api = await startApi({ ...ENV, ...env });
  started.servers.push(api);
  return api;
}
async function proxyTo(target: string, latencyMs = 0): Promise<CountingProxy> {
  const proxy = await startCountingProxy(target, latencyMs);
  started.proxies.push(proxy);
  return proxy;
}
beforeAll(async () => {
  dynamo = await startDynamoDbLocal();
});
afterAll(async () => {
  await Promise.allSettled(started.servers.map((api) => api.kill()));
  await Promise.allSettled(started.proxies.map((proxy) => proxy.close()));
  await dynamo?.stop();
});

/** Runs every stop, in order, even when one throws; then throws the first error. */
async function stopAll(...stops: (() => Promise<void>)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const stop of stops) await stop().catch((err: unknown) => errors.push(err));
  if (errors.length > 0) throw errors[0];
}

const userCount = async (api: TestApi) => (await api.get('/users/count?includeAllTenants=true')).json.count as number;

/** A login method reduced to what the mixed batch checks: recipe, identity and its own verified state. */
const loginMethodFacts = (lm: ExpectedLoginMethod) => ({
  recipeId: lm.recipeId,
  email: lm.email,
  phoneNumber: lm.phoneNumber,
  thirdParty: lm.thirdParty && { id: lm.thirdParty.id, userId: lm.thirdParty.userId },
  verified: lm.verified,
});

/** The rows left in a table, read from DynamoDB Local itself (a server killed a moment ago cannot be asked). */
async function rowsLeft(doc: DynamoDBDocumentClient, tableName: string): Promise<number> {
  let found = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'begins_with(sk, :row)',
        ExpressionAttributeValues: { ':row': 'ROW#' },
        Select: 'COUNT',
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    found += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return found;
}

/** `n` users with one passwordless email each and external ids `<prefix>-<i>` (with `extra` fields). */
const passwordlessUsers = (prefix: string, n: number, extra: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({
    externalUserId: `${prefix}-${i}`,
    ...extra,
    loginMethods: [{ recipeId: 'passwordless', email: `${prefix}-${i}@example.com` }],
  }));

/** Holds the stream back (its API refused, as when it sheds load) until `proxy.throttleNext(0)`: the worker sees nothing staged meanwhile. */
const holdStream = (proxy: CountingProxy): void => proxy.throttleNext(Infinity, (operation) => operation.startsWith('DynamoDBStreams'));

async function stageAll(api: TestApi, users: unknown[], perRequest = 1000): Promise<void> {
  for (let i = 0; i < users.length; i += perRequest) {
    const res = await api.post('/bulk-import/users', { users: users.slice(i, i + perRequest) });
    expect([res.status, res.json?.error]).toEqual([200, undefined]);
  }
}

describe('the bulk-import worker', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await server({ AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint });
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'shop' })).status).toBe(200);
    expect((await api.put('/recipe/role', { role: 'member' })).status).toBe(200);
  });
  // Its stop checks the table's consistency.
  afterAll(() => api?.stop());

  // One round of the mixed export: each of its eight kinds of user, and each kind with a hash in
  // every hash format (`mixedUser` gives kind `i % 8` the format `(i / 8 + slot) % formats`). What
  // each user must look like, sign-in in each format, re-staging and conflicts need every
  // combination once, not thousands of users; throughput is bench figure 6's.
  const N = 8 * hashVariants().length;
  const batch = Array.from({ length: N }, (_, i) => mixedUser('mix', i));

  it(`imports ${N} mixed users staged in bulk: each found by its external id as it was`, async () => {
    const before = await userCount(api);
    // In two requests, as an export larger than one request is staged.
    await stageAll(
      api,
      batch.map((b) => b.user),
      N / 2,
    );
    await bulkRowsDrained(api);
    expect(await bulkRowCount(api, 'FAILED')).toBe(0);
    expect(await userCount(api)).toBe(before + N);

    const problems: string[] = [];
    await inPool(batch, 16, async ({ expected: e }) => {
      const { user } = (await api.get(`/user/id?userId=${e.ext}`)).json;
      const got = {
        id: user?.id,
        loginMethods: (user?.loginMethods as ExpectedLoginMethod[] | undefined)?.map(loginMethodFacts),
        timeJoined: user?.timeJoined,
        tenants: [...(user?.tenantIds ?? [])].sort(),
      };
      const want = { id: e.ext, loginMethods: e.loginMethods.map(loginMethodFacts), timeJoined: e.timeJoined, tenants: [...e.tenants].sort() };
      if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${e.ext}: ${JSON.stringify(got)} ≠ ${JSON.stringify(want)}`);
      if (e.metadata) {
        const metadata = (await api.get(`/recipe/user/metadata?userId=${e.ext}`)).json.metadata;
        if (JSON.stringify(metadata) !== JSON.stringify(e.metadata)) problems.push(`${e.ext}: metadata ${JSON.stringify(metadata)}`);
      }
      if (e.roles) {
        const roles = (await api.get(`/recipe/user/roles?userId=${e.ext}`)).json.roles;
        if (JSON.stringify(roles) !== JSON.stringify(e.roles)) problems.push(`${e.ext}: roles ${JSON.stringify(roles)}`);
      }
    });
    expect(problems).toEqual([]);
    // A linked user's role in its second tenant.
    expect((await api.get(`/shop/recipe/user/roles?userId=${batch[1].expected.ext}`)).json.roles).toEqual(['member']);
  }, 180_000);

  it('lets every password user sign in with its old password (each hash format, and plain-text ones)', async () => {
    const withPassword = batch.filter((b) => b.expected.password);
    expect(withPassword.length).toBe(N / 2);
    // Every format of SPEC §7 is among them, and plain-text passwords.
    expect(new Set(withPassword.map((b) => b.expected.hashVariant))).toEqual(new Set([...hashVariants().map((v) => v.label), 'plainTextPassword']));
    // Each kind of user with a hash (three of the eight) has every format.
    for (const kind of [0, 1, 2]) {
      const formats = new Set(batch.filter((_, i) => i % 8 === kind).map((b) => b.expected.hashVariant));
      expect([kind, formats.size]).toEqual([kind, hashVariants().length]);
    }
    await inPool(withPassword, 8, async ({ expected: e }) => {
      const res = await api.post('/recipe/signin', e.password);
      expect([e.ext, res.json.status, res.json.user?.id]).toEqual([e.ext, 'OK', e.ext]);
    });
  }, 120_000);

  it('imports nothing new and fails nothing when the same export is staged again', async () => {
    const before = await userCount(api);
    await stageAll(
      api,
      batch.map((b) => b.user),
    );
    await bulkRowsDrained(api);
    expect(await bulkRowCount(api, 'FAILED')).toBe(0);
    expect(await bulkRowCount(api)).toBe(0);
    expect(await userCount(api)).toBe(before);
  }, 120_000);

  it('fails duplicates within a batch and conflicts with existing users with the core texts; remove deletes them', async () => {
    const taken = batch[0].expected.password?.email as string;
    const dup = 'dup-in-batch@example.com';
    const ep = (email: string) => ({ recipeId: 'emailpassword', email, passwordHash: BCRYPT_VECTORS[3].hash, hashingAlgorithm: 'bcrypt' });
    const before = await userCount(api);
    await stageAll(api, [
      { externalUserId: 'dup-a', loginMethods: [ep(dup)] },
      { externalUserId: 'dup-b', loginMethods: [ep(dup)] },
      { externalUserId: 'conflict-email', loginMethods: [ep(taken)] },
      { externalUserId: batch[3].expected.ext, loginMethods: [ep('fresh-but-ext-taken@example.com')] },
    ]);
    await bulkRowsDrained(api);
    expect(await userCount(api)).toBe(before + 1);
    const failed = (await api.get('/bulk-import/users?status=FAILED')).json.users as {
      id: string;
      externalUserId: string;
      errorMessage: string;
      loginMethods: object[];
    }[];
    const byExt = Object.fromEntries(failed.map((r) => [r.externalUserId, r.errorMessage]));
    const dupLoser = failed.find((r) => r.externalUserId === 'dup-a' || r.externalUserId === 'dup-b');
    expect(byExt).toEqual({
      [dupLoser?.externalUserId as string]: `E003: A user with email ${dup} already exists in emailpassword loginMethod.`,
      'conflict-email': `E003: A user with email ${taken} already exists in emailpassword loginMethod.`,
      [batch[3].expected.ext]: `E031: A user with externalId ${batch[3].expected.ext} already exists`,
    });
    // A failed row keeps no password, not even as a hash.
    expect(JSON.stringify(failed)).not.toContain('$2');
    const removed = await api.post('/bulk-import/users/remove', { ids: failed.map((r) => r.id) });
    expect(removed.json.deletedIds).toHaveLength(3);
    expect(await bulkRowCount(api)).toBe(0);
  }, 120_000);
});

describe('the bulk-import worker on rows that conflict with users imported after their staging', () => {
  let proxy: CountingProxy;
  let api: TestApi;
  beforeAll(async () => {
    proxy = await proxyTo(dynamo.endpoint);
    api = await server({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
    expect((await api.put('/recipe/role', { role: 'doomed' })).status).toBe(200);
  });
  afterAll(() =>
    stopAll(
      () => api?.stop() ?? Promise.resolve(),
      () => proxy?.close() ?? Promise.resolve(),
    ),
  );

  it("fails them with the core texts: third-party identity (E005), passwordless email (E006) and phone (E007) taken, a linked user's account info (E027), a role deleted since (E034)", async () => {
    const email = 'holder@example.com';
    const phone = '+14155550142';
    const holder = await api.post('/bulk-import/import', {
      externalUserId: 'holder',
      loginMethods: [
        { recipeId: 'passwordless', email, isPrimary: true },
        { recipeId: 'passwordless', phoneNumber: phone },
        { recipeId: 'thirdparty', email, thirdPartyId: 'google', thirdPartyUserId: 'g-holder' },
      ],
    });
    expect(holder.status).toBe(200);
    const before = await userCount(api);

    // The stream is held back (its API refused, as when it sheds load) while the rows are staged and
    // the role they name is deleted: the worker sees them only after both.
    holdStream(proxy);
    await stageAll(api, [
      {
        externalUserId: 'tp-taken',
        loginMethods: [{ recipeId: 'thirdparty', email: 'other@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-holder' }],
      },
      { externalUserId: 'email-taken', loginMethods: [{ recipeId: 'passwordless', email }] },
      { externalUserId: 'phone-taken', loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+1 415 555 0142' }] },
      { externalUserId: 'linked-taken', loginMethods: [{ recipeId: 'thirdparty', email, thirdPartyId: 'github', thirdPartyUserId: 'gh-1', isPrimary: true }] },
      {
        externalUserId: 'role-gone',
        userRoles: [{ role: 'doomed', tenantIds: ['public'] }],
        loginMethods: [{ recipeId: 'passwordless', email: 'fresh@example.com' }],
      },
    ]);
    expect((await api.post('/recipe/role/remove', { role: 'doomed' })).json).toEqual({ status: 'OK', didRoleExist: true });
    expect(await bulkRowCount(api, 'NEW')).toBe(5);
    proxy.throttleNext(0);
    await bulkRowsDrained(api);

    const failed = (await api.get('/bulk-import/users?status=FAILED')).json.users as { externalUserId: string; errorMessage: string }[];
    expect(Object.fromEntries(failed.map((r) => [r.externalUserId, r.errorMessage]))).toEqual({
      'tp-taken': 'E005: A user with thirdPartyId google and thirdPartyUserId g-holder already exists in thirdparty loginMethod.',
      'email-taken': `E006: A user with email ${email} already exists in passwordless loginMethod.`,
      'phone-taken': `E007: A user with phoneNumber ${phone} already exists in passwordless loginMethod.`,
      'linked-taken': 'E027: there is a conflicting account info',
      'role-gone': 'E034: Role does not exist! You need to pre-create the role before assigning it to the user.',
    });
    expect(await userCount(api)).toBe(before);
  }, 120_000);

  it("checks a role on its lanes' copies, never on the role itself: each lane's copy made once, removed with the role, replaced when the role is made again", async () => {
    const lanePrefix = (role: string) => `${keys.roleLane(role, 0).pk.slice(0, -1)}`;
    const touches = (prefix: string) => [...proxy.transactionKeys].filter(([pk]) => pk.startsWith(prefix));
    const doc = testDocClient(dynamo.endpoint);
    /** The partition keys of a role's lane copies. */
    const copies = async (role: string) => {
      const found: string[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new ScanCommand({
            TableName: api.tableName,
            FilterExpression: 'begins_with(pk, :p)',
            ExpressionAttributeValues: { ':p': lanePrefix(role) },
            ExclusiveStartKey: start,
          }),
        );
        found.push(...(page.Items ?? []).map((item) => item.pk as string));
        start = page.LastEvaluatedKey;
      } while (start);
      return found;
    };
    /**
     * Removes a role: its lane copies at once (checked), then its assignments. Those take at most
     * 3 s of the removal (ROLE_REMOVAL_BUDGET_MS), and the ones left when that runs out go with
     * the next removal of a role of that name, as documented: a hundred and sixty took 1.1 s here
     * at a load of 5, and 24 of them were left once at a load of 8. So the role is made anew and
     * removed again while any is left (never, on a quiet machine) and removals still take some.
     */
    const removeRole = async (role: string) => {
      expect((await api.post('/recipe/role/remove', { role })).json).toEqual({ status: 'OK', didRoleExist: true });
      expect(await copies(role)).toEqual([]);
      const assignmentsLeft = async () =>
        (await tableProblems(api.tableName, dynamo.endpoint)).filter((p) => p.kind === 'assignment-of-removed-role' && p.detail.endsWith(` role ${role}`))
          .length;
      for (let left = await assignmentsLeft(), stalled = 0; left > 0 && stalled < 3; ) {
        expect((await api.put('/recipe/role', { role })).json.createdNewRole).toBe(true);
        expect((await api.post('/recipe/role/remove', { role })).json).toEqual({ status: 'OK', didRoleExist: true });
        const now = await assignmentsLeft();
        stalled = now < left ? 0 : stalled + 1;
        left = now;
      }
      expect(await assignmentsLeft()).toBe(0);
    };
    try {
      const failedBefore = await bulkRowCount(api, 'FAILED');
      expect((await api.put('/recipe/role', { role: 'crowd' })).json.createdNewRole).toBe(true);
      // A hundred users over the 256 lanes: about 82 lanes, some with two users or more (all on
      // lanes of their own is a chance of about 1 in 6 billion), so one check per lane is not one per user.
      const crowd = passwordlessUsers('crowd', 100, { userRoles: [{ role: 'crowd', tenantIds: ['public'] }] });
      proxy.reset();
      await stageAll(api, crowd);
      await bulkRowsDrained(api);
      expect(await bulkRowCount(api, 'FAILED')).toBe(failedBefore);
      const lanes = touches(lanePrefix('crowd'));
      expect(lanes.length).toBeLessThan(crowd.length);
      // The role's own item: one transaction per lane (making its copy), not one per user.
      expect(proxy.transactionKeys.get(keys.role('crowd').pk)).toBe(lanes.length);
      // Its copies: each user's import checks its lane's, and each was made once.
      expect(lanes.reduce((sum, [, n]) => sum + n, 0)).toBe(crowd.length + lanes.length);
      expect(((await api.get('/recipe/role/users?role=crowd')).json.users as string[]).sort()).toEqual(crowd.map((u) => u.externalUserId).sort());
      await removeRole('crowd');

      // A removal that stopped after the role, before its copies: the checker sees them, and the
      // role made again (a new incarnation) replaces each copy before a user of its lane gets it.
      expect((await api.put('/recipe/role', { role: 'phoenix' })).json.createdNewRole).toBe(true);
      const first = Array.from({ length: 60 }, (_, i) => ({
        externalUserId: `phoenix-a${i}`,
        userRoles: [{ role: 'phoenix', tenantIds: ['public'] }],
        loginMethods: [{ recipeId: 'passwordless', email: `phoenix-a${i}@example.com` }],
      }));
      await stageAll(api, first);
      await bulkRowsDrained(api);
      const stale = new Set(await copies('phoenix'));
      expect(stale.size).toBeGreaterThan(0);
      await doc.send(new DeleteCommand({ TableName: api.tableName, Key: keys.role('phoenix') }));
      expect((await tableProblems(api.tableName, dynamo.endpoint)).map((p) => p.kind)).toContain('role-lane-of-removed-role');
      expect((await api.put('/recipe/role', { role: 'phoenix' })).json.createdNewRole).toBe(true);
      // A hundred users over the 256 lanes reach some of the ~54 lanes the first import left a
      // stale copy in (none is a chance of about 1 in 9 billion; checked below, so the test cannot
      // pass without a stale copy met).
      proxy.reset();
      const second = Array.from({ length: 100 }, (_, i) => ({
        externalUserId: `phoenix-b${i}`,
        userRoles: [{ role: 'phoenix', tenantIds: ['public'] }],
        loginMethods: [{ recipeId: 'passwordless', email: `phoenix-b${i}@example.com` }],
      }));
      await stageAll(api, second);
      await bulkRowsDrained(api);
      expect(await bulkRowCount(api, 'FAILED')).toBe(failedBefore);
      // Every user of the second import has the role made again (none got a stale copy's incarnation).
      const holders = new Set((await api.get('/recipe/role/users?role=phoenix')).json.users as string[]);
      expect(second.filter((u) => !holders.has(u.externalUserId))).toEqual([]);
      expect(touches(lanePrefix('phoenix')).filter(([pk]) => stale.has(pk)).length).toBeGreaterThan(0);
      // Removing it takes every copy and every assignment, of both incarnations.
      await removeRole('phoenix');
      expect(await tableProblems(api.tableName, dynamo.endpoint)).toEqual([]);
    } finally {
      doc.destroy();
    }
  }, 120_000);
});

describe('the bulk-import worker after a crash or an outage', () => {
  /** A TransactWriteItems that imports a row's user: it deletes the row. */
  const importsRow = (items: Record<string, unknown>[]) =>
    items.some((i) => ((i.Delete as { Key?: { sk?: { S?: string } } } | undefined)?.Key?.sk?.S ?? '').startsWith('ROW#'));

  it('finishes every row after the server is killed mid-import, importing none twice', async () => {
    // The first server's proxy lets its first 10 imports through and then refuses every later one
    // for capacity (the worker waits and tries again), so the kill finds it mid-import however
    // fast the machine is: 10 rows done, 90 left for the second server (checked below).
    const gate = await proxyTo(dynamo.endpoint);
    let passed = 0;
    gate.cancelTransactionsNext(Infinity, (items) => importsRow(items) && ++passed > 10);
    const first = await server({ AWS_ENDPOINT_URL_DYNAMODB: gate.endpoint });
    const users = passwordlessUsers('crash', 100);
    await stageAll(first, users);
    // Kill it once the ten let through have landed and a later import has been refused: the
    // worker is on the rows, waiting to try again.
    const doc = testDocClient(dynamo.endpoint);
    try {
      const until = Date.now() + 60_000;
      const settled = async () => gate.cancelled.count > 0 && (await rowsLeft(doc, first.tableName)) === users.length - 10;
      while (!(await settled()) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      expect(gate.cancelled.count).toBeGreaterThan(0);
      await first.kill();
      // Mid-import: exactly the 10 let through are done, 90 are left for the second server.
      expect(await rowsLeft(doc, first.tableName)).toBe(users.length - 10);
    } finally {
      doc.destroy();
    }
    const second = await server({ AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, TABLE_NAME: first.tableName });
    try {
      await bulkRowsDrained(second);
      expect(await bulkRowCount(second, 'FAILED')).toBe(0);
      expect(await userCount(second)).toBe(users.length);
    } finally {
      await stopAll(
        () => second.stop(),
        () => gate.close(),
      );
    }
  }, 180_000);

  it('imports each row once when an import transaction is done but its answer is lost on the way back', async () => {
    const proxy = await proxyTo(dynamo.endpoint);
    const api = await server({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
    try {
      const before = await userCount(api);
      const users = passwordlessUsers('lost', 30);
      // Staged while the stream is held back, so the dropped answers are the worker's: a third
      // of the imports are done without the worker hearing of it.
      holdStream(proxy);
      await stageAll(api, users);
      proxy.dropRepliesNext(10, (operation) => operation === 'TransactWriteItems');
      proxy.throttleNext(0);
      await bulkRowsDrained(api);
      expect(proxy.dropped.count).toBe(10);
      expect(await bulkRowCount(api, 'FAILED')).toBe(0);
      expect(await userCount(api)).toBe(before + users.length);
      for (const { externalUserId } of users.slice(0, 5)) {
        expect((await api.get(`/user/id?userId=${externalUserId}`)).json.user.loginMethods).toHaveLength(1);
      }
    } finally {
      // Its stop checks the table: no half user, no row, counts equal to the rows.
      await stopAll(
        () => api.stop(),
        () => proxy.close(),
      );
    }
  }, 120_000);

  /** The `throttled` waits the worker's invocations logged. */
  const throttledWaits = (api: TestApi) =>
    api.logs.filter((l) => l.includes('bulk rows processed')).reduce((n, l) => n + (JSON.parse(l) as { throttled?: number }).throttled!, 0);

  it('waits while DynamoDB is short of capacity for the imports: nothing marked, no attempt counted, no row failed, each user imported once', async () => {
    const proxy = await proxyTo(dynamo.endpoint);
    // The sweeper runs every second and fails a row after 3 attempts: were a refusal for load
    // counted as an attempt (an internal error, as it was), rows here would end FAILED.
    const api = await server({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint, BULK_STALE_AFTER_MS: '1500', BULK_SWEEP_INTERVAL_MS: '1000' });
    try {
      const before = await userCount(api);
      const users = passwordlessUsers('busy', 8);
      holdStream(proxy);
      await stageAll(api, users);
      // Ten refusals per row on average: more than a transaction's own retries (5 tries) absorb.
      proxy.cancelTransactionsNext(80, importsRow);
      proxy.throttleNext(0);
      await bulkRowsDrained(api);
      expect(proxy.cancelled.count).toBe(80);
      expect(await bulkRowCount(api, 'FAILED')).toBe(0);
      expect(await userCount(api)).toBe(before + users.length);
      expect(throttledWaits(api)).toBeGreaterThan(0);
      expect(api.logs.filter((l) => l.includes('bulk row import failed') || l.includes('handed back'))).toEqual([]);
      for (const { externalUserId } of users.slice(0, 3)) {
        expect((await api.get(`/user/id?userId=${externalUserId}`)).json.user.loginMethods).toHaveLength(1);
      }
    } finally {
      await stopAll(
        () => api.stop(),
        () => proxy.close(),
      );
    }
  }, 120_000);

  it('hands a row still refused for load back to the stream without marking it, and imports it once capacity returns', async () => {
    const proxy = await proxyTo(dynamo.endpoint);
    // No wait inside an invocation: each refusal hands the record back to the poller at once.
    const api = await server({
      AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
      BULK_THROTTLED_RETRY_WINDOW_MS: '0',
      BULK_STALE_AFTER_MS: '1500',
      BULK_SWEEP_INTERVAL_MS: '1000',
    });
    try {
      const before = await userCount(api);
      const users = passwordlessUsers('refused', 6);
      holdStream(proxy);
      await stageAll(api, users);
      proxy.cancelTransactionsNext(Infinity, importsRow);
      proxy.throttleNext(0);
      expect(await api.logLine((line) => line.includes('bulk row handed back to the stream: storage still throttled'), 60_000)).toBeDefined();
      // Handed back, not marked: the rows are still NEW, none PROCESSING (an attempt) or FAILED.
      expect([await bulkRowCount(api, 'NEW'), await bulkRowCount(api, 'PROCESSING'), await bulkRowCount(api, 'FAILED')]).toEqual([users.length, 0, 0]);
      proxy.cancelTransactionsNext(0);
      await bulkRowsDrained(api);
      expect(await bulkRowCount(api, 'FAILED')).toBe(0);
      expect(await userCount(api)).toBe(before + users.length);
      expect(api.logs.filter((l) => l.includes('bulk row import failed'))).toEqual([]);
    } finally {
      await stopAll(
        () => api.stop(),
        () => proxy.close(),
      );
    }
  }, 120_000);

  it('hands rows over again once DynamoDB answers again (the sweeper), importing each once', async () => {
    const proxy = await proxyTo(dynamo.endpoint);
    const api = await server({
      AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
      // The poller gives up on a record at its first failure, and the worker hands a row refused
      // for load back at once (no wait inside the invocation): the outage below ends in a skipped
      // record within seconds, not after the worker's minute of waiting.
      BULK_STREAM_MAX_RETRIES: '0',
      BULK_THROTTLED_RETRY_WINDOW_MS: '0',
      // A skipped record's row is stale 2 s after it was staged, and swept within a second of
      // that. Rows the worker has not reached yet by then are handed over too: one more stream
      // record each, skipped once imported (cheap with 30 rows).
      BULK_STALE_AFTER_MS: '2000',
      BULK_SWEEP_INTERVAL_MS: '1000',
    });
    try {
      const users = passwordlessUsers('outage', 30);
      await stageAll(api, users);
      // The table refuses every call while its stream still delivers (as when DynamoDB sheds
      // load): the worker fails on the rows it gets, and the poller gives up on at least one of
      // them before the outage ends (BULK_STREAM_MAX_RETRIES 0). A fixed outage did not ensure
      // that: on a slow run the poller had read nothing yet, and no row needed the sweeper. Only
      // the sweeper hands a skipped record's row over again, so the drain below needs it.
      proxy.throttleNext(Infinity, (operation) => !operation.startsWith('DynamoDBStreams'));
      expect(await api.logLine((line) => line.includes('skipped (the sweeper hands its row over again)'), 120_000)).toBeDefined();
      proxy.throttleNext(0);
      await bulkRowsDrained(api);
      expect(await bulkRowCount(api, 'FAILED')).toBe(0);
      expect(await userCount(api)).toBe(users.length);
      expect(await api.logLine((line) => line.includes('bulk rows swept') && !line.includes('"redriven":0'), 30_000)).toBeDefined();
    } finally {
      await stopAll(
        () => api.stop(),
        () => proxy.close(),
      );
    }
  }, 180_000);
});
