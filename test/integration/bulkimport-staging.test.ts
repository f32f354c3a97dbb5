import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { BCRYPT_VECTORS, VENDOR_SCRYPT_PROJECT, VENDOR_SCRYPT_VECTORS } from '../fixtures/password-vectors';
import { startApi, tableProblems, type TestApi } from '../support/api';
import { startCountingProxy } from '../support/dynamo-proxy';

/**
 * Staging bulk users (SPEC §15): `POST /bulk-import/users` validates all and stages all or none,
 * `GET` lists rows newest first without secrets, `count` is exact, `remove` deletes rows. The
 * import of staged rows is not part of these endpoints.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startApi({ VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey });
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'shop' })).status).toBe(200);
  expect((await api.put('/recipe/role', { role: 'admin' })).status).toBe(200);
});
afterAll(() => api.stop());

let n = 0;
const unique = () => `${Date.now().toString(36)}-${n++}`;
const passwordlessUser = () => ({ loginMethods: [{ recipeId: 'passwordless', email: `pl-${unique()}@example.com` }] });
const stage = (users: unknown[]) => api.post('/bulk-import/users', { users });
const count = async (status?: string, target = api) => {
  const res = await target.get(`/bulk-import/users/count${status ? `?status=${status}` : ''}`);
  expect(res.status).toBe(200);
  return res.json.count as number;
};
const list = (query: string, target = api) => target.get(`/bulk-import/users?${query}`);
/** Every row of a status, following the pagination tokens. */
async function allRows(status: string, limit = 500, target = api): Promise<{ id: string }[]> {
  const rows: { id: string }[] = [];
  let token: string | undefined;
  do {
    const res = await list(`status=${status}&limit=${limit}${token ? `&paginationToken=${encodeURIComponent(token)}` : ''}`, target);
    expect(res.status).toBe(200);
    rows.push(...res.json.users);
    token = res.json.nextPaginationToken;
  } while (token);
  return rows;
}

