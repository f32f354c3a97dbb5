import { startApi, type ApiResponse, type TestApi } from '../support/api';
import { tenantPath, uniqueEmail, uniquePhone } from '../support/flows';
import { BCRYPT, linkingClient } from '../support/linking';

/**
 * SPEC §22: a login method associated with a tenant, and taken out of it, as the core's
 * `AssociateUserToTenantAPI` and `DisassociateUserFromTenant` answer: one test per status and text.
 * The suite's table is checked for consistency when the server stops (every item a login method in
 * several tenants, or in none, implies).
 */
let api: TestApi;
let l: ReturnType<typeof linkingClient>;
beforeAll(async () => {
  api = await startApi();
  l = linkingClient(api);
});
afterAll(() => api.stop());

let tenants = 0;
async function newTenant(label: string): Promise<string> {
  const tenantId = `${label}-${Date.now().toString(36)}-${tenants++}`;
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
  return tenantId;
}
const associate = (tenantId: string, recipeUserId: unknown) => api.post(tenantPath(tenantId, '/recipe/multitenancy/tenant/user'), { recipeUserId });
const disassociate = (tenantId: string, recipeUserId: unknown) => api.post(tenantPath(tenantId, '/recipe/multitenancy/tenant/user/remove'), { recipeUserId });
function refused(res: ApiResponse, text: string): void {
  expect([res.status, res.text]).toEqual([400, text]);
}
const tp = (thirdPartyUserId: string) => ({ thirdPartyId: 'okta-acme', thirdPartyUserId });

