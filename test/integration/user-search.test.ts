import { MAX_SEARCH_RESULTS } from '../../lib/recipes/users/search-users';
import { startApi, type TestApi } from '../support/api';
import { startCountingProxy, type CountingProxy } from '../support/dynamo-proxy';
import { tenantPath } from '../support/flows';
import { BCRYPT, linkingClient } from '../support/linking';

/**
 * The dashboard's user search (SPEC §18b): `GET /user/search/tags`, and `GET [/<t>]/users` with
 * `email`, `phone`, `provider`, as supertokens-node's dashboard sends them (`limit=10`,
 * `timeJoinedOrder=DESC` beside the tags).
 */
let proxy: CountingProxy;
let api: TestApi;
let make: ReturnType<typeof linkingClient>;
const T = 'srch-a';
const OTHER = 'srch-b';
const CAP = 'srch-cap';

/** The ids of the users one search answers, in its order; fails unless it is a 200 `OK` without a next page. */
async function search(params: string, tenantId: string | undefined = T): Promise<string[]> {
  const res = await api.get(tenantPath(tenantId, `/users?${params}`));
  expect([res.status, res.json?.status]).toEqual([200, 'OK']);
  expect(res.json).not.toHaveProperty('nextPaginationToken');
  return res.json.users.map((u: { id: string }) => u.id);
}

/** The users of the tenant `T`, named, created in this order (join order is creation order). */
const u: Record<string, string> = {};

beforeAll(async () => {
  proxy = await startCountingProxy(process.env.TEST_DYNAMODB_ENDPOINT!);
  api = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint });
  make = linkingClient(api);
  for (const tenantId of [T, OTHER, CAP]) expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
  u.alice = await make.emailPassword('alice@acme.io', T);
  u.bob = await make.emailPassword('bob@example.com', T);
  u.carol = await make.thirdParty('carol@acme.io', T, { thirdPartyId: 'google', thirdPartyUserId: 'g-carol' });
  u.okta = await make.thirdParty('olga@corp.example', T, { thirdPartyId: 'Okta-Corp', thirdPartyUserId: 'o-olga' });
  u.phone = await make.passwordless({ phoneNumber: '+14155550100' }, T);
  u.dave = await make.passwordless({ email: 'dave@other.org' }, T);
  // One primary user of three login methods: an email-password one, a GitHub one, a phone.
  const erin = await make.emailPassword('erin@link.dev', T);
  const erinGithub = await make.thirdParty('erin.gh@link.dev', T, { thirdPartyId: 'github', thirdPartyUserId: 'gh-erin' });
  const erinPhone = await make.passwordless({ phoneNumber: '+16505550199' }, T);
  u.erin = (await make.group(erin, erinGithub, erinPhone)).id;
  expect(u.erin).toBe(erin);
  // The other tenant: the same email as alice's, a phone of the same prefix.
  u.otherAlice = await make.emailPassword('alice@acme.io', OTHER);
  u.otherPhone = await make.passwordless({ phoneNumber: '+14155550111' }, OTHER);
}, 120_000);

afterAll(async () => {
  try {
    await api.stop();
  } finally {
    await proxy.close();
  }
});

describe('GET /user/search/tags', () => {
  it('answers the three tags, app-wide, with the API key', async () => {
    const res = await api.get('/user/search/tags');
    expect([res.status, res.json]).toEqual([200, { status: 'OK', tags: ['email', 'phone', 'provider'] }]);
    expect((await api.get('/public/user/search/tags')).json.tags).toEqual(['email', 'phone', 'provider']);
    expect((await api.get(`/${T}/user/search/tags`)).status).toBe(403);
    expect((await api.request('GET', '/user/search/tags', { apiKey: null })).status).toBe(401);
  });
});

