import { startApi, type TestApi } from '../support/api';
import { tenantPath, uniqueEmail } from '../support/flows';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
  await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'tp-other' });
});
afterAll(() => api.stop());

let counter = 0;
/** A provider user id no other test uses. */
const uniqueTpUserId = (): string => `tp-${Date.now().toString(36)}-${counter++}`;

function signInUp(body: { thirdPartyId: string; thirdPartyUserId: string; email: { id: string; isVerified: boolean } }, tenantId?: string) {
  return api.post(tenantPath(tenantId, '/recipe/signinup'), body);
}
const readUser = async (id: string) => (await api.get(`/user/id?userId=${id}`)).json.user;

describe('POST /recipe/signinup (third party)', () => {
  it('creates a user on a new identity with the user object of SPEC §4', async () => {
    const email = uniqueEmail();
    const thirdPartyUserId = uniqueTpUserId();
    const res = await signInUp({ thirdPartyId: 'google', thirdPartyUserId, email: { id: ` ${email.toUpperCase()} `, isVerified: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const { user } = res.json;
    expect(res.json).toEqual({
      status: 'OK',
      createdNewUser: true,
      recipeUserId: user.id,
      user: {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        isPrimaryUser: false,
        tenantIds: ['public'],
        timeJoined: expect.any(Number),
        emails: [email],
        phoneNumbers: [],
        thirdParty: [{ id: 'google', userId: thirdPartyUserId }],
        webauthn: { credentialIds: [] },
        loginMethods: [
          {
            tenantIds: ['public'],
            recipeUserId: user.id,
            verified: true,
            timeJoined: user.timeJoined,
            recipeId: 'thirdparty',
            email,
            thirdParty: { id: 'google', userId: thirdPartyUserId },
          },
        ],
      },
    });
    expect(await readUser(user.id)).toEqual(user);
  });

  it('signs the existing user in on a known identity (createdNewUser false, same id, nothing changed)', async () => {
    const body = { thirdPartyId: 'github', thirdPartyUserId: uniqueTpUserId(), email: { id: uniqueEmail(), isVerified: false } };
    const first = (await signInUp(body)).json;
    const second = (await signInUp(body)).json;
    expect(second).toEqual({ ...first, createdNewUser: false });
    expect(second.user.loginMethods[0].verified).toBe(false);
  });

  it('updates a changed email on sign-in, and the new email is found by account info', async () => {
    const thirdPartyUserId = uniqueTpUserId();
    const oldEmail = uniqueEmail('old');
    const newEmail = uniqueEmail('new');
    const first = (await signInUp({ thirdPartyId: 'google', thirdPartyUserId, email: { id: oldEmail, isVerified: true } })).json;
    const second = (await signInUp({ thirdPartyId: 'google', thirdPartyUserId, email: { id: newEmail, isVerified: true } })).json;
    expect(second.createdNewUser).toBe(false);
    expect(second.user.id).toBe(first.user.id);
    expect(second.user.emails).toEqual([newEmail]);
    expect(second.user.loginMethods[0].email).toBe(newEmail);
    expect((await readUser(first.user.id)).emails).toEqual([newEmail]);
    const byNew = await api.get(`/users/by-accountinfo?email=${encodeURIComponent(newEmail)}`);
    expect(byNew.json.users.map((u: { id: string }) => u.id)).toEqual([first.user.id]);
    const byOld = await api.get(`/users/by-accountinfo?email=${encodeURIComponent(oldEmail)}`);
    expect(byOld.json.users).toEqual([]);
  });

  describe('isVerified', () => {
    it('true marks an unverified email verified', async () => {
      const body = { thirdPartyId: 'google', thirdPartyUserId: uniqueTpUserId(), email: { id: uniqueEmail(), isVerified: false } };
      expect((await signInUp(body)).json.user.loginMethods[0].verified).toBe(false);
      const again = await signInUp({ ...body, email: { ...body.email, isVerified: true } });
      expect(again.json.user.loginMethods[0].verified).toBe(true);
      expect((await readUser(again.json.user.id)).loginMethods[0].verified).toBe(true);
    });

    it('false never un-verifies the same email', async () => {
      const body = { thirdPartyId: 'google', thirdPartyUserId: uniqueTpUserId(), email: { id: uniqueEmail(), isVerified: true } };
      const first = (await signInUp(body)).json;
      const again = await signInUp({ ...body, email: { ...body.email, isVerified: false } });
      expect(again.json.user.loginMethods[0].verified).toBe(true);
      expect((await readUser(first.user.id)).loginMethods[0].verified).toBe(true);
    });

    it('a changed email is verified only if the provider says so', async () => {
      const thirdPartyUserId = uniqueTpUserId();
      await signInUp({ thirdPartyId: 'google', thirdPartyUserId, email: { id: uniqueEmail(), isVerified: true } });
      const changed = await signInUp({ thirdPartyId: 'google', thirdPartyUserId, email: { id: uniqueEmail('changed'), isVerified: false } });
      expect(changed.json.user.loginMethods[0].verified).toBe(false);
      const verified = await signInUp({ thirdPartyId: 'google', thirdPartyUserId, email: { id: uniqueEmail('verified'), isVerified: true } });
      expect(verified.json.user.loginMethods[0].verified).toBe(true);
    });
  });

  it('makes two users of two provider user ids with one email', async () => {
    const email = uniqueEmail('shared');
    const a = (await signInUp({ thirdPartyId: 'google', thirdPartyUserId: uniqueTpUserId(), email: { id: email, isVerified: true } })).json;
    const b = (await signInUp({ thirdPartyId: 'google', thirdPartyUserId: uniqueTpUserId(), email: { id: email, isVerified: true } })).json;
    expect([a.createdNewUser, b.createdNewUser]).toEqual([true, true]);
    expect(a.user.id).not.toBe(b.user.id);
    const holders = await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`);
    expect(holders.json.users.map((u: { id: string }) => u.id).sort()).toEqual([a.user.id, b.user.id].sort());
  });

  it('keeps thirdPartyId and thirdPartyUserId case-sensitive and untrimmed', async () => {
    const id = uniqueTpUserId();
    const email = { id: uniqueEmail(), isVerified: true };
    const variants = [
      { thirdPartyId: 'google', thirdPartyUserId: id },
      { thirdPartyId: 'Google', thirdPartyUserId: id },
      { thirdPartyId: 'google', thirdPartyUserId: id.toUpperCase() },
      { thirdPartyId: 'google', thirdPartyUserId: ` ${id}` },
    ];
    const users = [];
    for (const v of variants) users.push((await signInUp({ ...v, email })).json);
    expect(users.map((u) => u.createdNewUser)).toEqual([true, true, true, true]);
    expect(new Set(users.map((u) => u.user.id)).size).toBe(4);
    expect(users[3].user.thirdParty).toEqual([{ id: 'google', userId: ` ${id}` }]);
  });

  it('makes two users of the same identity in two tenants', async () => {
    const body = { thirdPartyId: 'google', thirdPartyUserId: uniqueTpUserId(), email: { id: uniqueEmail(), isVerified: true } };
    const pub = (await signInUp(body)).json;
    const other = (await signInUp(body, 'tp-other')).json;
    expect([pub.createdNewUser, other.createdNewUser]).toEqual([true, true]);
    expect(other.user.id).not.toBe(pub.user.id);
    expect(other.user.tenantIds).toEqual(['tp-other']);
    const again = (await api.post('/appid-public/tp-other/recipe/signinup', body)).json;
    expect([again.createdNewUser, again.user.id]).toEqual([false, other.user.id]);
    const q = `thirdPartyId=google&thirdPartyUserId=${body.thirdPartyUserId}`;
    expect((await api.get(`/tp-other/recipe/user?${q}`, { rid: 'thirdparty' })).json.user.id).toBe(other.user.id);
    expect((await api.get(`/recipe/user?${q}`, { rid: 'thirdparty' })).json.user.id).toBe(pub.user.id);
  });

  it('makes exactly one user of parallel first sign-ins of one identity', async () => {
    const body = { thirdPartyId: 'google', thirdPartyUserId: uniqueTpUserId(), email: { id: uniqueEmail(), isVerified: true } };
    const results = await Promise.all(Array.from({ length: 8 }, () => signInUp(body)));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(results.map((r) => r.json.user.id)).size).toBe(1);
    expect(results.filter((r) => r.json.createdNewUser)).toHaveLength(1);
    const found = await api.get(`/users/by-accountinfo?thirdPartyId=google&thirdPartyUserId=${body.thirdPartyUserId}`);
    expect(found.json.users).toHaveLength(1);
  });

  it('answers 400 AppId or tenantId not found on a tenant that does not exist', async () => {
    const res = await signInUp({ thirdPartyId: 'google', thirdPartyUserId: 'x', email: { id: 'a@b.c', isVerified: true } }, 'no-such-tenant');
    expect(res.status).toBe(400);
    expect(res.text).toBe('AppId or tenantId not found');
  });

  const ok = { thirdPartyId: 'google', thirdPartyUserId: '123', email: { id: 'a@example.com', isVerified: true } };
  it.each([
    ['thirdPartyId missing', { ...ok, thirdPartyId: undefined }, "Field name 'thirdPartyId' is invalid in JSON input"],
    ['thirdPartyId a number', { ...ok, thirdPartyId: 7 }, "Field name 'thirdPartyId' is invalid in JSON input"],
    ['thirdPartyId empty', { ...ok, thirdPartyId: '' }, "Field name 'thirdPartyId' must not be empty"],
    ['thirdPartyId only spaces', { ...ok, thirdPartyId: '   ' }, "Field name 'thirdPartyId' must not be empty"],
    ['thirdPartyId of 29 characters', { ...ok, thirdPartyId: 'x'.repeat(29) }, "Field name 'thirdPartyId' is too long: the maximum is 28 characters"],
    ['thirdPartyUserId missing', { ...ok, thirdPartyUserId: undefined }, "Field name 'thirdPartyUserId' is invalid in JSON input"],
    ['thirdPartyUserId empty', { ...ok, thirdPartyUserId: '' }, "Field name 'thirdPartyUserId' must not be empty"],
    [
      'thirdPartyUserId of 257 characters',
      { ...ok, thirdPartyUserId: 'x'.repeat(257) },
      "Field name 'thirdPartyUserId' is too long: the maximum is 256 characters",
    ],
    ['email missing', { ...ok, email: undefined }, "Field name 'email' is invalid in JSON input"],
    ['email a string', { ...ok, email: 'a@example.com' }, "Field name 'email' is invalid in JSON input"],
    ['email an array', { ...ok, email: [] }, "Field name 'email' is invalid in JSON input"],
    ['email.id missing', { ...ok, email: { isVerified: true } }, "Field name 'email.id' is invalid in JSON input"],
    ['email.id a number', { ...ok, email: { id: 5, isVerified: true } }, "Field name 'email.id' is invalid in JSON input"],
    ['email.isVerified missing', { ...ok, email: { id: 'a@example.com' } }, "Field name 'email.isVerified' is invalid in JSON input"],
    ['email.isVerified a string', { ...ok, email: { id: 'a@example.com', isVerified: 'true' } }, "Field name 'email.isVerified' is invalid in JSON input"],
    ['email.id without @', { ...ok, email: { id: 'nope', isVerified: true } }, "Field name 'email.id' is not an email address: it has no '@'"],
    [
      'email.id with whitespace inside',
      { ...ok, email: { id: 'a b@example.com', isVerified: true } },
      "Field name 'email.id' is not an email address: it contains whitespace",
    ],
    [
      'email.id over 256 characters',
      { ...ok, email: { id: `${'a'.repeat(250)}@example.com`, isVerified: true } },
      "Field name 'email.id' is too long: the maximum is 256 characters",
    ],
  ])('refuses %s with a 400', async (_label, body, message) => {
    const res = await api.post('/recipe/signinup', body);
    expect([res.status, res.text]).toEqual([400, message]);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
  });

  it('answers 400 Invalid Json Input for a body that is not a JSON object', async () => {
    for (const rawBody of ['', '[]', '{"thirdPartyId":']) {
      const res = await api.request('POST', '/recipe/signinup', { rawBody, headers: { 'content-type': 'application/json' } });
      expect([res.status, res.text]).toEqual([400, 'Invalid Json Input']);
    }
  });
});