describe('POST …/tenant/user', () => {
  it('adds an email-password login method to a tenant: it signs in there, lists it, and a second call answers wasAlreadyAssociated', async () => {
    const tenantId = await newTenant('tu-ep');
    const email = uniqueEmail('tu-ep');
    const id = await l.emailPassword(email);
    expect((await l.signIn(email, BCRYPT.password, tenantId)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await associate(tenantId, ` ${id} `)).json).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    expect((await associate(tenantId, id)).json).toEqual({ status: 'OK', wasAlreadyAssociated: true });
    const signIn = (await l.signIn(email, BCRYPT.password, tenantId)).json;
    expect([signIn.status, signIn.user.id, signIn.user.tenantIds, signIn.user.loginMethods[0].tenantIds]).toEqual([
      'OK',
      id,
      ['public', tenantId],
      ['public', tenantId],
    ]);
    expect((await api.get(`/${tenantId}/users`)).json.users.map((u: { id: string }) => u.id)).toEqual([id]);
    expect((await api.get(`/${tenantId}/users/count`)).json.count).toBe(1);
    // A sign-up of the email there is now refused: the tenant holds it.
    expect((await api.post(`/${tenantId}/recipe/signup`, { email, password: 'another password 1' })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
  });

  it('takes an external id (SPEC §12) and adds third-party and passwordless login methods, which then sign in there', async () => {
    const tenantId = await newTenant('tu-kinds');
    const ep = await l.emailPassword();
    expect((await api.post('/recipe/userid/map', { superTokensUserId: ep, externalUserId: `ext-${ep}` })).json.status).toBe('OK');
    expect((await associate(tenantId, `ext-${ep}`)).json).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    expect((await l.user(ep)).tenantIds).toEqual(['public', tenantId]);

    const identity = tp(`tu-${Date.now().toString(36)}`);
    const tpId = await l.thirdParty(uniqueEmail('tu-tp'), undefined, identity);
    expect((await associate(tenantId, tpId)).json.status).toBe('OK');
    const again = (await api.post(`/${tenantId}/recipe/signinup`, { ...identity, email: { id: uniqueEmail('tu-tp2'), isVerified: false } })).json;
    expect([again.createdNewUser, again.user.id]).toEqual([false, tpId]);

    const phoneNumber = uniquePhone();
    const plId = await l.passwordless({ phoneNumber });
    expect((await associate(tenantId, plId)).json.status).toBe('OK');
    const consumed = await l.passwordless({ phoneNumber }, tenantId);
    expect(consumed).toBe(plId);
  });

  it('adds only the login method named, not its linked siblings: the user lists the tenant through it', async () => {
    const tenantId = await newTenant('tu-linked');
    const email = uniqueEmail('tu-linked');
    const ep = await l.emailPassword(email);
    const tpId = await l.thirdParty(email);
    await l.group(ep, tpId);
    expect((await associate(tenantId, tpId)).json).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    const user = await l.user(ep);
    expect(user.tenantIds).toEqual(['public', tenantId]);
    expect(user.loginMethods.map((lm: { recipeUserId: string; tenantIds: string[] }) => [lm.recipeUserId, lm.tenantIds])).toEqual([
      [ep, ['public']],
      [tpId, ['public', tenantId]],
    ]);
    expect((await l.signIn(email, BCRYPT.password, tenantId)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('answers UNKNOWN_USER_ID_ERROR for an id that names no login method', async () => {
    const tenantId = await newTenant('tu-unknown');
    expect((await associate(tenantId, '00000000-0000-4000-8000-000000000000')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await associate(tenantId, 'no-such-external-id')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('answers EMAIL_ALREADY_EXISTS_ERROR when the tenant has a login method of the same recipe with the email', async () => {
    const tenantId = await newTenant('tu-email');
    const email = uniqueEmail('tu-email');
    const mine = await l.emailPassword(email);
    await l.emailPassword(email, tenantId);
    expect((await associate(tenantId, mine)).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    // Another recipe with the email is no conflict (SPEC §2: unique per tenant and recipe).
    const pl = await l.passwordless({ email });
    expect((await associate(tenantId, pl)).json).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    expect((await l.user(mine)).tenantIds).toEqual(['public']);
  });

  it('answers PHONE_NUMBER_ALREADY_EXISTS_ERROR when the tenant has a passwordless login method with the phone number', async () => {
    const tenantId = await newTenant('tu-phone');
    const phoneNumber = uniquePhone();
    const mine = await l.passwordless({ phoneNumber });
    await l.passwordless({ phoneNumber }, tenantId);
    expect((await associate(tenantId, mine)).json).toEqual({ status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' });
  });

  it('answers THIRD_PARTY_USER_ALREADY_EXISTS_ERROR when the tenant has the third-party identity', async () => {
    const tenantId = await newTenant('tu-tp');
    const identity = tp(`tu-dup-${Date.now().toString(36)}`);
    const mine = await l.thirdParty(uniqueEmail('tu-a'), undefined, identity);
    await l.thirdParty(uniqueEmail('tu-b'), tenantId, identity);
    expect((await associate(tenantId, mine)).json).toEqual({ status: 'THIRD_PARTY_USER_ALREADY_EXISTS_ERROR' });
  });

  it('answers ASSOCIATION_NOT_ALLOWED_ERROR for a primary user when another primary user of the tenant has its email in another recipe, naming its SuperTokens id', async () => {
    const tenantId = await newTenant('tu-na-email');
    const email = uniqueEmail('tu-na');
    const other = await l.passwordless({ email }, tenantId);
    expect((await l.createPrimary(other)).json.status).toBe('OK');
    // Its external id is not what the core's reason names.
    expect((await api.post('/recipe/userid/map', { superTokensUserId: other, externalUserId: `ext-${other}` })).json.status).toBe('OK');
    const mine = await l.emailPassword(email);
    expect((await l.createPrimary(mine)).json.status).toBe('OK');
    expect((await associate(tenantId, mine)).json).toEqual({
      status: 'ASSOCIATION_NOT_ALLOWED_ERROR',
      reason: `Another primary user with email already exists: ${other}`,
    });
    // The same recipe with the email in the tenant is the duplicate instead.
    const sameRecipe = await newTenant('tu-dup-email');
    const theirs = await l.emailPassword(email, sameRecipe);
    expect((await l.createPrimary(theirs)).json.status).toBe('OK');
    expect((await associate(sameRecipe, mine)).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await l.user(mine)).tenantIds).toEqual(['public']);
  });

  it('answers ASSOCIATION_NOT_ALLOWED_ERROR with the phone number of another primary user there', async () => {
    const tenantId = await newTenant('tu-na-phone');
    const elsewhere = await newTenant('tu-na-phone-u');
    const phoneNumber = uniquePhone();
    // The other primary user has the phone number (in public) and a login method in the tenant.
    const theirPhone = await l.passwordless({ phoneNumber });
    const theirEp = await l.emailPassword(uniqueEmail('tu-na-p'), tenantId);
    await l.group(theirPhone, theirEp);
    const mine = await l.passwordless({ phoneNumber }, elsewhere);
    expect((await l.createPrimary(mine)).json.status).toBe('OK');
    expect((await associate(tenantId, mine)).json).toEqual({
      status: 'ASSOCIATION_NOT_ALLOWED_ERROR',
      reason: `Another primary user with phone number already exists: ${theirPhone}`,
    });
  });

  it('answers ASSOCIATION_NOT_ALLOWED_ERROR with the third-party identity of another primary user there', async () => {
    const tenantId = await newTenant('tu-na-tp');
    const elsewhere = await newTenant('tu-na-tp-u');
    const identity = tp(`tu-na-${Date.now().toString(36)}`);
    const theirTp = await l.thirdParty(uniqueEmail('tu-na-t1'), undefined, identity);
    const theirEp = await l.emailPassword(uniqueEmail('tu-na-t2'), tenantId);
    await l.group(theirTp, theirEp);
    const mine = await l.thirdParty(uniqueEmail('tu-na-t3'), elsewhere, identity);
    expect((await l.createPrimary(mine)).json.status).toBe('OK');
    expect((await associate(tenantId, mine)).json).toEqual({
      status: 'ASSOCIATION_NOT_ALLOWED_ERROR',
      reason: `Another primary user with third party info already exists: ${theirTp}`,
    });
  });

  it('lets exactly one of two login methods with one email racing into a tenant in; the other answers EMAIL_ALREADY_EXISTS_ERROR', async () => {
    for (let round = 0; round < 5; round++) {
      const tenantId = await newTenant('tu-race');
      const email = uniqueEmail('tu-race');
      const a = await l.emailPassword(email);
      const b = await l.emailPassword(email, await newTenant('tu-race-b'));
      const answers = (await Promise.all([associate(tenantId, a), associate(tenantId, b)])).map((r) => r.json.status).sort();
      expect(answers).toEqual(['EMAIL_ALREADY_EXISTS_ERROR', 'OK']);
      expect((await l.signIn(email, BCRYPT.password, tenantId)).json.status).toBe('OK');
    }
  });

  it("answers §1's 400 for a recipeUserId missing or not a string, the core's for an empty one, and §2's for an unknown tenant", async () => {
    for (const post of [associate, disassociate]) {
      refused(await post('public', undefined), "Field name 'recipeUserId' is invalid in JSON input");
      refused(await post('public', 42), "Field name 'recipeUserId' is invalid in JSON input");
      refused(await post('public', '   '), "Field name 'userId' cannot be an empty String");
      refused(await post('tu-nobody', 'someone'), 'AppId or tenantId not found');
    }
  });
});

describe('POST …/tenant/user/remove', () => {
  it('takes the login method out of the tenant with its roles and sessions there; the ones in other tenants stay', async () => {
    const tenantId = await newTenant('tu-rm');
    const email = uniqueEmail('tu-rm');
    const id = await l.emailPassword(email);
    expect((await associate(tenantId, id)).json.status).toBe('OK');
    expect((await api.put('/recipe/role', { role: 'tu-admin' })).json.status).toBe('OK');
    for (const t of [tenantId, 'public']) expect((await api.put(tenantPath(t, '/recipe/user/role'), { userId: id, role: 'tu-admin' })).json.status).toBe('OK');
    const session = { userId: id, userDataInJWT: {}, userDataInDatabase: {}, enableAntiCsrf: false };
    const there = (await api.post(`/${tenantId}/recipe/session`, session)).json.session.handle;
    const here = (await api.post('/recipe/session', session)).json.session.handle;

    expect((await disassociate(tenantId, id)).json).toEqual({ status: 'OK', wasAssociated: true });
    expect((await l.signIn(email, BCRYPT.password, tenantId)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await l.signIn(email)).json.status).toBe('OK');
    expect((await api.get(`/${tenantId}/recipe/user/roles?userId=${id}`)).json.roles).toEqual([]);
    expect((await api.get(`/recipe/user/roles?userId=${id}`)).json.roles).toEqual(['tu-admin']);
    expect((await api.get(`/recipe/session?sessionHandle=${there}`)).json.status).toBe('UNAUTHORISED');
    expect((await api.get(`/recipe/session?sessionHandle=${here}`)).json.status).toBe('OK');
    expect((await disassociate(tenantId, id)).json).toEqual({ status: 'OK', wasAssociated: false });
  });

  it("answers wasAssociated when only the login method's roles were in the tenant, as the core", async () => {
    const tenantId = await newTenant('tu-rm-roles');
    const id = await l.emailPassword();
    expect((await api.put('/recipe/role', { role: 'tu-viewer' })).json.status).toBe('OK');
    expect((await api.put(`/${tenantId}/recipe/user/role`, { userId: id, role: 'tu-viewer' })).json.status).toBe('OK');
    expect((await disassociate(tenantId, id)).json).toEqual({ status: 'OK', wasAssociated: true });
    expect((await disassociate(tenantId, id)).json).toEqual({ status: 'OK', wasAssociated: false });
  });

  it('keeps a login method left in no tenant as a user (tenantIds: []), found by its ids only, until it is associated again', async () => {
    const email = uniqueEmail('tu-none');
    const id = await l.emailPassword(email);
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: `ext-${id}` })).json.status).toBe('OK');
    expect((await disassociate('public', `ext-${id}`)).json).toEqual({ status: 'OK', wasAssociated: true });
    const user = await l.user(id);
    expect([user.id, user.tenantIds, user.loginMethods[0].tenantIds]).toEqual([`ext-${id}`, [], []]);
    expect((await l.signIn(email)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect((await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`)).json.users).toEqual([]);
    // Its email is free in public: another sign-up takes it.
    const other = (await api.post('/recipe/signup', { email, password: 'another password 1' })).json;
    expect(other.status).toBe('OK');
    expect((await associate('public', id)).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await l.remove(other.user.id)).json.status).toBe('OK');
    expect((await associate('public', id)).json).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    expect((await l.signIn(email)).json.user.id).toBe(`ext-${id}`);
  });

  it('answers UNKNOWN_USER_ID_ERROR for an id that names no login method', async () => {
    expect((await disassociate('public', '00000000-0000-4000-8000-000000000000')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });
});