describe('GET /users with search tags', () => {
  it('email: the email or its domain starts with the value, case-insensitively', async () => {
    expect(await search('email=alice')).toEqual([u.alice]);
    expect(await search('email=ALICE%40Acme')).toEqual([u.alice]);
    // The domain arm (the core's): every user of a domain, oldest first.
    expect(await search('email=acme')).toEqual([u.alice, u.carol]);
    expect(await search('email=link.dev')).toEqual([u.erin]);
    // A prefix, not a substring: `lice` is inside `alice`, `.io` inside the domain.
    expect(await search('email=lice')).toEqual([]);
    expect(await search('email=.io')).toEqual([]);
    // Every recipe's emails: email-password, third-party, passwordless.
    expect(await search('email=dave')).toEqual([u.dave]);
    expect(await search('email=o')).toEqual([u.okta, u.dave]);
  });

  it('phone: the number starts with the value (E.164, with its +)', async () => {
    expect(await search('phone=%2B1415')).toEqual([u.phone]);
    expect(await search('phone=%2B1')).toEqual([u.phone, u.erin]);
    expect(await search('phone=1415')).toEqual([]);
    expect(await search('phone=%2B14155550100')).toEqual([u.phone]);
    expect(await search('phone=%2B141555501001')).toEqual([]);
  });

  it("provider: the thirdPartyId starts with the value, whatever the id's or the value's case", async () => {
    expect(await search('provider=google')).toEqual([u.carol]);
    expect(await search('provider=okta')).toEqual([u.okta]);
    expect(await search('provider=OKTA-c')).toEqual([u.okta]);
    expect(await search('provider=git')).toEqual([u.erin]);
    expect(await search('provider=corp')).toEqual([]);
  });

  it('several values of a tag: any of them (trimmed, lower-cased, empty items and repeats ignored)', async () => {
    expect(await search('email=alice;bob')).toEqual([u.alice, u.bob]);
    expect(await search(`email=${encodeURIComponent(' BOB ; ;alice;alice;')}`)).toEqual([u.alice, u.bob]);
    expect(await search('provider=google;github')).toEqual([u.carol, u.erin]);
    expect(await search('phone=%2B1415;%2B1650')).toEqual([u.phone, u.erin]);
  });

  it('several tags: every one of them, each by some login method of the user in the tenant', async () => {
    expect(await search('email=carol&provider=google')).toEqual([u.carol]);
    expect(await search('email=alice&provider=google')).toEqual([]);
    expect(await search('email=acme&provider=goo')).toEqual([u.carol]);
    // Two different users each match one tag: neither matches both.
    expect(await search('email=dave&phone=%2B1415')).toEqual([]);
    // The primary user matches with a different login method for each tag.
    expect(await search('email=erin&provider=github&phone=%2B1650')).toEqual([u.erin]);
    expect(await search('email=erin&provider=google')).toEqual([]);
    expect(await search('email=bob;erin&phone=%2B1')).toEqual([u.erin]);
  });

  it('lists a primary user once, with every login method, whichever of them match', async () => {
    const res = await api.get(`/${T}/users?email=erin&limit=10&timeJoinedOrder=DESC`);
    expect(res.json.users).toHaveLength(1);
    expect(res.json.users[0]).toMatchObject({ id: u.erin, isPrimaryUser: true, emails: ['erin@link.dev', 'erin.gh@link.dev'] });
    expect(res.json.users[0].loginMethods).toHaveLength(3);
    // `erin` and `erin.gh` are two login methods of one user.
    expect(await search('email=erin;erin.gh')).toEqual([u.erin]);
  });

  it('takes every value literally: no wildcard, any text', async () => {
    for (const value of ['%', '_', '*', '.*', "'", '"', '\\', 'é', '😀', '@', 'a@']) {
      const q = encodeURIComponent(value);
      expect([value, await search(`email=${q}`)]).toEqual([value, []]);
      expect([value, await search(`phone=${q}&provider=${q}`)]).toEqual([value, []]);
    }
    // `@` starts no email, and the domain after it starts with no `@`.
    expect(await search('email=bob%40')).toEqual([u.bob]);
  });

  it('keeps timeJoinedOrder: newest first with DESC', async () => {
    expect(await search('email=acme;bob;dave&timeJoinedOrder=DESC')).toEqual([u.dave, u.carol, u.bob, u.alice]);
    expect(await search('email=acme;bob;dave&timeJoinedOrder=ASC')).toEqual([u.alice, u.bob, u.carol, u.dave]);
  });

  it('answers the users of its tenant only', async () => {
    expect(await search('email=alice')).toEqual([u.alice]);
    expect(await search('email=alice', OTHER)).toEqual([u.otherAlice]);
    expect(await search('phone=%2B1415', OTHER)).toEqual([u.otherPhone]);
    expect(await search('phone=%2B1415')).toEqual([u.phone]);
    expect(await search('email=alice', 'public')).toEqual([]);
    expect(await search('provider=g', OTHER)).toEqual([]);
  });

  it("takes what the SDK's dashboard sends beside the tags: limit does not cut a search, a token does not move it", async () => {
    expect(await search('limit=1&timeJoinedOrder=DESC&email=acme')).toEqual([u.carol, u.alice]);
    expect(await search('limit=100000&email=acme')).toEqual([u.alice, u.carol]);
    const page = (await api.get(`/${T}/users?limit=1`)).json;
    expect(await search(`limit=10&email=acme&paginationToken=${page.nextPaginationToken}`)).toEqual([u.alice, u.carol]);
    // As in the core, includeRecipeIds is checked and not applied to a search.
    expect(await search('email=acme&includeRecipeIds=emailpassword')).toEqual([u.alice, u.carol]);
  });

  it('is no search when every item of the tags is empty: the plain, paginated list', async () => {
    const res = await api.get(`/${T}/users?limit=2&email=${encodeURIComponent(';; ;')}&phone=&provider=%20`);
    expect(res.json.users.map((x: { id: string }) => x.id)).toEqual([u.alice, u.bob]);
    expect(typeof res.json.nextPaginationToken).toBe('string');
    // The 500 bound is the plain list's.
    expect((await api.get(`/${T}/users?limit=501&email=;`)).status).toBe(400);
  });

  it.each([
    [`/${T}/users?email=a&limit=0`, 'limit must a positive integer with min value 1'],
    [`/${T}/users?email=a&limit=ten`, "Field name 'limit' must be an int in the GET request"],
    [`/${T}/users?email=a&limit=-5`, 'limit must a positive integer with min value 1'],
    [`/${T}/users?limit=501`, 'max limit allowed is 500'],
    [`/${T}/users?phone=%2B1&timeJoinedOrder=SIDEWAYS`, "Field name 'timeJoinedOrder' must be ASC or DESC"],
    [`/${T}/users?provider=g&includeRecipeIds=webauthn,totp`, 'Unknown recipe ID: totp'],
    [`/${T}/users?email=a&paginationToken=not-a-token`, 'invalid pagination token'],
    [`/${T}/users?email=${'a'.repeat(257)}`, "Field name 'email' is too long: the maximum is 256 characters"],
    [`/${T}/users?provider=${'g;'.repeat(513)}`, "Field name 'provider' is too long: the maximum is 1024 characters"],
    ['/no-such-tenant/users?email=a', 'AppId or tenantId not found'],
  ])('answers 400 for %s', async (path, message) => {
    const res = await api.get(path);
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([400, 'text/plain; charset=utf-8', message]);
  });

  it("reads the 16 shards of the list once for a small tenant, and a primary user's partition beside them (counted on the wire)", async () => {
    const calls = async (path: string) => {
      proxy.reset();
      expect((await api.get(path)).status).toBe(200);
      return Object.fromEntries([...proxy.counts].sort());
    };
    // The tenant's existence (a GetItem beside the request), one Query per shard: a login method
    // on its own is matched from its list entry.
    expect(await calls(`/${OTHER}/users?email=alice`)).toEqual({ GetItem: 1, Query: 16 });
    expect(await calls(`/${OTHER}/users?phone=%2B1&provider=g`)).toEqual({ GetItem: 1, Query: 16 });
    expect(await calls('/users?email=bob')).toEqual({ Query: 16 });
    // The primary user is read from its partition to be matched: one Query more, whether it matches or not.
    expect(await calls(`/${T}/users?provider=git`)).toEqual({ GetItem: 1, Query: 17 });
    expect(await calls(`/${T}/users?email=nobody`)).toEqual({ GetItem: 1, Query: 17 });
    expect(await calls('/user/search/tags')).toEqual({});
  });
});

