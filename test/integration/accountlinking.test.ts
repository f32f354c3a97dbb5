import { startApi, tableProblems, type TestApi } from '../support/api';
import { createCode, consumeLink, passwordlessSignIn, tenantPath, uniqueEmail, uniquePhone } from '../support/flows';
import { BCRYPT, linkingClient } from '../support/linking';
import { dumpTable, readStoredUser } from '../support/table';

/**
 * Account linking (SPEC §11): every status of the five endpoints, each rule with users of all three
 * recipes in two tenants, the user object of a primary user, and how every other operation behaves
 * once accounts are linked. `TestApi.stop()` proves the table consistent at the end (guards, links
 * and primary-user claims all as the users imply).
 */
let api: TestApi;
let al: ReturnType<typeof linkingClient>;
const T1 = 'al-one';
const T2 = 'al-two';

beforeAll(async () => {
  api = await startApi({ ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1' });
  al = linkingClient(api);
  for (const tenantId of [T1, T2]) expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
});
afterAll(() => api.stop());

const EMAIL_TAKEN = "This user's email is already associated with another user ID";
const PHONE_TAKEN = "This user's phone number is already associated with another user ID";
const THIRD_PARTY_TAKEN = "This user's third party login is already associated with another user ID";

describe('GET /recipe/accountlinking/user/primary/check and POST /recipe/accountlinking/user/primary', () => {
  it('makes a login method primary (OK, wasAlreadyAPrimaryUser false); the check changes nothing; a second call answers true and changes nothing', async () => {
    const id = await al.emailPassword();
    expect((await al.primaryCheck(id)).json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: false });
    expect((await al.user(id)).isPrimaryUser).toBe(false);

    const created = await al.createPrimary(id);
    expect(created.status).toBe(200);
    expect(created.json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: false, user: { ...(await al.user(id)) } });
    expect(created.json.user).toEqual(expect.objectContaining({ id, isPrimaryUser: true }));
    expect(Object.keys(created.json)).toEqual(['status', 'wasAlreadyAPrimaryUser', 'user']);

    expect((await al.primaryCheck(id)).json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: true });
    const again = await al.createPrimary(id);
    expect(again.json).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: true, user: created.json.user });
  });

  it('answers RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR for a login method linked to another one', async () => {
    const email = uniqueEmail('linked');
    const primary = await al.emailPassword(email);
    const member = await al.thirdParty(email);
    await al.group(primary, member);
    const expected = {
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
      primaryUserId: primary,
      description: 'This user ID is already linked to another user ID',
    };
    expect((await al.primaryCheck(member)).json).toEqual(expected);
    expect((await al.createPrimary(member)).json).toEqual(expected);
  });

  it('answers ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR when another primary user in its tenant holds its email (any recipe)', async () => {
    const email = uniqueEmail('shared');
    const primary = await al.thirdParty(email);
    await al.group(primary);
    for (const other of [await al.emailPassword(email), await al.passwordless({ email })]) {
      const expected = { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', primaryUserId: primary, description: EMAIL_TAKEN };
      expect((await al.primaryCheck(other)).json).toEqual(expected);
      expect((await al.createPrimary(other)).json).toEqual(expected);
      expect((await al.user(other)).isPrimaryUser).toBe(false);
    }
  });

  it('lets two primary users share an email when they share no tenant', async () => {
    const email = uniqueEmail('two-tenants');
    const inPublic = await al.emailPassword(email);
    const inT1 = await al.emailPassword(email, T1);
    expect((await al.createPrimary(inPublic)).json.status).toBe('OK');
    expect((await al.createPrimary(inT1)).json).toEqual(expect.objectContaining({ status: 'OK', wasAlreadyAPrimaryUser: false }));
  });

  it('counts a primary user in every tenant of its login methods: its phone number conflicts in another tenant where it has a login method', async () => {
    const phoneNumber = uniquePhone();
    const primary = await al.passwordless({ phoneNumber });
    const inT1 = await al.emailPassword(uniqueEmail('anchor'), T1);
    await al.group(primary, inT1);
    const samePhoneInT1 = await al.passwordless({ phoneNumber }, T1);
    const phoneTaken = { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', primaryUserId: primary, description: PHONE_TAKEN };
    expect((await al.primaryCheck(samePhoneInT1)).json).toEqual(phoneTaken);
    expect((await al.createPrimary(samePhoneInT1)).json).toEqual(phoneTaken);
    // In a tenant the primary user has no login method in, the same phone number is free.
    const samePhoneInT2 = await al.passwordless({ phoneNumber }, T2);
    expect((await al.createPrimary(samePhoneInT2)).json.status).toBe('OK');
  });

  it('answers the third-party description when another primary user holds the identity in a shared tenant', async () => {
    const identity = { thirdPartyId: 'github', thirdPartyUserId: `gh-${Date.now()}` };
    const primary = await al.thirdParty(uniqueEmail('tp-a'), undefined, identity);
    await al.group(primary, await al.emailPassword(uniqueEmail('anchor'), T1));
    const sameIdentityInT1 = await al.thirdParty(uniqueEmail('tp-b'), T1, identity);
    const identityTaken = {
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: primary,
      description: THIRD_PARTY_TAKEN,
    };
    expect((await al.primaryCheck(sameIdentityInT1)).json).toEqual(identityTaken);
    expect((await al.createPrimary(sameIdentityInT1)).json).toEqual(identityTaken);
    expect((await al.user(sameIdentityInT1)).isPrimaryUser).toBe(false);
  });

  it('answers 400 Unknown user ID provided for an unknown id, and 400 naming a missing field', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const res of [await al.primaryCheck(unknown), await al.createPrimary(unknown)]) {
      expect([res.status, res.text]).toEqual([400, 'Unknown user ID provided']);
    }
    const missingQuery = await api.get('/recipe/accountlinking/user/primary/check');
    expect([missingQuery.status, missingQuery.text]).toEqual([400, "Field name 'recipeUserId' is missing in GET request"]);
    const missingBody = await api.post('/recipe/accountlinking/user/primary', {});
    expect([missingBody.status, missingBody.text]).toEqual([400, "Field name 'recipeUserId' is invalid in JSON input"]);
    const surrogate = await api.post('/recipe/accountlinking/user/primary', { recipeUserId: '\ud800' });
    expect([surrogate.status, surrogate.text]).toEqual([400, "Field name 'recipeUserId' is not valid Unicode: it holds a lone surrogate"]);
  });

  it('is app-wide: a tenant segment answers 403, on every account-linking endpoint', async () => {
    const id = await al.emailPassword();
    const member = await al.thirdParty();
    const q = `recipeUserId=${id}&primaryUserId=${id}`;
    for (const res of [
      await api.post(`/${T1}/recipe/accountlinking/user/primary`, { recipeUserId: id }),
      await api.get(`/${T1}/recipe/accountlinking/user/primary/check?recipeUserId=${id}`),
      await api.get(`/${T1}/recipe/accountlinking/user/link/check?${q}`),
      await api.post(`/${T1}/recipe/accountlinking/user/link`, { recipeUserId: member, primaryUserId: id }),
      await api.post(`/${T1}/recipe/accountlinking/user/unlink`, { recipeUserId: id }),
    ]) {
      expect([res.status, res.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    }
    expect((await al.user(id)).isPrimaryUser).toBe(false);
    expect((await api.post('/public/recipe/accountlinking/user/primary', { recipeUserId: id })).json.status).toBe('OK');
  });
});

