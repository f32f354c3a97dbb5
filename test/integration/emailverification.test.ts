import { startApi, tableProblems, type TestApi } from '../support/api';
import { passwordlessSignIn, tenantPath, uniqueEmail } from '../support/flows';
import { linkingClient } from '../support/linking';
import { dumpTable } from '../support/table';

/**
 * Email verification (SPEC §13): tokens single-use, per tenant, with a lifetime, stored only as
 * hashes; the verified state is the login method's, so every path that proves an email lands in
 * the one place `loginMethods[].verified` and `GET /recipe/user/email/verify` read.
 */
const LIFETIME_MS = 3000;
let api: TestApi;
let al: ReturnType<typeof linkingClient>;
const T1 = 'ev-one';
beforeAll(async () => {
  api = await startApi({ EMAIL_VERIFICATION_TOKEN_LIFETIME: String(LIFETIME_MS) });
  al = linkingClient(api);
  await api.put('/recipe/multitenancy/tenant/v2', { tenantId: T1 });
});
afterAll(() => api.stop());

const createToken = (userId: string, email: string, tenantId?: string) => api.post(tenantPath(tenantId, '/recipe/user/email/verify/token'), { userId, email });
const verify = (token: string, tenantId?: string) => api.post(tenantPath(tenantId, '/recipe/user/email/verify'), { method: 'token', token });
const isVerified = async (userId: string, email: string) =>
  (await api.get(`/recipe/user/email/verify?userId=${encodeURIComponent(userId)}&email=${encodeURIComponent(email)}`)).json.isVerified as boolean;
const verifiedFlag = async (userId: string) =>
  (await al.user(userId)).loginMethods.find((lm: { recipeUserId: string }) => lm.recipeUserId === userId).verified as boolean;
const tokenOf = async (userId: string, email: string, tenantId?: string) => {
  const res = await createToken(userId, email, tenantId);
  if (res.json?.status !== 'OK') throw new Error(`create token failed: ${res.status} ${res.text}`);
  return res.json.token as string;
};