describe(`a search answers at most ${MAX_SEARCH_RESULTS} users`, () => {
  const extra = 40;
  let matching: string[] = [];

  beforeAll(async () => {
    // Imported in parallel; 30 users that do not match the search among them.
    const jobs = Array.from({ length: MAX_SEARCH_RESULTS + extra }, (_, i) => `cap-${i}@cap.test`);
    for (let k = 0; k < 30; k++) jobs.splice(k * 36, 0, `nope-${k}@cap.test`);
    const ids: { email: string; id: string }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < jobs.length) {
          const email = jobs[next++];
          const res = await api.post(`/${CAP}/recipe/user/passwordhash/import`, { email, passwordHash: BCRYPT.hash });
          if (res.json?.status !== 'OK') throw new Error(`import failed: ${res.status} ${res.text}`);
          ids.push({ email, id: res.json.user.id });
        }
      }),
    );
    // The join order, as the plain list pages it.
    const listed: string[] = [];
    let token: string | undefined;
    do {
      const page = (await api.get(`/${CAP}/users?limit=500${token ? `&paginationToken=${token}` : ''}`)).json;
      listed.push(...page.users.map((x: { id: string }) => x.id));
      token = page.nextPaginationToken;
    } while (token);
    const wanted = new Set(ids.filter((x) => x.email.startsWith('cap-')).map((x) => x.id));
    matching = listed.filter((id) => wanted.has(id));
    expect(matching.length).toBe(MAX_SEARCH_RESULTS + extra);
  }, 300_000);

  it(`answers the first ${MAX_SEARCH_RESULTS} matching users in either order, without a next page`, async () => {
    expect(MAX_SEARCH_RESULTS).toBe(1000);
    expect(await search('email=cap-&limit=10', CAP)).toEqual(matching.slice(0, MAX_SEARCH_RESULTS));
    expect(await search('email=cap-&limit=10&timeJoinedOrder=DESC', CAP)).toEqual([...matching].reverse().slice(0, MAX_SEARCH_RESULTS));
    // Under the cap, every match: the domain arm finds all, the other prefix none.
    expect(await search('email=cap-99', CAP)).toHaveLength(11);
    expect(await search('email=nope', CAP)).toHaveLength(30);
  });
});