describe('GET /recipe/accountlinking/user/link/check and POST /recipe/accountlinking/user/link', () => {
  it('links a login method to a primary user: the answer and GET /user/id by either id give the primary user with both login methods', async () => {
    const email = uniqueEmail('link');
    const primary = await al.emailPassword(email);
    const member = await al.thirdParty(email);
    await al.group(primary);
    expect((await al.linkCheck(member, primary)).json).toEqual({ status: 'OK', accountsAlreadyLinked: false });
    expect((await al.user(member)).id).toBe(member);

    const linked = await al.link(member, primary);
    expect(linked.json.status).toBe('OK');
    expect(linked.json.accountsAlreadyLinked).toBe(false);
    expect(Object.keys(linked.json)).toEqual(['status', 'accountsAlreadyLinked', 'user']);
    expect(linked.json.user.id).toBe(primary);
    expect(linked.json.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toEqual([primary, member]);
    expect(await al.user(primary)).toEqual(linked.json.user);
    expect(await al.user(member)).toEqual(linked.json.user);

    expect((await al.linkCheck(member, primary)).json).toEqual({ status: 'OK', accountsAlreadyLinked: true });
    expect((await al.link(member, primary)).json).toEqual({ status: 'OK', accountsAlreadyLinked: true, user: linked.json.user });
    expect((await al.link(primary, primary)).json).toEqual({ status: 'OK', accountsAlreadyLinked: true, user: linked.json.user });
  });

  it('accepts any id of the primary user as primaryUserId', async () => {
    const [a, b, c] = [await al.emailPassword(), await al.thirdParty(), await al.passwordless({ email: uniqueEmail('pl') })];
    await al.group(a, b);
    const res = await al.link(c, b);
    expect(res.json.status).toBe('OK');
    expect(res.json.user.id).toBe(a);
    expect(res.json.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toEqual([a, b, c]);
  });

  it('answers INPUT_USER_IS_NOT_A_PRIMARY_USER when the target is not primary', async () => {
    const [a, b] = [await al.emailPassword(), await al.thirdParty()];
    expect((await al.linkCheck(b, a)).json).toEqual({ status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' });
    expect((await al.link(b, a)).json).toEqual({ status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' });
    expect((await al.user(b)).id).toBe(b);
  });

  it('answers RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR (with the user it is in) for a login method of another primary user', async () => {
    const [a, b, c, d] = [await al.emailPassword(), await al.thirdParty(), await al.emailPassword(), await al.passwordless({ phoneNumber: uniquePhone() })];
    const other = await al.group(a, b);
    await al.group(c);
    await al.group(d);
    const description = 'The input recipe user ID is already linked to another user ID';
    expect((await al.linkCheck(b, c)).json).toEqual({
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: a,
      description,
    });
    expect((await al.link(b, c)).json).toEqual({
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: a,
      description,
      user: other,
    });
    // A primary user itself cannot be linked to another either.
    const dUser = await al.user(d);
    expect((await al.link(d, c)).json).toEqual({
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: d,
      description,
      user: dUser,
    });
  });

  it("answers ACCOUNT_INFO_ALREADY_ASSOCIATED_… when another primary user holds the recipe user's email", async () => {
    const email = uniqueEmail('taken');
    const holder = await al.emailPassword(email);
    await al.group(holder);
    const target = await al.thirdParty();
    await al.group(target);
    const member = await al.thirdParty(email);
    const expected = { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', primaryUserId: holder, description: EMAIL_TAKEN };
    expect((await al.linkCheck(member, target)).json).toEqual(expected);
    expect((await al.link(member, target)).json).toEqual(expected);
    expect((await al.user(member)).id).toBe(member);
  });

  it("checks the union of tenants: the primary user's own email may not reach a tenant where another primary user holds it", async () => {
    const email = uniqueEmail('union');
    const target = await al.emailPassword(email); // public
    await al.group(target);
    const holderInT1 = await al.passwordless({ email }, T1);
    await al.group(holderInT1);
    const memberInT1 = await al.thirdParty(uniqueEmail('other'), T1);
    const expected = { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', primaryUserId: holderInT1, description: EMAIL_TAKEN };
    expect((await al.linkCheck(memberInT1, target)).json).toEqual(expected);
    expect((await al.link(memberInT1, target)).json).toEqual(expected);
  });

  it.each([
    ['email', EMAIL_TAKEN],
    ['phone number', PHONE_TAKEN],
    ['third-party identity', THIRD_PARTY_TAKEN],
  ])(
    "answers ACCOUNT_INFO_ALREADY_ASSOCIATED_… when the recipe user's %s is held by another primary user in a tenant only the primary user is in",
    async (what, description) => {
      // The holder and the target primary user are in T2 only; the recipe user is in public: its
      // account info reaches T2 only through the union of tenants.
      const email = uniqueEmail('reverse');
      const phoneNumber = uniquePhone();
      const identity = { thirdPartyId: 'github', thirdPartyUserId: `gh-rev-${Date.now()}-${what.length}` };
      const [holder, member] =
        what === 'email'
          ? [await al.emailPassword(email, T2), await al.thirdParty(email)]
          : what === 'phone number'
            ? [await al.passwordless({ phoneNumber }, T2), await al.passwordless({ phoneNumber })]
            : [await al.thirdParty(uniqueEmail('rev-a'), T2, identity), await al.thirdParty(uniqueEmail('rev-b'), undefined, identity)];
      await al.group(holder);
      const target = await al.emailPassword(uniqueEmail('rev-target'), T2);
      await al.group(target);
      const expected = { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', primaryUserId: holder, description };
      expect((await al.linkCheck(member, target)).json).toEqual(expected);
      expect((await al.link(member, target)).json).toEqual(expected);
      expect((await al.user(member)).id).toBe(member);
      expect((await al.user(target)).loginMethods).toHaveLength(1);
      // The same recipe user links to a primary user of its own tenant.
      const local = await al.emailPassword(uniqueEmail('rev-local'));
      await al.group(local);
      expect((await al.link(member, local)).json.status).toBe('OK');
    },
  );

  it('answers 400 for unknown ids (looked up before any other check, as the core does) and missing fields', async () => {
    const known = await al.emailPassword();
    await al.group(known);
    const notPrimary = await al.thirdParty();
    const unknown = '00000000-0000-4000-8000-000000000001';
    for (const res of [
      await al.linkCheck(known, unknown),
      await al.link(known, unknown),
      await al.linkCheck(unknown, known),
      await al.link(unknown, known),
      // An unknown recipe user id is a 400 even when the target is not primary.
      await al.linkCheck(unknown, notPrimary),
      await al.link(unknown, notPrimary),
    ]) {
      expect([res.status, res.text]).toEqual([400, 'Unknown user ID provided']);
    }
    const missing = await api.get(`/recipe/accountlinking/user/link/check?recipeUserId=${known}`);
    expect([missing.status, missing.text]).toEqual([400, "Field name 'primaryUserId' is missing in GET request"]);
    const missingBody = await api.post('/recipe/accountlinking/user/link', { recipeUserId: known });
    expect([missingBody.status, missingBody.text]).toEqual([400, "Field name 'primaryUserId' is invalid in JSON input"]);
  });
});

describe('the user object of a primary user (SPEC §4, §11)', () => {
  it('holds every login method oldest first, the unions of emails, phone numbers, third-party identities and tenants, and the oldest time joined', async () => {
    const email = uniqueEmail('union-user');
    const phoneNumber = uniquePhone();
    const tpIdentity = { thirdPartyId: 'apple', thirdPartyUserId: `apple-${Date.now()}` };
    const ep = await al.emailPassword(email);
    const tp = await al.thirdParty(email, T1, tpIdentity);
    const pl = await al.passwordless({ phoneNumber });
    // The primary user is the newest login method: its id stays, its time joined does not.
    const user = await al.group(pl, ep, tp);
    const [epUser, tpUser] = [user.loginMethods[0], user.loginMethods[1]];
    expect(user).toEqual({
      id: pl,
      isPrimaryUser: true,
      tenantIds: ['public', T1],
      timeJoined: epUser.timeJoined,
      emails: [email],
      phoneNumbers: [phoneNumber],
      thirdParty: [{ id: 'apple', userId: tpIdentity.thirdPartyUserId }],
      webauthn: { credentialIds: [] },
      loginMethods: [
        { tenantIds: ['public'], recipeUserId: ep, verified: false, timeJoined: epUser.timeJoined, recipeId: 'emailpassword', email },
        {
          tenantIds: [T1],
          recipeUserId: tp,
          verified: true,
          timeJoined: tpUser.timeJoined,
          recipeId: 'thirdparty',
          email,
          thirdParty: { id: 'apple', userId: tpIdentity.thirdPartyUserId },
        },
        { tenantIds: ['public'], recipeUserId: pl, verified: true, timeJoined: expect.any(Number), recipeId: 'passwordless', phoneNumber },
      ],
    });
    expect(epUser.timeJoined).toBeLessThanOrEqual(tpUser.timeJoined);
    expect(user.loginMethods[2].timeJoined).toBeGreaterThanOrEqual(tpUser.timeJoined);
  });
});

describe('every other operation once accounts are linked', () => {
  it('signs a linked user in through each of its login methods, always as the primary user, with the login method used as recipeUserId', async () => {
    const email = uniqueEmail('each');
    const tpIdentity = { thirdPartyId: 'google', thirdPartyUserId: `each-${Date.now()}` };
    const ep = await al.emailPassword(email);
    const tp = await al.thirdParty(email, undefined, tpIdentity);
    const plEmail = uniqueEmail('each-pl');
    const pl = await al.passwordless({ email: plEmail });
    await al.group(tp, ep, pl);

    const signIn = await al.signIn(email);
    expect([signIn.json.status, signIn.json.user.id, signIn.json.recipeUserId]).toEqual(['OK', tp, ep]);
    expect(signIn.json.user.loginMethods).toHaveLength(3);
    const tpSignIn = await api.post('/recipe/signinup', { ...tpIdentity, email: { id: email, isVerified: true } });
    expect([tpSignIn.json.status, tpSignIn.json.createdNewUser, tpSignIn.json.user.id, tpSignIn.json.recipeUserId]).toEqual(['OK', false, tp, tp]);
    const consumed = await passwordlessSignIn(api, { email: plEmail });
    expect([consumed.createdNewUser, consumed.user.id, consumed.recipeUserId]).toEqual([false, tp, pl]);
    // A second sign-in (the imported hash was re-hashed on the first) gives the same user.
    expect((await al.signIn(email)).json.user.id).toBe(tp);
    expect((await al.signIn(email, 'wrong password')).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('signs a linked user in through its login methods of another tenant, as the primary user, each tenant answering its own login method', async () => {
    const email = uniqueEmail('t1-each');
    const plEmail = uniqueEmail('t1-each-pl');
    const epPublic = await al.emailPassword(email);
    const epT1 = await al.emailPassword(email, T1);
    const plT1 = await al.passwordless({ email: plEmail }, T1);
    const user = await al.group(epPublic, epT1, plT1);
    expect(user.tenantIds).toEqual(['public', T1]);

    const inPublic = await al.signIn(email);
    const inT1 = await al.signIn(email, undefined, T1);
    expect([inPublic.json.status, inPublic.json.user.id, inPublic.json.recipeUserId]).toEqual(['OK', epPublic, epPublic]);
    expect([inT1.json.status, inT1.json.user.id, inT1.json.recipeUserId]).toEqual(['OK', epPublic, epT1]);
    const consumed = await passwordlessSignIn(api, { email: plEmail }, T1);
    expect([consumed.createdNewUser, consumed.user.id, consumed.recipeUserId]).toEqual([false, epPublic, plT1]);
    // Not in T2, where none of its login methods is.
    expect((await al.signIn(email, undefined, T2)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('replaces the hash of a linked email-password login method on import, answering its primary user', async () => {
    const email = uniqueEmail('reimport');
    const tp = await al.thirdParty(email);
    const ep = await al.emailPassword(email);
    await al.group(tp, ep);
    const argon = { hash: '$argon2id$v=19$m=16,t=2,p=1$VG1Oa1lMbzZLbzk5azQ2Qg$kjcNNtZ/b0t/8HgXUiQ76A', password: 'testPass123' };
    const res = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: argon.hash });
    expect([res.json.status, res.json.didUserAlreadyExist, res.json.user.id, res.json.user.loginMethods.length]).toEqual(['OK', true, tp, 2]);
    expect((await readStoredUser(api.tableName, ep))?.passwordHash).toBe(argon.hash);
    expect((await al.signIn(email, argon.password)).json.user.id).toBe(tp);
  });

  it('reads a linked login method by recipe with GET /recipe/user as its primary user', async () => {
    const email = uniqueEmail('by-rid');
    const tp = await al.thirdParty(email);
    const ep = await al.emailPassword(email);
    const user = await al.group(tp, ep);
    const byId = await api.get(`/recipe/user?userId=${ep}`, { rid: 'emailpassword' });
    expect(byId.json).toEqual({ status: 'OK', user });
    const byEmail = await api.get(`/recipe/user?email=${encodeURIComponent(email)}`, { rid: 'emailpassword' });
    expect(byEmail.json).toEqual({ status: 'OK', user });
    expect((await api.get(`/recipe/user?userId=${ep}`, { rid: 'thirdparty' })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('returns a primary user once from by-accountinfo, and matches AND mode across its login methods', async () => {
    const email = uniqueEmail('by-info');
    const identity = { thirdPartyId: 'github', thirdPartyUserId: `gh-info-${Date.now()}` };
    const tp = await al.thirdParty(email, undefined, identity);
    const ep = await al.emailPassword(email);
    const phoneNumber = uniquePhone();
    const pl = await al.passwordless({ phoneNumber });
    const loner = await al.passwordless({ email });
    const user = await al.group(tp, ep, pl);
    const lonerUser = await al.user(loner);
    const byEmail = await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`);
    expect(byEmail.json).toEqual({ status: 'OK', users: [user, lonerUser] });
    const both = await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}&phoneNumber=${encodeURIComponent(phoneNumber)}`);
    expect(both.json.users.map((u: { id: string }) => u.id)).toEqual([tp]);
    const either = await api.get(
      `/users/by-accountinfo?phoneNumber=${encodeURIComponent(phoneNumber)}&thirdPartyId=github&thirdPartyUserId=${identity.thirdPartyUserId}&doUnionOfAccountInfo=true`,
    );
    expect(either.json.users.map((u: { id: string }) => u.id)).toEqual([tp]);
    // In a tenant where none of its login methods is, it is not found.
    expect((await api.get(`/${T2}/users/by-accountinfo?email=${encodeURIComponent(email)}`)).json.users).toEqual([]);
  });

  it('lists and counts a primary user once per tenant it has a login method in, at its oldest time joined, and filters by any of its recipes', async () => {
    const tenant = `al-list-${Date.now().toString(36)}`;
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: tenant });
    const ep = await al.emailPassword(uniqueEmail('list'), tenant);
    const tp = await al.thirdParty(uniqueEmail('list'), tenant);
    const pl = await al.passwordless({ email: uniqueEmail('list') }, tenant);
    const loner = await al.emailPassword(uniqueEmail('list'), tenant);
    const count = async (q = '') => (await api.get(`/${tenant}/users/count${q}`)).json.count;
    expect(await count()).toBe(4);
    await al.group(pl, tp, ep);
    expect(await count()).toBe(2);
    const listed = (await api.get(`/${tenant}/users?limit=1`)).json;
    expect(listed.users.map((u: { id: string }) => u.id)).toEqual([pl]);
    const next = (await api.get(`/${tenant}/users?limit=1&paginationToken=${encodeURIComponent(listed.nextPaginationToken)}`)).json;
    expect([next.users.map((u: { id: string }) => u.id), next.nextPaginationToken]).toEqual([[loner], undefined]);
    expect((await api.get(`/${tenant}/users?timeJoinedOrder=DESC`)).json.users.map((u: { id: string }) => u.id)).toEqual([loner, pl]);
    expect(await count('?includeRecipeIds=thirdparty')).toBe(1);
    expect((await api.get(`/${tenant}/users?includeRecipeIds=passwordless`)).json.users.map((u: { id: string }) => u.id)).toEqual([pl]);
    expect(await count('?includeRecipeIds=emailpassword')).toBe(2);

    // Linking a login method of another tenant lists the primary user there too, once.
    const other = `al-list2-${Date.now().toString(36)}`;
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: other });
    const far = await al.emailPassword(uniqueEmail('far'), other);
    const appCount = async (q = '') => (await api.get(`/users/count?includeAllTenants=true${q}`)).json.count;
    const [appBefore, appThirdPartyBefore] = [await appCount(), await appCount('&includeRecipeIds=thirdparty')];
    expect((await al.link(far, pl)).json.status).toBe('OK');
    expect((await api.get(`/${other}/users`)).json.users.map((u: { id: string }) => u.id)).toEqual([pl]);
    expect(await count()).toBe(2);
    // The whole app counts it once (as the core counts distinct users), by any of its recipes.
    expect(await appCount()).toBe(appBefore - 1);
    expect(await appCount('&includeRecipeIds=thirdparty')).toBe(appThirdPartyBefore);
  });

  it("refuses an email-password email change that would give a primary user another primary user's email (EMAIL_CHANGE_NOT_ALLOWED_ERROR), not an unlinked one's", async () => {
    const taken = uniqueEmail('taken');
    await al.group(await al.thirdParty(taken));
    const ep = await al.emailPassword();
    await al.group(ep);
    const res = await api.put('/recipe/user', { recipeUserId: ep, email: taken });
    expect(res.json).toEqual({ status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'New email is associated with another primary user ID' });
    expect((await al.user(ep)).emails).not.toContain(taken);
    // Not primary: no account-linking rule applies.
    const loner = await al.emailPassword();
    expect((await api.put('/recipe/user', { recipeUserId: loner, email: taken })).json).toEqual({ status: 'OK' });
    // A same-recipe duplicate in the tenant is still EMAIL_ALREADY_EXISTS_ERROR.
    expect((await api.put('/recipe/user', { recipeUserId: ep, email: taken })).json.status).toBe('EMAIL_CHANGE_NOT_ALLOWED_ERROR');
    const epTwo = uniqueEmail('ep-two');
    await al.emailPassword(epTwo);
    expect((await api.put('/recipe/user', { recipeUserId: ep, email: epTwo })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    // The id must name an email-password login method, not the primary user of one.
    const tp = await al.thirdParty();
    const user = await al.group(tp, await al.emailPassword());
    expect((await api.put('/recipe/user', { recipeUserId: user.id, email: uniqueEmail() })).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it("refuses passwordless email and phone changes onto another primary user's (…_CHANGE_NOT_ALLOWED_ERROR)", async () => {
    const email = uniqueEmail('pl-taken');
    const phoneNumber = uniquePhone();
    await al.group(await al.emailPassword(email));
    await al.group(await al.passwordless({ phoneNumber }, T1), await al.emailPassword(uniqueEmail('anchor')));
    const pl = await al.passwordless({ email: uniqueEmail('pl') });
    await al.group(pl);
    const PL = { rid: 'passwordless' };
    expect((await api.put('/recipe/user', { recipeUserId: pl, email }, PL)).json).toEqual({
      status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New email is associated with another primary user ID',
    });
    expect((await api.put('/recipe/user', { recipeUserId: pl, phoneNumber }, PL)).json).toEqual({
      status: 'PHONE_NUMBER_CHANGE_NOT_ALLOWED_ERROR',
      reason: 'New phone number is associated with another primary user ID',
    });
    expect((await al.user(pl)).phoneNumbers).toEqual([]);
  });

  it("refuses a third-party sign-in that would change a linked login method's email to another primary user's (EMAIL_CHANGE_NOT_ALLOWED_ERROR)", async () => {
    const taken = uniqueEmail('tp-taken');
    await al.group(await al.emailPassword(taken));
    const identity = { thirdPartyId: 'google', thirdPartyUserId: `change-${Date.now()}` };
    const tp = await al.thirdParty(uniqueEmail('tp-old'), undefined, identity);
    await al.group(tp);
    const res = await api.post('/recipe/signinup', { ...identity, email: { id: taken, isVerified: true } });
    expect(res.json).toEqual({ status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: 'Email already associated with another primary user.' });
    // Unlinked, the same change is allowed.
    expect((await al.unlink(tp)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    const after = await api.post('/recipe/signinup', { ...identity, email: { id: taken, isVerified: true } });
    expect([after.json.status, after.json.user.emails]).toEqual(['OK', [taken]]);
  });

  it("never links a new login method on its own: sign-up, import and consume of a primary user's email create unlinked users", async () => {
    const email = uniqueEmail('no-auto');
    const primary = await al.thirdParty(email);
    await al.group(primary);
    const signUp = await api.post('/recipe/signup', { email, password: 'a password 12345' });
    expect([signUp.json.status, signUp.json.user.isPrimaryUser, signUp.json.user.id]).toEqual(['OK', false, signUp.json.recipeUserId]);
    const imported = await api.post(tenantPath(T1, '/recipe/user/passwordhash/import'), { email, passwordHash: BCRYPT.hash });
    expect([imported.json.status, imported.json.didUserAlreadyExist, imported.json.user.isPrimaryUser, imported.json.user.loginMethods.length]).toEqual([
      'OK',
      false,
      false,
      1,
    ]);
    const code = await createCode(api, { email });
    const consumed = (await consumeLink(api, code)).json;
    expect([consumed.createdNewUser, consumed.user.isPrimaryUser, consumed.user.loginMethods]).toEqual([
      true,
      false,
      [expect.objectContaining({ recipeId: 'passwordless' })],
    ]);
    expect((await al.user(primary)).loginMethods).toHaveLength(1);
  });
});

describe('POST /recipe/accountlinking/user/unlink', () => {
  it('answers OK false/false for a login method in no primary user', async () => {
    const id = await al.emailPassword();
    expect((await al.unlink(id)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: false });
  });

  it('makes a linked login method a user on its own again, with its own id and time joined', async () => {
    const email = uniqueEmail('unlink');
    const primary = await al.thirdParty(email);
    const member = await al.emailPassword(email);
    const group = await al.group(primary, member);
    expect((await al.unlink(member)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    const alone = await al.user(member);
    expect(alone).toEqual(expect.objectContaining({ id: member, isPrimaryUser: false, timeJoined: group.loginMethods[1].timeJoined }));
    expect(alone.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toEqual([member]);
    const rest = await al.user(primary);
    expect([rest.isPrimaryUser, rest.loginMethods.length]).toEqual([true, 1]);
    expect((await al.signIn(email)).json.user.id).toBe(member);
    // It can be linked again.
    expect((await al.link(member, primary)).json.status).toBe('OK');
  });

  it("deletes the primary user's own login method when others are linked; the user keeps its id and stays primary", async () => {
    const email = uniqueEmail('own');
    const primary = await al.emailPassword(email);
    const member = await al.thirdParty(uniqueEmail('own-tp'));
    await al.group(primary, member);
    expect((await al.unlink(primary)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: true, wasLinked: true });
    const left = await al.user(primary);
    expect(left).toEqual(expect.objectContaining({ id: primary, isPrimaryUser: true }));
    expect(left.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toEqual([member]);
    expect(await al.user(member)).toEqual(left);
    // Its email is free again: the deleted login method's guard went with it.
    expect((await al.signIn(email)).json).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    const again = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: BCRYPT.hash });
    expect(again.json.didUserAlreadyExist).toBe(false);
    // Unlinking by the primary user's id now unlinks nothing.
    expect((await al.unlink(primary)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: false });
  });

  it('makes a primary user with one login method non-primary', async () => {
    const id = await al.passwordless({ phoneNumber: uniquePhone() });
    await al.group(id);
    expect((await al.unlink(id)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await al.user(id)).isPrimaryUser).toBe(false);
  });

  it('answers 400 for an unknown id and for a missing recipeUserId', async () => {
    const res = await al.unlink('00000000-0000-4000-8000-000000000002');
    expect([res.status, res.text]).toEqual([400, 'Unknown user ID provided']);
    const missing = await api.post('/recipe/accountlinking/user/unlink', {});
    expect([missing.status, missing.text]).toEqual([400, "Field name 'recipeUserId' is invalid in JSON input"]);
  });
});

describe('POST /user/remove with linked accounts', () => {
  async function threeLinked() {
    const email = uniqueEmail('rm');
    const ep = await al.emailPassword(email);
    const tp = await al.thirdParty(email);
    const pl = await al.passwordless({ email: uniqueEmail('rm-pl') });
    await al.group(ep, tp, pl);
    return { email, ep, tp, pl };
  }

  it('removes the primary user with every linked login method by default, whichever id is given', async () => {
    const { email, ep, tp, pl } = await threeLinked();
    expect((await al.remove(tp)).json).toEqual({ status: 'OK', didUserExist: true });
    for (const id of [ep, tp, pl]) expect(await al.user(id)).toBeUndefined();
    // No item of the table names any of them any more: no orphan login method, link, guard or claim.
    const table = await dumpTable(api.tableName);
    for (const id of [ep, tp, pl]) expect(table).not.toContain(id);
    expect(await tableProblems(api.tableName)).toEqual([]);
    expect((await al.remove(tp)).json).toEqual({ status: 'OK', didUserExist: false });
    // Every identity and claim is free again: the email imports anew and can become primary.
    const again = await al.emailPassword(email);
    expect((await al.createPrimary(again)).json.status).toBe('OK');
  });

  it('with removeAllLinkedAccounts false removes only that login method; the primary user keeps its id when its own goes', async () => {
    const { ep, tp, pl } = await threeLinked();
    expect((await al.remove(pl, false)).json).toEqual({ status: 'OK', didUserExist: true });
    expect(await al.user(pl)).toBeUndefined();
    expect((await al.user(ep)).loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toEqual([ep, tp]);
    expect((await al.remove(ep, false)).json).toEqual({ status: 'OK', didUserExist: true });
    const left = await al.user(ep);
    expect([left.id, left.isPrimaryUser, left.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)]).toEqual([ep, true, [tp]]);
    expect(await tableProblems(api.tableName)).toEqual([]);
    // The last login method goes with the user.
    expect((await al.remove(tp, false)).json).toEqual({ status: 'OK', didUserExist: true });
    expect(await al.user(ep)).toBeUndefined();
    const table = await dumpTable(api.tableName);
    for (const id of [ep, tp, pl]) expect(table).not.toContain(id);
  });

  it('refuses a removeAllLinkedAccounts that is not a boolean', async () => {
    const res = await api.post('/user/remove', { userId: 'x', removeAllLinkedAccounts: 'yes' });
    expect([res.status, res.text]).toEqual([400, "Field name 'removeAllLinkedAccounts' is invalid in JSON input"]);
  });

  it("signs up a new user on a removed login method's identity in its tenant", async () => {
    const email = uniqueEmail('reuse');
    const member = await al.emailPassword(email, T1);
    const primary = await al.thirdParty(uniqueEmail('reuse-tp'));
    await al.group(primary, member);
    await al.remove(member, false);
    const res = await api.post(tenantPath(T1, '/recipe/signup'), { email, password: 'a password 12345' });
    expect([res.json.status, res.json.user.isPrimaryUser]).toEqual(['OK', false]);
    expect((await al.user(primary)).tenantIds).toEqual(['public']);
  });
});
