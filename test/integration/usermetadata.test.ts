import { startApi, tableProblems, type TestApi } from '../support/api';
import { linkingClient } from '../support/linking';

/** User metadata (SPEC §14): get, shallow-merge update, remove; bounds; removal with the user. */
let api: TestApi;
let al: ReturnType<typeof linkingClient>;
beforeAll(async () => {
  api = await startApi();
  al = linkingClient(api);
});
afterAll(() => api.stop());

let n = 0;
const someId = () => `meta-user-${Date.now().toString(36)}-${n++}`;
const get = async (userId: string) => (await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(userId)}`)).json;
const update = (userId: string, metadataUpdate: unknown) => api.put('/recipe/user/metadata', { userId, metadataUpdate });

describe('user metadata', () => {
  it('answers {} for an id with none, and no user needs to exist', async () => {
    expect(await get(someId())).toEqual({ status: 'OK', metadata: {} });
  });

  it('merges updates shallowly: a key replaces its value whole, null deletes it; answers the whole metadata', async () => {
    const id = someId();
    const first = await update(id, { name: 'Ada', profile: { city: 'London', lang: 'en' }, roles: ['x'] });
    expect(first.json).toEqual({ status: 'OK', metadata: { name: 'Ada', profile: { city: 'London', lang: 'en' }, roles: ['x'] } });
    const second = await update(id, { profile: { city: 'Paris' }, roles: null, plan: 'pro' });
    expect(second.json).toEqual({ status: 'OK', metadata: { name: 'Ada', profile: { city: 'Paris' }, plan: 'pro' } });
    expect(await get(id)).toEqual(second.json);
    expect((await update(id, {})).json).toEqual(second.json);
  });

  it('keeps any JSON as given: deep nesting, huge and tiny numbers, empty strings, any Unicode', async () => {
    const id = someId();
    let deep: unknown = 'bottom';
    for (let i = 0; i < 60; i++) deep = { d: deep };
    const value = { deep, big: 1e300, small: 5e-324, exact: 12345678901234568000000, empty: '', text: 'Zoë 🦄 日本', flag: false, nothing: [null] };
    expect((await update(id, value)).json.metadata).toEqual(JSON.parse(JSON.stringify(value)));
    expect((await get(id)).metadata).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('keeps concurrent updates of different keys: each one survives', async () => {
    const id = someId();
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    const answers = await Promise.all(keys.map((k) => update(id, { [k]: k })));
    expect(answers.map((a) => a.status)).toEqual(keys.map(() => 200));
    expect((await get(id)).metadata).toEqual(Object.fromEntries(keys.map((k) => [k, k])));
  });

  it('removes metadata (OK also when there is none)', async () => {
    const id = someId();
    await update(id, { a: 1 });
    expect((await api.post('/recipe/user/metadata/remove', { userId: id })).json).toEqual({ status: 'OK' });
    expect(await get(id)).toEqual({ status: 'OK', metadata: {} });
    expect((await api.post('/recipe/user/metadata/remove', { userId: id })).json).toEqual({ status: 'OK' });
  });

  it('refuses metadata beyond 64 KiB of JSON with a 400 that says the bound, and keeps what was stored', async () => {
    const id = someId();
    await update(id, { keep: 'me' });
    const res = await update(id, { big: 'x'.repeat(70_000) });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^Field name 'metadataUpdate' would make the metadata \d+ bytes of JSON: the maximum is 65536$/);
    expect((await get(id)).metadata).toEqual({ keep: 'me' });
    // Two halves that fit alone do not fit together.
    expect((await update(id, { half: 'y'.repeat(40_000) })).status).toBe(200);
    expect((await update(id, { other: 'z'.repeat(40_000) })).status).toBe(400);
  });

  it.each([
    ['no userId', { metadataUpdate: {} }, "Field name 'userId' is invalid in JSON input"],
    ['userId a number', { userId: 5, metadataUpdate: {} }, "Field name 'userId' is invalid in JSON input"],
    ['no metadataUpdate', { userId: 'u' }, "Field name 'metadataUpdate' is invalid in JSON input"],
    ['metadataUpdate an array', { userId: 'u', metadataUpdate: [1] }, "Field name 'metadataUpdate' is invalid in JSON input"],
    ['metadataUpdate a string', { userId: 'u', metadataUpdate: '{}' }, "Field name 'metadataUpdate' is invalid in JSON input"],
    ['metadataUpdate null', { userId: 'u', metadataUpdate: null }, "Field name 'metadataUpdate' is invalid in JSON input"],
    [
      'a lone surrogate in a value',
      { userId: 'u', metadataUpdate: { a: { b: ['ok', 'x\ud800'] } } },
      "Field name 'metadataUpdate' is not valid Unicode: it holds a lone surrogate",
    ],
    [
      'a lone surrogate in a key',
      { userId: 'u', metadataUpdate: { a: { '\udc00': 1 } } },
      "Field name 'metadataUpdate' is not valid Unicode: it holds a lone surrogate",
    ],
    ['a userId over 128 characters', { userId: 'u'.repeat(129), metadataUpdate: {} }, "Field name 'userId' is too long: the maximum is 128 characters"],
  ])('answers 400 for %s', async (_what, body, text) => {
    const res = await api.put('/recipe/user/metadata', body);
    expect([res.status, res.text]).toEqual([400, text]);
  });

  it('answers 400 for metadata nested deeper than 64 levels, also a body of 800,000 brackets', async () => {
    const deep = (levels: number) => '{"userId":"u","metadataUpdate":{"a":' + '['.repeat(levels) + ']'.repeat(levels) + '}}';
    for (const levels of [64, 400_000]) {
      const res = await api.request('PUT', '/recipe/user/metadata', { rawBody: deep(levels), headers: { 'content-type': 'application/json' } });
      expect([res.status, res.text]).toEqual([400, "Field name 'metadataUpdate' nests deeper than 64 levels"]);
    }
    const fits = await api.request('PUT', '/recipe/user/metadata', { rawBody: deep(62), headers: { 'content-type': 'application/json' } });
    expect(fits.status).toBe(200);
  });

  it('answers 400 naming a missing, too long or invalid userId, and 403 under a tenant (app-wide)', async () => {
    const missing = await api.get('/recipe/user/metadata');
    expect([missing.status, missing.text]).toEqual([400, "Field name 'userId' is missing in GET request"]);
    const long = await api.get(`/recipe/user/metadata?userId=${'u'.repeat(129)}`);
    expect([long.status, long.text]).toEqual([400, "Field name 'userId' is too long: the maximum is 128 characters"]);
    const invalid = await api.post('/recipe/user/metadata/remove', { userId: 5 });
    expect([invalid.status, invalid.text]).toEqual([400, "Field name 'userId' is invalid in JSON input"]);
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'meta-t' });
    for (const res of [
      await api.get('/meta-t/recipe/user/metadata?userId=x'),
      await api.put('/meta-t/recipe/user/metadata', { userId: 'x', metadataUpdate: {} }),
      await api.post('/meta-t/recipe/user/metadata/remove', { userId: 'x' }),
    ]) {
      expect([res.status, res.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    }
  });

  it("goes with the user: removing it removes its metadata; removing one linked login method only that one's", async () => {
    const lone = await al.emailPassword();
    await update(lone, { a: 1 });
    await al.remove(lone);
    expect((await get(lone)).metadata).toEqual({});

    const [primary, member, other] = [await al.thirdParty(), await al.emailPassword(), await al.passwordless({ phoneNumber: '+14155550199' })];
    await al.group(primary, member, other);
    for (const id of [primary, member, other]) await update(id, { owner: id });
    await al.remove(member, false);
    expect([(await get(primary)).metadata, (await get(member)).metadata, (await get(other)).metadata]).toEqual([{ owner: primary }, {}, { owner: other }]);
    // The primary user's own login method goes, the user (and its id's metadata) stays.
    await al.unlink(primary);
    expect((await get(primary)).metadata).toEqual({ owner: primary });
    await al.remove(other);
    expect([(await get(primary)).metadata, (await get(other)).metadata]).toEqual([{}, {}]);
    expect(await tableProblems(api.tableName)).toEqual([]);
  });
});