describe('POST /bulk-import/users', () => {
  it('stages valid users and answers each with its ids and identities as the core does', async () => {
    const before = await count('NEW');
    const email = `ep-${unique()}@example.com`;
    const res = await stage([
      {
        externalUserId: `fb-${unique()}`,
        userMetadata: { plan: 'pro' },
        userRoles: [{ role: 'admin', tenantIds: ['public'] }],
        loginMethods: [
          {
            recipeId: 'emailpassword',
            email: ` ${email.toUpperCase()} `,
            passwordHash: BCRYPT_VECTORS[0].hash,
            hashingAlgorithm: 'bcrypt',
            isPrimary: true,
            timeJoinedInMSSinceEpoch: 1_000,
          },
          { recipeId: 'thirdparty', email, thirdPartyId: 'google', thirdPartyUserId: 'g-1', tenantIds: ['shop'], isVerified: true },
          { recipeId: 'passwordless', phoneNumber: '+1 415 555 2671' },
        ],
      },
      { loginMethods: [{ recipeId: 'emailpassword', email: `plain-${unique()}@example.com`, plainTextPassword: 'secret-plain-1' }] },
    ]);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('OK');
    const [first, second] = res.json.users;
    expect(first.userId).toMatch(/^fb-/);
    expect(first.loginMethods).toEqual([
      { recipeId: 'emailpassword', userId: expect.any(String), tenants: ['public'], email },
      { recipeId: 'thirdparty', userId: expect.any(String), tenants: ['shop'], email, thirdpartyId: 'google', thirdpartyUserId: 'g-1' },
      { recipeId: 'passwordless', userId: expect.any(String), tenants: ['public'], email: null, phoneNumber: '+14155552671' },
    ]);
    // Without an external id the user's id is its row id: the primary login method's id.
    expect(second.userId).toBe(second.loginMethods[0].userId);
    expect(await count('NEW')).toBe(before + 2);

    const rows = (await list('status=NEW&limit=500')).json.users as Record<string, unknown>[];
    const row = rows.find((r) => r.externalUserId === first.userId) as Record<string, any>;
    expect(row).toMatchObject({
      id: first.loginMethods[0].userId,
      userMetadata: { plan: 'pro' },
      userRoles: [{ role: 'admin', tenantIds: ['public'] }],
      status: 'NEW',
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(row.loginMethods[0]).toEqual({
      tenantIds: ['public'],
      isVerified: false,
      isPrimary: true,
      timeJoinedInMSSinceEpoch: 1_000,
      recipeId: 'emailpassword',
      email,
      hashingAlgorithm: 'BCRYPT',
      superTokensUserId: first.loginMethods[0].userId,
    });
  });

  it('never shows a password hash or a plain-text password in a listed row', async () => {
    const password = `never-shown-${unique()}`;
    await stage([
      { loginMethods: [{ recipeId: 'emailpassword', email: `s-${unique()}@example.com`, plainTextPassword: password }] },
      {
        loginMethods: [
          { recipeId: 'emailpassword', email: `s-${unique()}@example.com`, passwordHash: VENDOR_SCRYPT_VECTORS[0].hash, hashingAlgorithm: 'firebase_scrypt' },
        ],
      },
    ]);
    const res = await list('limit=500');
    expect(res.text).not.toContain(password);
    expect(res.text).not.toContain('f_scrypt');
    expect(res.text).not.toContain(BCRYPT_VECTORS[0].hash);
    expect(res.text).not.toMatch(/passwordHash|plainTextPassword/);
  });

  it('stages nothing when one user is invalid, and lists the errors of each invalid user by index', async () => {
    const before = await count();
    const res = await stage([
      passwordlessUser(),
      { loginMethods: [{ recipeId: 'thirdparty', email: 'x@example.com', thirdPartyId: 'google' }] },
      passwordlessUser(),
      { externalUserId: 'e', loginMethods: [], userRoles: [{ role: 'ghost', tenantIds: ['public'] }] },
      'not a user',
    ]);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.json).toEqual({
      error: 'Data has missing or invalid fields. Please check the users field for more details.',
      users: [
        { index: 1, errors: ['thirdPartyUserId is required for a thirdparty recipe.'] },
        { index: 3, errors: ['Role ghost does not exist.', 'At least one loginMethod is required.'] },
        { index: 4, errors: ['A user should be of type object.'] },
      ],
    });
    expect(await count()).toBe(before);
  });

  it('answers [] with OK alone, and refuses a missing users array or more than 10,000 users', async () => {
    expect((await stage([])).json).toEqual({ status: 'OK' });
    for (const body of [{}, { users: {} }, { users: null }]) {
      const res = await api.post('/bulk-import/users', body);
      expect([res.status, res.text]).toEqual([400, "Field name 'users' is invalid in JSON input"]);
    }
    const tooMany = await stage(Array.from({ length: 10_001 }, () => ({})));
    expect([tooMany.status, tooMany.json]).toEqual([400, { error: 'You can only add 10000 users at a time.' }]);
  });

  it('stages 10,000 users in one request, all counted and all listed', async () => {
    const before = await count('NEW');
    const users = Array.from({ length: 10_000 }, (_, i) => ({ loginMethods: [{ recipeId: 'passwordless', email: `bulk-${i}-${unique()}@example.com` }] }));
    const res = await stage(users);
    expect(res.status).toBe(200);
    expect(res.json.users).toHaveLength(10_000);
    expect(await count('NEW')).toBe(before + 10_000);
    const ids = new Set((await allRows('NEW')).map((r) => r.id));
    for (const u of res.json.users as { userId: string }[]) expect(ids.has(u.userId)).toBe(true);
  }, 120_000);

  it('refuses, staging nothing, users whose answer would be more than Lambda returns (the new id of every login method)', async () => {
    const before = await count('NEW');
    // 10,000 users of 4 login methods with nothing but an email: 2.4 MB sent, 7.0 MB to answer.
    const users = Array.from({ length: 10_000 }, (_, i) => ({
      loginMethods: Array.from({ length: 4 }, (_, j) => ({ recipeId: 'passwordless', email: `a${i}-${j}@e.co`, ...(j === 0 ? { isPrimary: true } : {}) })),
    }));
    const res = await stage(users);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(
      /^The answer to these 10000 users would take \d+\.\d MB, more than the 5 MB one answer carries: send fewer users per request\.$/,
    );
    expect(await count('NEW')).toBe(before);
    // A quarter of them is answered, and staged.
    const quarter = await stage(users.slice(0, 2_500));
    expect(quarter.status).toBe(200);
    expect(quarter.json.users).toHaveLength(2_500);
    expect(await count('NEW')).toBe(before + 2_500);
  }, 120_000);

  it("answers 413 with a sentence to send fewer users when the body, as Lambda's event carries it, is over 6 MB, and takes one of exactly 6 MB", async () => {
    const TOO_LARGE = 'Request body is larger than 6 MB: send fewer users per request';
    /** A JSON body that takes exactly `bytes` bytes escaped into the event: its 6 quotes take 6 more. */
    const bodyOf = (bytes: number) => {
      const [head, tail] = ['{"users":[],"filler":"', '"}'];
      return `${head}${'x'.repeat(bytes - 6 - head.length - tail.length)}${tail}`;
    };
    const post = (body: string) => api.request('POST', '/bulk-import/users', { rawBody: body, headers: { 'content-type': 'application/json' } });
    const over = await post(bodyOf(6_000_001));
    expect([over.status, over.text]).toEqual([413, TOO_LARGE]);
    const at = await post(bodyOf(6_000_000));
    expect([at.status, at.json]).toEqual([200, { status: 'OK' }]);
    // 3.2 MB as sent, 6.4 MB in the event (each \" of the filler, 2 bytes, is 4 escaped): refused.
    const quoted = `{"users":[],"filler":"${'\\"'.repeat(1_600_000)}"}`;
    expect(Buffer.byteLength(quoted)).toBeLessThan(3_300_000);
    const res = await post(quoted);
    expect([res.status, res.text]).toEqual([413, TOO_LARGE]);
  });

  it('answers the same 413 for a body too large for Lambda to be invoked with at all', async () => {
    const res = await api.request('POST', '/bulk-import/users', {
      rawBody: `{"users":[],"f":"${'x'.repeat(7_000_000)}"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect([res.status, res.text]).toEqual([413, 'Request body is larger than 6 MB: send fewer users per request']);
  });

  it('is app-wide: a tenant segment is refused', async () => {
    const res = await api.post('/shop/bulk-import/users', { users: [] });
    expect([res.status, res.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
  });
});

describe('GET /bulk-import/users and /count', () => {
  it('lists newest first across requests and pages without gaps or repeats', async () => {
    const a = (await stage([passwordlessUser(), passwordlessUser(), passwordlessUser()])).json.users.map((u: { userId: string }) => u.userId);
    await new Promise((r) => setTimeout(r, 5));
    const b = (await stage([passwordlessUser(), passwordlessUser()])).json.users.map((u: { userId: string }) => u.userId);
    const first = await list('limit=2');
    expect(first.json.users.map((r: { id: string }) => r.id).sort()).toEqual([...b].sort());
    expect(typeof first.json.nextPaginationToken).toBe('string');
    const second = await list(`limit=3&paginationToken=${encodeURIComponent(first.json.nextPaginationToken)}`);
    expect(second.json.users.map((r: { id: string }) => r.id).sort()).toEqual([...a].sort());
    // The core's token: base64 of "<id>;<createdAt>" of the last row of the page.
    const last = first.json.users[1];
    expect(Buffer.from(first.json.nextPaginationToken, 'base64').toString()).toBe(`${last.id};${last.createdAt}`);

    const all = await allRows('NEW', 347);
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    expect(all.length).toBe(await count('NEW'));
  }, 60_000);

  it('counts by status and in all, and answers the core texts for bad parameters', async () => {
    expect(await count('FAILED')).toBe(0);
    expect(await count('PROCESSING')).toBe(0);
    expect(await count()).toBe(await count('NEW'));
    const bad: [string, string][] = [
      ['/bulk-import/users?status=DONE', 'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!'],
      ['/bulk-import/users/count?status=new', 'Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!'],
      ['/bulk-import/users?limit=501', 'Max limit allowed is 500'],
      ['/bulk-import/users?limit=0', 'limit must a positive integer with min value 1'],
      ['/bulk-import/users?limit=ten', "Field name 'limit' must be an int in the GET request"],
      ['/bulk-import/users?paginationToken=%25%25', 'invalid pagination token'],
      [`/bulk-import/users?paginationToken=${Buffer.from('id-without-time').toString('base64')}`, 'invalid pagination token'],
    ];
    for (const [path, text] of bad) {
      const res = await api.get(path);
      expect([path, res.status, res.text]).toEqual([path, 400, text]);
    }
  });
});

describe('GET /bulk-import/users of large rows', () => {
  it('ends a page before its answer passes what Lambda returns (6 MB), and the token goes on with the rest', async () => {
    // A table of its own: 72 rows of about 60 KB of metadata each (escaped twice in an answer, 100 KB: 7.2 MB in all).
    const own = await startApi();
    try {
      const big = (i: number) => ({ ...passwordlessUser(), userMetadata: { notes: `${'x"'.repeat(20_000)}${i}` } });
      const staged: string[] = [];
      for (let r = 0; r < 3; r++) {
        const res = await own.post('/bulk-import/users', { users: Array.from({ length: 24 }, (_, i) => big(r * 24 + i)) });
        expect(res.status).toBe(200);
        staged.push(...res.json.users.map((u: { userId: string }) => u.userId));
      }
      const first = await own.get('/bulk-import/users?limit=500');
      expect(first.status).toBe(200);
      // As Lambda returns it: the answer's body, escaped into the answer.
      expect(Buffer.byteLength(JSON.stringify(first.text), 'utf8')).toBeLessThan(6 * 1024 * 1024);
      expect(first.json.users.length).toBeGreaterThan(30);
      expect(first.json.users.length).toBeLessThan(staged.length);
      expect(typeof first.json.nextPaginationToken).toBe('string');
      const all = await allRows('NEW', 500, own);
      expect(all.map((r) => r.id).sort()).toEqual([...staged].sort());
      expect(all[0].id).toBe(first.json.users[0].id);
    } finally {
      await own.stop();
    }
  }, 120_000);
});

describe('POST /bulk-import/users/remove', () => {
  it('removes rows by id and names the ids that named no row', async () => {
    const ids = (await stage([passwordlessUser(), passwordlessUser()])).json.users.map((u: { userId: string }) => u.userId);
    const before = await count('NEW');
    const res = await api.post('/bulk-import/users/remove', { ids: [ids[0], 'not-a-row', ids[1], '00000000-0000-4000-8000-000000000000'] });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ deletedIds: [ids[0], ids[1]], invalidIds: ['not-a-row', '00000000-0000-4000-8000-000000000000'] });
    expect(await count('NEW')).toBe(before - 2);
    expect((await api.post('/bulk-import/users/remove', { ids: [ids[0]] })).json).toEqual({ deletedIds: [], invalidIds: [ids[0]] });
    expect((await api.post('/bulk-import/users/remove', { ids: [] })).json).toEqual({ deletedIds: [], invalidIds: [] });
  });

  it('removes 500 rows at once, counted exactly', async () => {
    const ids = (await stage(Array.from({ length: 500 }, passwordlessUser))).json.users.map((u: { userId: string }) => u.userId);
    const before = await count();
    const res = await api.post('/bulk-import/users/remove', { ids });
    expect(res.json.deletedIds).toHaveLength(500);
    expect(await count()).toBe(before - 500);
  }, 60_000);

  it('answers the core texts for bad ids', async () => {
    const bad: [unknown, string][] = [
      [{}, "Field name 'ids' is invalid in JSON input"],
      [{ ids: 'x' }, "Field name 'ids' is invalid in JSON input"],
      [{ ids: [1] }, "Field name 'ids' is invalid in JSON input"],
      [{ ids: [''] }, "Field name 'ids' cannot contain an empty string"],
      [{ ids: Array.from({ length: 501 }, (_, i) => `id-${i}`) }, "Field name 'ids' cannot contain more than 500 elements"],
      [{ ids: ['\ud800'] }, "Field name 'ids' is not valid Unicode: it holds a lone surrogate"],
    ];
    for (const [body, text] of bad) {
      const res = await api.post('/bulk-import/users/remove', body);
      expect([res.status, res.text]).toEqual([400, text]);
    }
  });
});

describe('staging while DynamoDB is short of capacity', () => {
  it('waits for capacity chunk by chunk: the request answers 200 and stages each user once, not a part of them to be sent again', async () => {
    const proxy = await startCountingProxy(process.env.TEST_DYNAMODB_ENDPOINT as string);
    const busy = await startApi({ VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey, AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
    try {
      const users = Array.from({ length: 1000 }, passwordlessUser);
      // The first three staging transactions (99 rows each) go in; then every one is cancelled for
      // capacity for 3 s. The request used to answer 503 after a transaction's own 5 tries, with
      // a third of its users staged: sent again, they would have been staged twice.
      let staging = 0;
      const putsNewRows = (items: Record<string, unknown>[]) =>
        items.some((i) => (i.Put as { Item?: { status?: { S?: string } } } | undefined)?.Item?.status?.S === 'NEW');
      proxy.cancelTransactionsNext(Infinity, (items) => putsNewRows(items) && ++staging > 3);
      const capacityBack = setTimeout(() => proxy.cancelTransactionsNext(0), 3000);
      const res = await busy.post('/bulk-import/users', { users });
      clearTimeout(capacityBack);
      expect(proxy.cancelled.count).toBeGreaterThan(5);
      expect([res.status, res.json.users?.length]).toEqual([200, 1000]);
      expect((await busy.get('/bulk-import/users/count?status=NEW')).json.count).toBe(1000);
    } finally {
      await busy.stop();
      await proxy.close();
    }
  }, 60_000);
});

describe('staging with an idempotency key (beyond the core)', () => {
  const stageWithKey = (target: TestApi, users: unknown[], key: string) => target.post('/bulk-import/users', { users }, { 'idempotency-key': key });
  const idsOf = (res: { json: { users: { userId: string; loginMethods: { userId: string }[] }[] } }) =>
    res.json.users.map((u) => [u.userId, ...u.loginMethods.map((lm) => lm.userId)]);

  it('stages a request sent again with its key once, and answers the same ids; another key or other users are staged anew', async () => {
    const users = Array.from({ length: 250 }, passwordlessUser);
    const key = `batch-${unique()}`;
    const before = await count('NEW');
    const first = await stageWithKey(api, users, key);
    expect(first.status).toBe(200);
    expect(await count('NEW')).toBe(before + 250);

    const again = await stageWithKey(api, users, key);
    expect(again.status).toBe(200);
    expect(idsOf(again)).toEqual(idsOf(first));
    expect(await count('NEW')).toBe(before + 250);
    const listed = new Set((await allRows('NEW')).map((r) => r.id));
    expect(first.json.users.every((u: { userId: string }) => listed.has(u.userId))).toBe(true);

    const otherKey = await stageWithKey(api, users, `${key}-b`);
    const otherUsers = await stageWithKey(api, [...users.slice(1), passwordlessUser()], key);
    expect([otherKey.status, otherUsers.status]).toEqual([200, 200]);
    const firstIds = new Set(idsOf(first).flat());
    expect(
      idsOf(otherKey)
        .flat()
        .some((id) => firstIds.has(id)),
    ).toBe(false);
    expect(
      idsOf(otherUsers)
        .flat()
        .some((id) => firstIds.has(id)),
    ).toBe(false);
    expect(await count('NEW')).toBe(before + 750);
  });

  it('stages only what no earlier try staged: not the chunks a failed try put in, nor rows of theirs imported or removed since', async () => {
    const proxy = await startCountingProxy(process.env.TEST_DYNAMODB_ENDPOINT as string);
    const failing = await startApi({ VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey, AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
    try {
      const users = Array.from({ length: 500 }, passwordlessUser);
      const key = `batch-${unique()}`;
      const before = await count('NEW', failing);
      // Two staging transactions go in (98 rows each, with the chunk's mark and the counter), the
      // others are cancelled for a reason no retry mends: the request fails part way.
      let staging = 0;
      proxy.cancelTransactionsNext(
        Infinity,
        (items) => items.some((i) => (i.Put as { Item?: { type?: { S?: string } } } | undefined)?.Item?.type?.S === 'bulkRow') && ++staging > 2,
        'ValidationError',
      );
      const broken = await stageWithKey(failing, users, key);
      proxy.cancelTransactionsNext(0);
      expect(broken.status).toBeGreaterThanOrEqual(500);
      expect(broken.text).not.toMatch(/bulk|row|at /i);
      expect(await count('NEW', failing)).toBe(before + 196);
      const staged = (await allRows('NEW', 500, failing)).map((r) => r.id);
      // Two of them leave before the request is sent again (imported, or removed).
      const gone = staged.slice(0, 2);
      expect((await failing.post('/bulk-import/users/remove', { ids: gone })).json.deletedIds.sort()).toEqual([...gone].sort());

      const again = await stageWithKey(failing, users, key);
      expect([again.status, again.json.users?.length]).toEqual([200, 500]);
      expect(await count('NEW', failing)).toBe(before + 498);
      const third = await stageWithKey(failing, users, key);
      expect(idsOf(third)).toEqual(idsOf(again));
      expect(await count('NEW', failing)).toBe(before + 498);
      const listed = new Set((await allRows('NEW', 500, failing)).map((r) => r.id));
      expect(gone.some((id) => listed.has(id))).toBe(false);
      expect(await tableProblems(failing.tableName)).toEqual([]);

      // Once the marks have expired (DynamoDB's TTL deleted them), the rows still there are enough;
      // the two that left are staged again.
      const doc = DynamoDBDocumentClient.from(
        new DynamoDBClient({
          endpoint: process.env.TEST_DYNAMODB_ENDPOINT,
          region: 'us-east-1',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      );
      const marks: Record<string, unknown>[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(
          new ScanCommand({
            TableName: failing.tableName,
            FilterExpression: '#type = :t',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':t': 'bulkStaged' },
            ExclusiveStartKey: startKey,
          }),
        );
        marks.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      // One mark per chunk of 98 rows: the failed try's 2, the next try's 4.
      expect(marks.length).toBe(6);
      for (const mark of marks) await doc.send(new DeleteCommand({ TableName: failing.tableName, Key: { pk: mark.pk, sk: mark.sk } }));
      expect((await stageWithKey(failing, users, key)).status).toBe(200);
      expect(await count('NEW', failing)).toBe(before + 500);
      expect(await tableProblems(failing.tableName)).toEqual([]);
    } finally {
      await failing.stop();
      await proxy.close();
    }
  }, 60_000);

  it('stages each user once when the same request races itself (a retry sent while the first try still runs)', async () => {
    const users = Array.from({ length: 400 }, passwordlessUser);
    const key = `race-${unique()}`;
    const before = await count('NEW');
    const tries = await Promise.all([0, 1, 2].map(() => stageWithKey(api, users, key)));
    expect(tries.map((t) => t.status)).toEqual([200, 200, 200]);
    expect(idsOf(tries[1])).toEqual(idsOf(tries[0]));
    expect(idsOf(tries[2])).toEqual(idsOf(tries[0]));
    expect(await count('NEW')).toBe(before + 400);
    const listed = (await allRows('NEW')).map((r) => r.id);
    const ours = new Set(tries[0].json.users.map((u: { userId: string }) => u.userId));
    expect(listed.filter((id) => ours.has(id))).toHaveLength(400);
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('refuses a key that is empty, too long or not visible ASCII, staging nothing', async () => {
    const before = await count();
    for (const key of ['', 'x'.repeat(256), 'two words', 'clé']) {
      const res = await stageWithKey(api, [passwordlessUser()], key);
      expect([res.status, res.text]).toEqual([400, 'The idempotency-key header must be 1 to 255 visible ASCII characters.']);
    }
    expect((await stageWithKey(api, [passwordlessUser()], 'k'.repeat(255))).status).toBe(200);
    expect(await count()).toBe(before + 1);
  });
});
