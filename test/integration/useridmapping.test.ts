import { startApi, tableProblems, type TestApi } from '../support/api';
import { passwordlessSignIn, uniqueEmail } from '../support/flows';
import { BCRYPT, linkingClient } from '../support/linking';

/**
 * External user ids (SPEC §12): the four endpoints with the core's statuses, checks and texts, and
 * the external id as the user's id to the outside everywhere once mapped.
 */
let api: TestApi;
let al: ReturnType<typeof linkingClient>;
beforeAll(async () => {
  api = await startApi();
  al = linkingClient(api);
});
afterAll(() => api.stop());

let n = 0;
const ext = (label = 'firebase') => `${label}|${Date.now().toString(36)}-${n++}`;
const map = (superTokensUserId: string, externalUserId: string, more: Record<string, unknown> = {}) =>
  api.post('/recipe/userid/map', { superTokensUserId, externalUserId, ...more });
const getMap = async (userId: string, userIdType?: string) =>
  (await api.get(`/recipe/userid/map?userId=${encodeURIComponent(userId)}${userIdType ? `&userIdType=${userIdType}` : ''}`)).json;
const metadataOf = async (userId: string) => (await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(userId)}`)).json.metadata;
const rolesOf = async (userId: string) => (await api.get(`/recipe/user/roles?userId=${encodeURIComponent(userId)}`)).json.roles as string[];

describe('POST /recipe/userid/map and GET /recipe/userid/map', () => {
  it('maps a login method and finds the mapping by either id', async () => {
    const id = await al.emailPassword();
    const x = ext();
    expect((await map(id, x, { externalUserIdInfo: ' from firebase ' })).json).toEqual({ status: 'OK' });
    const expected = { status: 'OK', superTokensUserId: id, externalUserId: x, externalUserIdInfo: 'from firebase' };
    expect(await getMap(id, 'SUPERTOKENS')).toEqual(expected);
    expect(await getMap(x, 'EXTERNAL')).toEqual(expected);
    expect(await getMap(x)).toEqual(expected);
    expect(await getMap(id)).toEqual(expected);
    expect(await getMap(x, 'SUPERTOKENS')).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
    expect(await getMap(id, 'EXTERNAL')).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
    // Without info the key is left out.
    const other = await al.thirdParty();
    await map(other, ext());
    expect(Object.keys(await getMap(other))).toEqual(['status', 'superTokensUserId', 'externalUserId']);
  });

  it('answers UNKNOWN_SUPERTOKENS_USER_ID_ERROR for an id that is no login method', async () => {
    expect((await map('00000000-0000-4000-8000-00000000000a', ext())).json).toEqual({ status: 'UNKNOWN_SUPERTOKENS_USER_ID_ERROR' });
  });

  it('answers USER_ID_MAPPING_ALREADY_EXISTS_ERROR for an external id or a login method mapped already (force does not skip it)', async () => {
    const [a, b] = [await al.emailPassword(), await al.emailPassword()];
    const x = ext();
    await map(a, x);
    const taken = (doesSuperTokensUserIdExist: boolean, doesExternalUserIdExist: boolean) => ({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist,
      doesExternalUserIdExist,
    });
    expect((await map(a, x)).json).toEqual(taken(true, true));
    expect((await map(b, x)).json).toEqual(taken(false, true));
    expect((await map(b, x, { force: true })).json).toEqual(taken(false, true));
    expect((await map(a, ext())).json).toEqual(taken(true, false));
  });

  it("refuses an external id that is another login method's SuperTokens id, unless forced; the SuperTokens user then wins the id", async () => {
    const [a, b] = [await al.emailPassword(), await al.thirdParty()];
    const res = await map(a, b);
    expect([res.status, res.text]).toEqual([400, 'Cannot create a userId mapping where the externalId is also a SuperTokens userID']);
    expect((await map(a, b, { force: true })).json).toEqual({ status: 'OK' });
    // One id naming two users: as in the core, an id is first a SuperTokens id.
    expect((await al.user(b)).loginMethods[0].recipeId).toBe('thirdparty');
    expect(await getMap(b)).toEqual({ status: 'OK', superTokensUserId: a, externalUserId: b });
  });

  it('refuses to map an id the app keeps metadata under, unless forced', async () => {
    const id = await al.emailPassword();
    await api.put('/recipe/user/metadata', { userId: id, metadataUpdate: { a: 1 } });
    const res = await map(id, ext());
    expect([res.status, res.text]).toEqual([400, 'UserId is already in use in UserMetadata recipe']);
    expect((await map(id, ext(), { force: true })).json).toEqual({ status: 'OK' });
  });

  it('makes one mapping of two racing for one external id', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await al.emailPassword(), await al.emailPassword()];
      const x = ext('race');
      const answers = (await Promise.all([map(a, x), map(b, x)])).map((r) => r.json.status);
      expect(answers.sort()).toEqual(['OK', 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR']);
    }
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it.each([
    [{ externalUserId: 'x' }, "Field name 'superTokensUserId' is invalid in JSON input"],
    [{ superTokensUserId: 'x' }, "Field name 'externalUserId' is invalid in JSON input"],
    [{ superTokensUserId: '  ', externalUserId: 'x' }, "Field name 'superTokensUserId' cannot be an empty String"],
    [{ superTokensUserId: 'x', externalUserId: ' ' }, "Field name 'externalUserId' cannot be an empty String"],
    [{ superTokensUserId: 'x', externalUserId: 'y', externalUserIdInfo: ' ' }, "Field name 'externalUserIdInfo' cannot be an empty String"],
    [{ superTokensUserId: 'x', externalUserId: 'y', force: 'yes' }, "Field name 'force' is invalid in JSON input"],
    [{ superTokensUserId: 'x', externalUserId: 'e'.repeat(129) }, "Field name 'externalUserId' is too long: the maximum is 128 characters"],
    [{ superTokensUserId: 'x', externalUserId: 'y', externalUserIdInfo: 5 }, "Field name 'externalUserIdInfo' is invalid in JSON input"],
    [{ superTokensUserId: 's'.repeat(129), externalUserId: 'y' }, "Field name 'superTokensUserId' is too long: the maximum is 128 characters"],
  ])('answers 400 for %j', async (body, text) => {
    const res = await api.post('/recipe/userid/map', body);
    expect([res.status, res.text]).toEqual([400, text]);
  });

  it('answers 400 for a bad userIdType or a missing userId, and 403 under a tenant', async () => {
    const bad = await api.get('/recipe/userid/map?userId=x&userIdType=INTERNAL');
    expect([bad.status, bad.text]).toEqual([400, "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'"]);
    const missing = await api.get('/recipe/userid/map');
    expect([missing.status, missing.text]).toEqual([400, "Field name 'userId' is missing in GET request"]);
    const empty = await api.get('/recipe/userid/map?userId=%20');
    expect([empty.status, empty.text]).toEqual([400, "Field name 'userId' cannot be an empty String"]);
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'map-t' });
    const tenant = await api.post('/map-t/recipe/userid/map', { superTokensUserId: 'x', externalUserId: 'y' });
    expect([tenant.status, tenant.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
  });
});

describe('POST /recipe/userid/map/remove and PUT /recipe/userid/external-user-id-info', () => {
  it('removes a mapping (didMappingExist), after which the login method answers by its own id again', async () => {
    const id = await al.emailPassword();
    const x = ext();
    await map(id, x);
    expect((await api.post('/recipe/userid/map/remove', { userId: x })).json).toEqual({ status: 'OK', didMappingExist: true });
    expect((await api.post('/recipe/userid/map/remove', { userId: x })).json).toEqual({ status: 'OK', didMappingExist: false });
    expect(await al.user(x)).toBeUndefined();
    expect((await al.user(id)).id).toBe(id);
    // The external id is free again.
    expect((await map(id, x)).json).toEqual({ status: 'OK' });
    expect((await api.post('/recipe/userid/map/remove', { userId: id, userIdType: 'EXTERNAL' })).json).toEqual({ status: 'OK', didMappingExist: false });
    expect((await api.post('/recipe/userid/map/remove', { userId: id, userIdType: 'SUPERTOKENS' })).json).toEqual({ status: 'OK', didMappingExist: true });
  });

  it('refuses to remove a mapping while the app keeps metadata under the external id, unless forced', async () => {
    const id = await al.emailPassword();
    const x = ext();
    await map(id, x);
    await api.put('/recipe/user/metadata', { userId: x, metadataUpdate: { a: 1 } });
    const res = await api.post('/recipe/userid/map/remove', { userId: x });
    expect([res.status, res.text]).toEqual([400, 'UserId is already in use in UserMetadata recipe']);
    const role = `kept-${Date.now().toString(36)}`;
    await api.put('/recipe/role', { role });
    await api.put('/recipe/user/role', { userId: x, role });
    expect((await api.post('/recipe/userid/map/remove', { userId: x, force: true })).json).toEqual({ status: 'OK', didMappingExist: true });
    // As the core: the mapping goes, nothing kept under the external id is deleted or re-keyed.
    expect(await getMap(id)).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
    expect([await metadataOf(x), await rolesOf(x)]).toEqual([{ a: 1 }, [role]]);
    expect([await metadataOf(id), await rolesOf(id)]).toEqual([{}, []]);
    // So a later mapping to that external id finds them (the docs warn of it).
    const next = await al.emailPassword();
    expect((await map(next, x)).json).toEqual({ status: 'OK' });
    expect([await metadataOf(x), await rolesOf(x)]).toEqual([{ a: 1 }, [role]]);
  });

  it('keeps the data of a user another user was force-mapped to, when that mapping or that user goes; and the reverse', async () => {
    const role = `held-${Date.now().toString(36)}`;
    await api.put('/recipe/role', { role });
    const [a, b] = [await al.emailPassword(), await al.emailPassword()];
    await api.put('/recipe/user/metadata', { userId: b, metadataUpdate: { owner: 'b' } });
    await api.put('/recipe/user/role', { userId: b, role });
    const bKeeps = async () => expect([await metadataOf(b), await rolesOf(b), (await al.user(b))?.id]).toEqual([{ owner: 'b' }, [role], b]);
    expect((await map(a, b, { force: true })).json).toEqual({ status: 'OK' });
    // A plain unmap: the external id is a SuperTokens id, so the core's check is skipped.
    expect((await api.post('/recipe/userid/map/remove', { userId: a, userIdType: 'SUPERTOKENS' })).json).toEqual({ status: 'OK', didMappingExist: true });
    await bKeeps();
    expect((await map(a, b, { force: true })).json).toEqual({ status: 'OK' });
    expect((await api.post('/recipe/userid/map/remove', { userId: a, userIdType: 'SUPERTOKENS', force: true })).json).toEqual({
      status: 'OK',
      didMappingExist: true,
    });
    await bKeeps();
    expect((await map(a, b, { force: true })).json).toEqual({ status: 'OK' });
    expect((await al.remove(a)).json).toEqual({ status: 'OK', didUserExist: true });
    await bKeeps();
    // B's own removal takes its data.
    expect((await al.remove(b)).json).toEqual({ status: 'OK', didUserExist: true });
    expect([await metadataOf(b), await rolesOf(b)]).toEqual([{}, []]);

    // The reverse: the user whose id is another's external id goes; the mapped user still answers
    // to the id, so the data stays until that user goes too.
    const [c, d] = [await al.emailPassword(), await al.emailPassword()];
    await api.put('/recipe/user/metadata', { userId: d, metadataUpdate: { owner: 'd' } });
    await api.put('/recipe/user/role', { userId: d, role });
    expect((await map(c, d, { force: true })).json).toEqual({ status: 'OK' });
    expect((await api.post('/user/remove', { userId: d })).json).toEqual({ status: 'OK', didUserExist: true });
    expect([await metadataOf(d), await rolesOf(d), (await al.user(d))?.id]).toEqual([{ owner: 'd' }, [role], d]);
    expect((await al.remove(c)).json).toEqual({ status: 'OK', didUserExist: true });
    expect([await metadataOf(d), await rolesOf(d)]).toEqual([{}, []]);
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('sets and clears the info, and answers UNKNOWN_MAPPING_ERROR without a mapping', async () => {
    const id = await al.emailPassword();
    const x = ext();
    await map(id, x);
    expect((await api.put('/recipe/userid/external-user-id-info', { userId: x, externalUserIdInfo: 'note' })).json).toEqual({ status: 'OK' });
    expect((await getMap(id)).externalUserIdInfo).toBe('note');
    expect((await api.put('/recipe/userid/external-user-id-info', { userId: id, userIdType: 'SUPERTOKENS', externalUserIdInfo: null })).json).toEqual({
      status: 'OK',
    });
    expect((await getMap(id)).externalUserIdInfo).toBeUndefined();
    expect((await api.put('/recipe/userid/external-user-id-info', { userId: 'nobody', externalUserIdInfo: 'x' })).json).toEqual({
      status: 'UNKNOWN_MAPPING_ERROR',
    });
    const missing = await api.put('/recipe/userid/external-user-id-info', { userId: x });
    expect([missing.status, missing.text]).toEqual([400, "Field name 'externalUserIdInfo' is invalid in JSON input"]);
  });
});

describe('bad input and scope of removing a mapping and updating its info', () => {
  it.each([
    ['POST', '/recipe/userid/map/remove', { userId: 5 }, "Field name 'userId' is invalid in JSON input"],
    ['POST', '/recipe/userid/map/remove', { userId: ' ' }, "Field name 'userId' cannot be an empty String"],
    [
      'POST',
      '/recipe/userid/map/remove',
      { userId: 'x', userIdType: 'INTERNAL' },
      "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'",
    ],
    ['POST', '/recipe/userid/map/remove', { userId: 'x', force: 'true' }, "Field name 'force' is invalid in JSON input"],
    ['PUT', '/recipe/userid/external-user-id-info', { userId: 5, externalUserIdInfo: 'a' }, "Field name 'userId' is invalid in JSON input"],
    ['PUT', '/recipe/userid/external-user-id-info', { userId: '', externalUserIdInfo: 'a' }, "Field name 'userId' cannot be an empty String"],
    ['PUT', '/recipe/userid/external-user-id-info', { userId: 'x', externalUserIdInfo: '' }, "Field name 'externalUserIdInfo' cannot be an empty String"],
    ['PUT', '/recipe/userid/external-user-id-info', { userId: 'x', externalUserIdInfo: 5 }, "Field name 'externalUserIdInfo' is invalid in JSON input"],
    [
      'PUT',
      '/recipe/userid/external-user-id-info',
      { userId: 'x', userIdType: 'any', externalUserIdInfo: 'a' },
      "Field name 'userIdType' should be one of 'SUPERTOKENS', 'EXTERNAL' or 'ANY'",
    ],
  ])('%s %s answers 400 for %j', async (method, path, body, text) => {
    const res = await api.request(method, path, { body });
    expect([res.status, res.text]).toEqual([400, text]);
  });

  it('answers 403 under a tenant for reading, removing and updating a mapping (app-wide)', async () => {
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'map-t2' });
    for (const res of [
      await api.get('/map-t2/recipe/userid/map?userId=x'),
      await api.post('/map-t2/recipe/userid/map/remove', { userId: 'x' }),
      await api.put('/map-t2/recipe/userid/external-user-id-info', { userId: 'x', externalUserIdInfo: 'a' }),
    ]) {
      expect([res.status, res.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    }
  });
});

describe("the external id is the user's id to the outside", () => {
  /** A third-party and an email-password login method with one email, each mapped to an external id. */
  async function mappedPair(label: string) {
    const email = uniqueEmail(label);
    const [tp, ep] = [await al.thirdParty(email), await al.emailPassword(email)];
    const [xtp, xep] = [ext('g'), ext('pw')];
    await map(tp, xtp);
    await map(ep, xep);
    return { email, tp, ep, xtp, xep };
  }

  it('still accepts the internal id of a mapped user, and answers with the external id (update, get, account linking)', async () => {
    const { email, tp, ep, xtp, xep } = await mappedPair('int-ep');
    expect((await api.put('/recipe/user', { recipeUserId: ep, password: 'another password 2' })).json).toEqual({ status: 'OK' });
    expect((await al.signIn(email, 'another password 2')).json.user.id).toBe(xep);
    const got = (await api.get(`/recipe/user?userId=${encodeURIComponent(ep)}`, { rid: 'emailpassword' })).json;
    expect(got).toEqual({ status: 'OK', user: await al.user(xep) });
    expect([got.user.id, got.user.loginMethods[0].recipeUserId]).toEqual([xep, xep]);
    const primary = (await al.createPrimary(tp)).json;
    expect([primary.status, primary.user.id]).toEqual(['OK', xtp]);
    const linked = (await al.link(ep, tp)).json;
    expect([linked.status, linked.user.id, linked.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)]).toEqual(['OK', xtp, [xtp, xep]]);
    expect((await al.unlink(ep)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await al.user(ep)).id).toBe(xep);
  });

  it('updates a passwordless login method named by its external id (rid passwordless)', async () => {
    const pl = await al.passwordless({ email: uniqueEmail('ext-pl') });
    const z = ext('pl');
    await map(pl, z);
    const phoneNumber = '+14155550177';
    expect((await api.put('/recipe/user', { recipeUserId: z, phoneNumber }, { rid: 'passwordless' })).json).toEqual({ status: 'OK' });
    const user = await al.user(z);
    expect([user.id, user.phoneNumbers, user.loginMethods[0].recipeUserId]).toEqual([z, [phoneNumber], z]);
    expect(await al.user(pl)).toEqual(user);
  });

  it('answers and accepts it everywhere: get, sign-in, third-party sign-in, consume, by-accountinfo, lists, update, remove', async () => {
    const email = uniqueEmail('ext-ep');
    const ep = await al.emailPassword(email);
    const x = ext();
    await map(ep, x);
    const user = await al.user(x);
    expect([user.id, user.loginMethods[0].recipeUserId]).toEqual([x, x]);
    expect(await al.user(ep)).toEqual(user);
    const signIn = (await al.signIn(email)).json;
    expect([signIn.user.id, signIn.recipeUserId]).toEqual([x, x]);
    expect((await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`)).json.users).toEqual([user]);
    expect((await api.get(`/recipe/user?userId=${encodeURIComponent(x)}`, { rid: 'emailpassword' })).json.user.id).toBe(x);
    expect((await api.put('/recipe/user', { recipeUserId: x, password: 'a new password 1' })).json).toEqual({ status: 'OK' });
    expect((await al.signIn(email, 'a new password 1')).json.user.id).toBe(x);

    const identity = { thirdPartyId: 'google', thirdPartyUserId: `ext-${Date.now()}` };
    const tp = await al.thirdParty(uniqueEmail('ext-tp'), undefined, identity);
    const y = ext('auth0');
    await map(tp, y);
    const again = (await api.post('/recipe/signinup', { ...identity, email: { id: uniqueEmail('ext-tp'), isVerified: true } })).json;
    expect([again.user.id, again.recipeUserId, again.createdNewUser]).toEqual([y, y, false]);

    const phoneNumber = '+14155550123';
    const pl = await al.passwordless({ phoneNumber });
    const z = ext('phone');
    await map(pl, z);
    const consumed = await passwordlessSignIn(api, { phoneNumber });
    expect([consumed.user.id, consumed.recipeUserId]).toEqual([z, z]);
    const listed = (await api.get('/users?limit=500')).json.users.map((u: { id: string }) => u.id);
    expect(listed).toEqual(expect.arrayContaining([x, y, z]));
    expect(listed).not.toContain(ep);

    // Removing by the external id removes the user and its mapping; the external id is free again.
    expect((await al.remove(x)).json).toEqual({ status: 'OK', didUserExist: true });
    expect(await getMap(x)).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
    const fresh = await al.emailPassword();
    expect((await map(fresh, x)).json).toEqual({ status: 'OK' });
  });

  it('names linked login methods and primary users by their external ids, in answers and in account-linking calls', async () => {
    const { email, xtp, xep } = await mappedPair('ext-linked');
    expect((await al.createPrimary(xtp)).json.user.id).toBe(xtp);
    const linked = (await al.link(xep, xtp)).json;
    expect([linked.status, linked.user.id, linked.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)]).toEqual(['OK', xtp, [xtp, xep]]);
    expect((await al.createPrimary(xep)).json).toEqual(
      expect.objectContaining({ status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR', primaryUserId: xtp }),
    );
    // Another login method with the email: the conflict names the primary user by its external id.
    const rival = await al.passwordless({ email });
    expect((await al.createPrimary(rival)).json).toEqual(expect.objectContaining({ primaryUserId: xtp }));
    const signIn = (await al.signIn(email)).json;
    expect([signIn.user.id, signIn.recipeUserId]).toEqual([xtp, xep]);
    expect((await al.unlink(xep)).json).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await al.user(xep)).id).toBe(xep);
  });

  it('removes the metadata kept under the external id with the user', async () => {
    const id = await al.emailPassword();
    const x = ext();
    await map(id, x);
    await api.put('/recipe/user/metadata', { userId: x, metadataUpdate: { plan: 'pro' } });
    await al.remove(id);
    expect((await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(x)}`)).json.metadata).toEqual({});
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('reads a login method in tenants by its external id too (sign-in with the imported hash)', async () => {
    const email = uniqueEmail('ext-hash');
    const imported = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: BCRYPT.hash });
    const x = ext();
    await map(imported.json.user.id, x);
    const again = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: BCRYPT.hash });
    expect([again.json.didUserAlreadyExist, again.json.user.id]).toEqual([true, x]);
  });
});