describe('email verification', () => {
  it('verifies an email with a token: the login method is verified, everywhere it is read', async () => {
    const email = uniqueEmail('ev');
    const id = await al.emailPassword(email);
    expect([await isVerified(id, email), await verifiedFlag(id)]).toEqual([false, false]);
    const created = await createToken(id, ` ${email.toUpperCase()} `);
    expect(created.json).toEqual({ status: 'OK', token: expect.stringMatching(/^[A-Za-z0-9_-]{128}$/) });
    expect((await verify(created.json.token)).json).toEqual({ status: 'OK', userId: id, email });
    expect([await isVerified(id, email), await verifiedFlag(id)]).toEqual([true, true]);
    expect((await createToken(id, email)).json).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
    // Only the token's hash is stored.
    expect(await dumpTable(api.tableName)).not.toContain(created.json.token);
  });

  it('answers EMAIL_VERIFICATION_INVALID_TOKEN_ERROR for a token used twice, an unknown one, and one of another tenant', async () => {
    const email = uniqueEmail('ev-twice');
    const id = await al.emailPassword(email);
    const token = await tokenOf(id, email);
    const invalid = { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' };
    expect((await verify(token, T1)).json).toEqual(invalid);
    expect((await verify(token)).json.status).toBe('OK');
    expect((await verify(token)).json).toEqual(invalid);
    expect((await verify('a'.repeat(128))).json).toEqual(invalid);
    // Made in one tenant, it works only there.
    const inT1 = await al.emailPassword(uniqueEmail('ev-t1'), T1);
    const t1Email = (await al.user(inT1)).emails[0];
    const t1Token = await tokenOf(inT1, t1Email, T1);
    expect((await verify(t1Token)).json).toEqual(invalid);
    expect((await verify(t1Token, T1)).json).toEqual({ status: 'OK', userId: inT1, email: t1Email });
  });

  it('answers EMAIL_VERIFICATION_INVALID_TOKEN_ERROR for an expired token', async () => {
    const email = uniqueEmail('ev-expired');
    const id = await al.emailPassword(email);
    const token = await tokenOf(id, email);
    await new Promise((r) => setTimeout(r, LIFETIME_MS + 200));
    expect((await verify(token)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await isVerified(id, email)).toBe(false);
  });

  it('verifies the email the token was made for, not another one of the login method', async () => {
    const email = uniqueEmail('ev-own');
    const other = uniqueEmail('ev-other');
    const id = await al.emailPassword(email);
    expect((await verify(await tokenOf(id, other))).json).toEqual({ status: 'OK', userId: id, email: other });
    expect([await isVerified(id, other), await isVerified(id, email), await verifiedFlag(id)]).toEqual([true, false, false]);
    // Changing the login method's email to the proven one makes it verified; back, unverified.
    await api.put('/recipe/user', { recipeUserId: id, email: other });
    expect(await verifiedFlag(id)).toBe(true);
    await api.put('/recipe/user', { recipeUserId: id, email });
    expect(await verifiedFlag(id)).toBe(false);
  });

  it('revokes every other token of the login method and email when one is used, and all of them on request', async () => {
    const email = uniqueEmail('ev-revoke');
    const id = await al.emailPassword(email);
    const [a, b, c] = [await tokenOf(id, email), await tokenOf(id, email), await tokenOf(id, email)];
    expect((await verify(b)).json.status).toBe('OK');
    for (const t of [a, c]) expect((await verify(t)).json.status).toBe('EMAIL_VERIFICATION_INVALID_TOKEN_ERROR');

    const second = await al.emailPassword(uniqueEmail('ev-revoke2'));
    const secondEmail = (await al.user(second)).emails[0];
    const [d, e] = [await tokenOf(second, secondEmail), await tokenOf(second, secondEmail)];
    expect((await api.post('/recipe/user/email/verify/token/remove', { userId: second, email: secondEmail })).json).toEqual({ status: 'OK' });
    for (const t of [d, e]) expect((await verify(t)).json.status).toBe('EMAIL_VERIFICATION_INVALID_TOKEN_ERROR');
  });

  it('lets exactly one of two concurrent uses of a token succeed', async () => {
    for (let round = 0; round < 5; round++) {
      const email = uniqueEmail('ev-race');
      const id = await al.emailPassword(email);
      const token = await tokenOf(id, email);
      const answers = (await Promise.all([verify(token), verify(token)])).map((r) => r.json.status);
      expect(answers.sort()).toEqual(['EMAIL_VERIFICATION_INVALID_TOKEN_ERROR', 'OK']);
    }
  });

  it('unverifies an email, after which a token can be made again', async () => {
    const email = uniqueEmail('ev-unverify');
    const id = await al.thirdParty(email); // the provider said it is verified
    expect(await isVerified(id, email)).toBe(true);
    expect((await api.post('/recipe/user/email/verify/remove', { userId: id, email })).json).toEqual({ status: 'OK' });
    expect([await isVerified(id, email), await verifiedFlag(id)]).toEqual([false, false]);
    expect((await api.post('/recipe/user/email/verify/remove', { userId: id, email })).json).toEqual({ status: 'OK' });
    expect((await createToken(id, email)).json.status).toBe('OK');
  });

  it("keeps one source of truth: a consumed code and a provider's isVerified verify, an import does not", async () => {
    const plEmail = uniqueEmail('ev-pl');
    const pl = (await passwordlessSignIn(api, { email: plEmail })).recipeUserId as string;
    expect([await isVerified(pl, plEmail), (await createToken(pl, plEmail)).json.status]).toEqual([true, 'EMAIL_ALREADY_VERIFIED_ERROR']);
    const tpEmail = uniqueEmail('ev-tp');
    const identity = { thirdPartyId: 'google', thirdPartyUserId: `ev-${Date.now()}` };
    const tp = await api.post('/recipe/signinup', { ...identity, email: { id: tpEmail, isVerified: false } });
    expect(await isVerified(tp.json.user.id, tpEmail)).toBe(false);
    await api.post('/recipe/signinup', { ...identity, email: { id: tpEmail, isVerified: true } });
    expect(await isVerified(tp.json.user.id, tpEmail)).toBe(true);
    // `isVerified: false` never takes it back.
    await api.post('/recipe/signinup', { ...identity, email: { id: tpEmail, isVerified: false } });
    expect(await isVerified(tp.json.user.id, tpEmail)).toBe(true);
  });

  it('names the login method by its external id too, and answers the id the token was made with', async () => {
    const email = uniqueEmail('ev-ext');
    const id = await al.emailPassword(email);
    const externalUserId = `auth0|ev-${Date.now()}`;
    await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId });
    expect((await verify(await tokenOf(externalUserId, email))).json).toEqual({ status: 'OK', userId: externalUserId, email });
    expect([await isVerified(externalUserId, email), await isVerified(id, email)]).toEqual([true, true]);
  });

  it('makes a token for the internal id of a mapped login method; the answer names the id the token was made with', async () => {
    const email = uniqueEmail('ev-int');
    const id = await al.emailPassword(email);
    const externalUserId = `auth0|ev-int-${Date.now()}`;
    await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId });
    // As the core: the token's userId comes back verbatim. Unlike the core (which keeps the state
    // under the id given, where reads by the external id never find it), the state is the login
    // method's (SPEC §13), so both ids read it.
    expect((await verify(await tokenOf(id, email))).json).toEqual({ status: 'OK', userId: id, email });
    expect([await isVerified(externalUserId, email), await isVerified(id, email), (await al.user(externalUserId)).loginMethods[0].verified]).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('unverifies and revokes tokens by the external id', async () => {
    const email = uniqueEmail('ev-ext-rm');
    const id = await al.emailPassword(email);
    const externalUserId = `auth0|ev-rm-${Date.now()}`;
    await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId });
    const [a, b] = [await tokenOf(externalUserId, email), await tokenOf(id, email)];
    expect((await api.post('/recipe/user/email/verify/token/remove', { userId: externalUserId, email })).json).toEqual({ status: 'OK' });
    // Tokens belong to the login method, whichever id made them.
    for (const t of [a, b]) expect((await verify(t)).json).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect((await verify(await tokenOf(externalUserId, email))).json.status).toBe('OK');
    expect(await isVerified(externalUserId, email)).toBe(true);
    expect((await api.post('/recipe/user/email/verify/remove', { userId: externalUserId, email })).json).toEqual({ status: 'OK' });
    expect([await isVerified(externalUserId, email), await isVerified(id, email), await verifiedFlag(externalUserId)]).toEqual([false, false, false]);
  });

  it('answers for ids that name no login method: no token (400), not verified, nothing to remove', async () => {
    const unknown = 'no-such-user';
    const res = await createToken(unknown, 'a@b.c');
    expect([res.status, res.text]).toEqual([400, 'Unknown user ID provided']);
    expect(await isVerified(unknown, 'a@b.c')).toBe(false);
    expect((await api.post('/recipe/user/email/verify/remove', { userId: unknown, email: 'a@b.c' })).json).toEqual({ status: 'OK' });
    expect((await api.post('/recipe/user/email/verify/token/remove', { userId: unknown, email: 'a@b.c' })).json).toEqual({ status: 'OK' });
  });

  it.each([
    ['/recipe/user/email/verify', { method: 'link', token: 'x' }, 'Unsupported method for email verification'],
    ['/recipe/user/email/verify', { method: 'token' }, "Field name 'token' is invalid in JSON input"],
    ['/recipe/user/email/verify', { token: 'x' }, "Field name 'method' is invalid in JSON input"],
    ['/recipe/user/email/verify/token', { email: 'a@b.c' }, "Field name 'userId' is invalid in JSON input"],
    ['/recipe/user/email/verify/token', { userId: 'x', email: 'nope' }, "Field name 'email' is not an email address: it has no '@'"],
    ['/recipe/user/email/verify/remove', { userId: 'x' }, "Field name 'email' is invalid in JSON input"],
    ['/recipe/user/email/verify/token/remove', { userId: 'x', email: 3 }, "Field name 'email' is invalid in JSON input"],
    ['/recipe/user/email/verify/token', { userId: 'x', email: 5 }, "Field name 'email' is invalid in JSON input"],
    ['/recipe/user/email/verify/token', { userId: 'x', email: 'a b@c.d' }, "Field name 'email' is not an email address: it contains whitespace"],
    ['/recipe/user/email/verify/token', { userId: 'u'.repeat(129), email: 'a@b.c' }, "Field name 'userId' is too long: the maximum is 128 characters"],
    ['/recipe/user/email/verify/token', { userId: 'x', email: `a@${'b'.repeat(255)}` }, "Field name 'email' is too long: the maximum is 256 characters"],
    ['/recipe/user/email/verify', { method: 'token', token: 't'.repeat(1025) }, "Field name 'token' is too long: the maximum is 1024 characters"],
    ['/recipe/user/email/verify/token/remove', { userId: 5, email: 'a@b.c' }, "Field name 'userId' is invalid in JSON input"],
    ['/recipe/user/email/verify/token/remove', { userId: 'x', email: 'nope' }, "Field name 'email' is not an email address: it has no '@'"],
    ['/recipe/user/email/verify/remove', { userId: 5, email: 'a@b.c' }, "Field name 'userId' is invalid in JSON input"],
    ['/recipe/user/email/verify/remove', { userId: 'x', email: 'nope' }, "Field name 'email' is not an email address: it has no '@'"],
  ])('%s answers 400 for %j', async (path, body, text) => {
    const res = await api.post(path, body);
    expect([res.status, res.text]).toEqual([400, text]);
  });

  it('answers GET and unverify only app-wide (403 under a tenant), and 400 naming a missing query parameter', async () => {
    for (const res of [
      await api.get(`/${T1}/recipe/user/email/verify?userId=x&email=a@b.c`),
      await api.post(`/${T1}/recipe/user/email/verify/remove`, { userId: 'x', email: 'a@b.c' }),
    ]) {
      expect([res.status, res.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    }
    const missing = await api.get('/recipe/user/email/verify?userId=x');
    expect([missing.status, missing.text]).toEqual([400, "Field name 'email' is missing in GET request"]);
    const noUser = await api.get('/recipe/user/email/verify?email=a@b.c');
    expect([noUser.status, noUser.text]).toEqual([400, "Field name 'userId' is missing in GET request"]);
    expect(await tableProblems(api.tableName)).toEqual([]);
  });
});
