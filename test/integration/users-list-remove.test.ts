import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { USER_LIST_SHARDS } from '../../lib/storage/keys';
import * as keys from '../../lib/storage/keys';
import { startApi, type TestApi } from '../support/api';
import { scanTable, testDocClient } from '../support/table';
import { passwordlessSignIn, tenantPath, uniqueEmail, uniquePhone } from '../support/flows';

/** A valid BCrypt hash (cost 10); import only validates it, so users are created fast. */
const BCRYPT = '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq';
const EP = { rid: 'emailpassword' };
const PL = { rid: 'passwordless' };
const TP = { rid: 'thirdparty' };

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
  for (const tenantId of ['page-a', 'page-b', 'page-c', 'rm-t']) {
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
  }
});
afterAll(() => api.stop());

/** Runs `fn` over `items`, at most `concurrency` at a time. */
async function pool<T, R>(items: readonly T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

async function importUser(email: string, tenantId?: string): Promise<string> {
  const res = await api.post(tenantPath(tenantId, '/recipe/user/passwordhash/import'), { email, passwordHash: BCRYPT });
  if (res.json?.status !== 'OK') throw new Error(`import failed: ${res.status} ${res.text}`);
  return res.json.user.id;
}

let tp = 0;
async function thirdPartyUser(tenantId?: string, thirdPartyUserId = `tp-${Date.now().toString(36)}-${tp++}`) {
  const body = { thirdPartyId: 'google', thirdPartyUserId, email: { id: uniqueEmail('tp'), isVerified: true } };
  const res = await api.post(tenantPath(tenantId, '/recipe/signinup'), body);
  if (res.json?.status !== 'OK') throw new Error(`signinup failed: ${res.status} ${res.text}`);
  return { body, user: res.json.user };
}

interface ListedUser {
  id: string;
  timeJoined: number;
  loginMethods: { recipeId: string }[];
}

/** Pages through `GET /users` until the token is absent; every page's size and the users in order. */
async function listAll(tenantId: string, params: string): Promise<{ pages: number[]; users: ListedUser[] }> {
  const pages: number[] = [];
  const users: ListedUser[] = [];
  let token: string | undefined;
  for (;;) {
    const q = `${params}${token !== undefined ? `&paginationToken=${encodeURIComponent(token)}` : ''}`;
    const res = await api.get(`/${tenantId}/users?${q}`);
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('OK');
    pages.push(res.json.users.length);
    users.push(...res.json.users);
    if (!('nextPaginationToken' in res.json)) return { pages, users };
    token = res.json.nextPaginationToken;
    if (pages.length > 100) throw new Error('pagination does not end');
  }
}

const byJoinOrder = (a: ListedUser, b: ListedUser) => a.timeJoined - b.timeJoined || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const countOf = async (path: string) => {
  const res = await api.get(path);
  expect(res.json?.status).toBe('OK');
  return res.json.count as number;
};

describe('GET /users and GET /users/count over 1,200 users in two tenants', () => {
  const created: Record<'page-a' | 'page-b', { id: string; recipeId: string }[]> = { 'page-a': [], 'page-b': [] };

  beforeAll(async () => {
    const jobs = [
      ...Array.from({ length: 700 }, () => ({ tenantId: 'page-a' as const, kind: 'emailpassword' })),
      ...Array.from({ length: 400 }, () => ({ tenantId: 'page-b' as const, kind: 'emailpassword' })),
      ...Array.from({ length: 100 }, () => ({ tenantId: 'page-b' as const, kind: 'thirdparty' })),
    ];
    const made = await pool(jobs, 16, async (job) => ({
      tenantId: job.tenantId,
      recipeId: job.kind,
      id: job.kind === 'thirdparty' ? (await thirdPartyUser(job.tenantId)).user.id : await importUser(uniqueEmail('page'), job.tenantId),
    }));
    for (const m of made) created[m.tenantId].push({ id: m.id, recipeId: m.recipeId });
  }, 120_000);

  it('lists every user of a tenant exactly once, oldest first, in pages of the limit; the last page has no token', async () => {
    const { pages, users } = await listAll('page-a', 'limit=100');
    expect(pages).toEqual([100, 100, 100, 100, 100, 100, 100]);
    const ids = users.map((u) => u.id);
    expect(new Set(ids).size).toBe(700);
    expect([...ids].sort()).toEqual(created['page-a'].map((u) => u.id).sort());
    expect(users).toEqual([...users].sort(byJoinOrder));
  });

  it("spreads a tenant's list over its 16 index shards (no single hot partition key while importing)", async () => {
    const doc = testDocClient();
    try {
      const keysUsed = new Set<string>();
      let start: Record<string, unknown> | undefined;
      do {
        const out = await doc.send(new ScanCommand({ TableName: api.tableName, ProjectionExpression: 'gsi1pk', ExclusiveStartKey: start }));
        for (const item of out.Items ?? []) if (typeof item.gsi1pk === 'string' && item.gsi1pk.startsWith('T#page-a#USERS#')) keysUsed.add(item.gsi1pk);
        start = out.LastEvaluatedKey;
      } while (start);
      expect([...keysUsed].sort()).toEqual(Array.from({ length: USER_LIST_SHARDS }, (_, s) => keys.usersOfTenant('page-a', s)).sort());
    } finally {
      doc.destroy();
    }
  });

  it('lists newest first with timeJoinedOrder=DESC, with an uneven page size', async () => {
    const { pages, users } = await listAll('page-b', 'limit=77&timeJoinedOrder=DESC');
    expect(pages).toEqual([77, 77, 77, 77, 77, 77, 38]);
    expect([...users.map((u) => u.id)].sort()).toEqual(created['page-b'].map((u) => u.id).sort());
    expect(users).toEqual([...users].sort(byJoinOrder).reverse());
  });

  it('answers a page exactly as large as what is left without a token, and uses 100 without a limit', async () => {
    const all = await api.get('/page-b/users?limit=500');
    expect(all.json.users).toHaveLength(500);
    expect('nextPaginationToken' in all.json).toBe(false);
    const first = await api.get('/page-b/users');
    expect(first.json.users).toHaveLength(100);
    expect(first.json.users).toEqual(all.json.users.slice(0, 100));
    expect(typeof first.json.nextPaginationToken).toBe('string');
  });

  it('keeps tenants apart: no page-a user is listed in page-b or public', async () => {
    const a = new Set(created['page-a'].map((u) => u.id));
    const b = (await listAll('page-b', 'limit=500')).users;
    const pub = (await listAll('public', 'limit=500')).users;
    expect([...b, ...pub].filter((u) => a.has(u.id))).toEqual([]);
  });

  it('filters by includeRecipeIds across pages', async () => {
    const { pages, users } = await listAll('page-b', 'limit=30&includeRecipeIds=thirdparty');
    expect(pages).toEqual([30, 30, 30, 10]);
    expect(users.every((u) => u.loginMethods[0].recipeId === 'thirdparty')).toBe(true);
    expect(users.map((u) => u.id).sort()).toEqual(
      created['page-b']
        .filter((u) => u.recipeId === 'thirdparty')
        .map((u) => u.id)
        .sort(),
    );
    const both = await listAll('page-b', 'limit=500&includeRecipeIds=emailpassword,%20thirdparty');
    expect(both.users).toHaveLength(500);
    expect((await api.get('/page-b/users?includeRecipeIds=passwordless')).json).toEqual({ status: 'OK', users: [] });
  });

  it('counts the users of each tenant, by recipe, and of all tenants', async () => {
    expect(await countOf('/page-a/users/count')).toBe(700);
    expect(await countOf('/appid-public/page-b/users/count')).toBe(500);
    expect(await countOf('/page-b/users/count?includeRecipeIds=thirdparty')).toBe(100);
    expect(await countOf('/page-b/users/count?includeRecipeIds=thirdparty,emailpassword')).toBe(500);
    expect(await countOf('/page-b/users/count?includeRecipeIds=passwordless')).toBe(0);
    const others = (await countOf('/users/count')) + (await countOf('/page-c/users/count')) + (await countOf('/rm-t/users/count'));
    expect(await countOf('/users/count?includeAllTenants=true')).toBe(1200 + others);
  });

  // The core's texts (UsersAPI, InputParser), typo included.
  it.each([
    ['0', 'limit must a positive integer with min value 1'],
    ['-1', 'limit must a positive integer with min value 1'],
    ['501', 'max limit allowed is 500'],
    ['2147483647', 'max limit allowed is 500'],
    ['2147483648', "Field name 'limit' must be an int in the GET request"],
    ['1.5', "Field name 'limit' must be an int in the GET request"],
    ['ten', "Field name 'limit' must be an int in the GET request"],
    ['', "Field name 'limit' must be an int in the GET request"],
    ['1e2', "Field name 'limit' must be an int in the GET request"],
  ])('refuses limit=%s with the core text', async (limit, text) => {
    const res = await api.get(`/page-a/users?limit=${limit}`);
    expect([res.status, res.text]).toEqual([400, text]);
  });

  it('accepts the limit bounds 1 and 500', async () => {
    expect((await api.get('/page-a/users?limit=1')).json.users).toHaveLength(1);
    expect((await api.get('/page-a/users?limit=500')).json.users).toHaveLength(500);
  });

  it('refuses a malformed or forged pagination token', async () => {
    const page = (await api.get('/page-a/users?limit=2')).json;
    const good: string = page.nextPaginationToken;
    const b64u = (s: string) => Buffer.from(s).toString('base64url');
    const bad = [
      'not a token!',
      `${good}=`,
      `${good}*`,
      good.slice(0, -1),
      b64u('hello'),
      b64u(`${page.users[1].timeJoined}#not-a-uuid`),
      b64u(`-5#${page.users[1].id}`),
      b64u(`${page.users[1].timeJoined}#${page.users[1].id}#extra`),
      Buffer.from(`${page.users[1].timeJoined}#${page.users[1].id}`).toString('base64'),
    ].filter((t) => t !== good);
    for (const token of bad) {
      const res = await api.get(`/page-a/users?paginationToken=${encodeURIComponent(token)}`);
      expect([token, res.status, res.text]).toEqual([token, 400, 'invalid pagination token']);
    }
    expect((await api.get(`/page-a/users?limit=2&paginationToken=${good}`)).json.status).toBe('OK');
  });

  it.each([
    ['/page-a/users?timeJoinedOrder=SIDEWAYS', "Field name 'timeJoinedOrder' must be ASC or DESC"],
    ['/page-a/users?includeRecipeIds=webauthn,totp', 'Unknown recipe ID: totp'],
    ['/page-a/users/count?includeRecipeIds=emailpassword,nope', 'Unknown recipe ID: nope'],
    ['/page-a/users/count?includeAllTenants=maybe', "Field name 'includeAllTenants' must be true or false"],
    ['/no-such-tenant/users', 'AppId or tenantId not found'],
    ['/no-such-tenant/users/count', 'AppId or tenantId not found'],
  ])('answers 400 for %s', async (path, message) => {
    const res = await api.get(path);
    expect([res.status, res.text]).toEqual([400, message]);
  });
});

/** Items of the table that mention a user id (its user item and guards hold it). */
async function storedItemsOf(userId: string): Promise<unknown[]> {
  return (await scanTable(api.tableName)).filter((item) => JSON.stringify(item).includes(userId));
}

describe('POST /user/remove', () => {
  const remove = (userId: string) => api.post('/user/remove', { userId });

  async function expectGone(userId: string, recipe: Record<string, string>) {
    expect((await api.get(`/user/id?userId=${userId}`)).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await api.get(`/recipe/user?userId=${userId}`, recipe)).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect(await storedItemsOf(userId)).toEqual([]);
  }

  it('removes an email-password user: unknown everywhere, and the email can be imported and signed up again', async () => {
    const email = uniqueEmail('ep');
    const id = await importUser(email);
    expect(await storedItemsOf(id)).toHaveLength(2);
    expect((await remove(id)).json).toEqual({ status: 'OK', didUserExist: true });
    await expectGone(id, EP);
    expect((await api.get(`/recipe/user?email=${encodeURIComponent(email)}`, EP)).json).toEqual({ status: 'UNKNOWN_EMAIL_ERROR' });
    expect((await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`)).json).toEqual({ status: 'OK', users: [] });
    expect((await api.put('/recipe/user', { userId: id, email: uniqueEmail() }, EP)).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });

    const again = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: BCRYPT });
    expect([again.json.status, again.json.didUserAlreadyExist]).toEqual(['OK', false]);
    expect(again.json.user.id).not.toBe(id);
    expect((await remove(again.json.user.id)).json.didUserExist).toBe(true);
    const signUp = await api.post('/recipe/signup', { email, password: 'a fresh password 123' });
    expect(signUp.json.status).toBe('OK');
  });

  it('removes a passwordless user: its email and phone can be used by new users again', async () => {
    const email = uniqueEmail('pl');
    const phone = uniquePhone();
    const { user } = await passwordlessSignIn(api, { email });
    expect((await api.put('/recipe/user', { userId: user.id, phoneNumber: phone }, PL)).json.status).toBe('OK');
    expect((await remove(user.id)).json).toEqual({ status: 'OK', didUserExist: true });
    await expectGone(user.id, PL);
    expect((await api.get(`/recipe/user?email=${encodeURIComponent(email)}`, PL)).json).toEqual({ status: 'UNKNOWN_EMAIL_ERROR' });
    expect((await api.get(`/recipe/user?phoneNumber=${encodeURIComponent(phone)}`, PL)).json).toEqual({ status: 'UNKNOWN_PHONE_NUMBER_ERROR' });
    const accountInfo = await api.get(
      `/users/by-accountinfo?email=${encodeURIComponent(email)}&phoneNumber=${encodeURIComponent(phone)}&doUnionOfAccountInfo=true`,
    );
    expect(accountInfo.json.users).toEqual([]);

    const byEmail = await passwordlessSignIn(api, { email });
    expect(byEmail.createdNewUser).toBe(true);
    expect(byEmail.user.id).not.toBe(user.id);
    const byPhone = await passwordlessSignIn(api, { phoneNumber: phone });
    expect(byPhone.createdNewUser).toBe(true);
    expect(new Set([user.id, byEmail.user.id, byPhone.user.id]).size).toBe(3);
  });

  it('frees a phone number for another user to take with PUT /recipe/user', async () => {
    const phone = uniquePhone();
    const holder = (await passwordlessSignIn(api, { phoneNumber: phone })).user;
    const other = (await passwordlessSignIn(api, { email: uniqueEmail() })).user;
    expect((await api.put('/recipe/user', { userId: other.id, phoneNumber: phone }, PL)).json.status).toBe('PHONE_NUMBER_ALREADY_EXISTS_ERROR');
    await remove(holder.id);
    expect((await api.put('/recipe/user', { userId: other.id, phoneNumber: phone }, PL)).json.status).toBe('OK');
  });

  it('removes a third-party user: the same identity signs up a new user', async () => {
    const { body, user } = await thirdPartyUser();
    expect((await remove(user.id)).json).toEqual({ status: 'OK', didUserExist: true });
    await expectGone(user.id, TP);
    const q = `thirdPartyId=google&thirdPartyUserId=${body.thirdPartyUserId}`;
    expect((await api.get(`/recipe/user?${q}`, TP)).json).toEqual({ status: 'UNKNOWN_THIRD_PARTY_USER_ERROR' });
    expect((await api.get(`/users/by-accountinfo?${q}`)).json.users).toEqual([]);
    const again = await api.post('/recipe/signinup', body);
    expect(again.json.createdNewUser).toBe(true);
    expect(again.json.user.id).not.toBe(user.id);
  });

  it('removes users of any tenant through the app-wide path, and they leave the list and the count', async () => {
    const ids = await pool(
      Array.from({ length: 5 }, () => uniqueEmail('rm')),
      5,
      (email) => importUser(email, 'rm-t'),
    );
    const { user: tpUser } = await thirdPartyUser('rm-t');
    expect(await countOf('/rm-t/users/count')).toBe(6);
    expect((await api.post('/rm-t/user/remove', { userId: ids[0] })).status).toBe(403);
    for (const id of [ids[0], tpUser.id]) expect((await remove(id)).json.didUserExist).toBe(true);
    expect(await countOf('/rm-t/users/count')).toBe(4);
    const listed = (await listAll('rm-t', 'limit=2')).users.map((u) => u.id);
    expect(listed.sort()).toEqual(ids.slice(1).sort());
  });

  it('keeps a pagination token valid when its last user is removed', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await importUser(uniqueEmail('tok'), 'page-c'));
    const first = (await api.get('/page-c/users?limit=3')).json;
    await remove(first.users[2].id);
    const second = (await api.get(`/page-c/users?limit=3&paginationToken=${first.nextPaginationToken}`)).json;
    const seen = [...first.users, ...second.users].map((u: { id: string }) => u.id);
    expect(seen.sort()).toEqual([...ids].sort());
    expect('nextPaginationToken' in second).toBe(false);
  });

  it('answers didUserExist false for an unknown or already removed user', async () => {
    const id = await importUser(uniqueEmail());
    expect((await remove(id)).json).toEqual({ status: 'OK', didUserExist: true });
    expect((await remove(id)).json).toEqual({ status: 'OK', didUserExist: false });
    expect((await remove('00000000-0000-4000-8000-000000000000')).json).toEqual({ status: 'OK', didUserExist: false });
  });

  it('lets exactly one of concurrent removals of one user report that it existed', async () => {
    const id = await importUser(uniqueEmail());
    const results = await Promise.all(Array.from({ length: 6 }, () => remove(id)));
    expect(results.map((r) => r.json.didUserExist).filter(Boolean)).toHaveLength(1);
    expect(await storedItemsOf(id)).toEqual([]);
  });

  it("accepts the SDK's removeAllLinkedAccounts flag", async () => {
    const id = await importUser(uniqueEmail());
    expect((await api.post('/user/remove', { userId: id, removeAllLinkedAccounts: true })).json).toEqual({ status: 'OK', didUserExist: true });
  });

  it.each([
    ['no userId', {}, "Field name 'userId' is invalid in JSON input"],
    ['a numeric userId', { userId: 42 }, "Field name 'userId' is invalid in JSON input"],
    ['a userId over 128 characters', { userId: 'x'.repeat(129) }, "Field name 'userId' is too long: the maximum is 128 characters"],
    ['a removeAllLinkedAccounts string', { userId: 'x', removeAllLinkedAccounts: 'yes' }, "Field name 'removeAllLinkedAccounts' is invalid in JSON input"],
  ])('refuses %s with a 400', async (_label, body, message) => {
    const res = await api.post('/user/remove', body);
    expect([res.status, res.text]).toEqual([400, message]);
  });
});
