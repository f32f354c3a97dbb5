import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Passwordless from 'supertokens-node/recipe/passwordless';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { uniqueEmail, uniquePhone } from '../support/flows';

/**
 * The official SuperTokens backend SDK (supertokens-node 24, CDI 5.4) uses the local service as
 * its core. Every call below goes through the SDK only; the assertions read its results.
 * `supertokens.init` is global per process; jest gives each test file its own module registry.
 */
let api: TestApi;
/** Every request the SDK sent: method and path (what SPEC §9 calls the conformance set). */
const sent: string[] = [];

beforeAll(async () => {
  api = await startApi();
  supertokens.init({
    supertokens: {
      connectionURI: api.baseUrl,
      apiKey: TEST_API_KEY,
      networkInterceptor: (request) => {
        sent.push(`${request.method.toUpperCase()} ${new URL(request.url).pathname}`);
        return request;
      },
    },
    appInfo: { appName: 'sdk-conformance', apiDomain: 'http://api.example.test', websiteDomain: 'http://app.example.test' },
    recipeList: [
      Passwordless.init({ contactMethod: 'EMAIL_OR_PHONE', flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK' }),
      ThirdParty.init({ signInAndUpFeature: { providers: [] } }),
      EmailPassword.init(),
    ],
  });
});
afterAll(() => api.stop());

describe('supertokens-node 24 against the local service', () => {
  it('signs a passwordless user up with createCode + consumeCode (user input code), then in with the magic link code', async () => {
    const email = uniqueEmail('sdk-pl');
    const code = await Passwordless.createCode({ tenantId: 'public', email: email.toUpperCase() });
    expect(code.status).toBe('OK');
    if (code.status !== 'OK') return;
    expect(code).toEqual(
      expect.objectContaining({ preAuthSessionId: expect.any(String), deviceId: expect.any(String), userInputCode: expect.stringMatching(/^\d{6}$/) }),
    );
    const consumed = await Passwordless.consumeCode({
      tenantId: 'public',
      preAuthSessionId: code.preAuthSessionId,
      deviceId: code.deviceId,
      userInputCode: code.userInputCode,
    });
    expect(consumed.status).toBe('OK');
    if (consumed.status !== 'OK') return;
    expect(consumed.createdNewRecipeUser).toBe(true);
    expect(consumed.user.emails).toEqual([email]);
    expect(consumed.user.loginMethods[0].recipeId).toBe('passwordless');
    expect(consumed.user.loginMethods[0].verified).toBe(true);
    expect(consumed.recipeUserId.getAsString()).toBe(consumed.user.id);

    const again = await Passwordless.createCode({ tenantId: 'public', email });
    if (again.status !== 'OK') throw new Error(again.status);
    const byLink = await Passwordless.consumeCode({ tenantId: 'public', preAuthSessionId: again.preAuthSessionId, linkCode: again.linkCode });
    expect(byLink.status === 'OK' && [byLink.createdNewRecipeUser, byLink.user.id]).toEqual([false, consumed.user.id]);

    const wrong = await Passwordless.createCode({ tenantId: 'public', email });
    if (wrong.status !== 'OK') throw new Error(wrong.status);
    const bad = await Passwordless.consumeCode({ tenantId: 'public', preAuthSessionId: wrong.preAuthSessionId, deviceId: wrong.deviceId, userInputCode: 'nope' });
    expect(bad).toEqual({ status: 'INCORRECT_USER_INPUT_CODE_ERROR', failedCodeInputAttemptCount: 1, maximumCodeInputAttempts: 5 });
  });

  it('adds a phone number and changes the email with Passwordless.updateUser', async () => {
    const code = await Passwordless.createCode({ tenantId: 'public', phoneNumber: '+1 650 555 0142' });
    if (code.status !== 'OK') throw new Error(code.status);
    const consumed = await Passwordless.consumeCode({ tenantId: 'public', preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode });
    if (consumed.status !== 'OK') throw new Error(consumed.status);
    expect(consumed.user.phoneNumbers).toEqual(['+16505550142']);

    const email = uniqueEmail('sdk-upd');
    const updated = await Passwordless.updateUser({ recipeUserId: consumed.recipeUserId, email });
    expect(updated).toEqual({ status: 'OK' });
    const phone = uniquePhone();
    expect(await Passwordless.updateUser({ recipeUserId: consumed.recipeUserId, phoneNumber: phone })).toEqual({ status: 'OK' });
    const user = await supertokens.getUser(consumed.user.id);
    expect([user?.emails, user?.phoneNumbers]).toEqual([[email], [phone]]);

    const unknown = await Passwordless.updateUser({ recipeUserId: supertokens.convertToRecipeUserId('00000000-0000-4000-8000-000000000000'), phoneNumber: uniquePhone() });
    expect(unknown).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('creates, signs in and updates a third-party user with ThirdParty.manuallyCreateOrUpdateUser', async () => {
    const thirdPartyUserId = `sdk-${Date.now()}`;
    const email = uniqueEmail('sdk-tp');
    const created = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', thirdPartyUserId, email, false);
    expect(created.status).toBe('OK');
    if (created.status !== 'OK') return;
    expect(created.createdNewRecipeUser).toBe(true);
    expect(created.user.thirdParty).toEqual([{ id: 'google', userId: thirdPartyUserId }]);
    expect(created.user.loginMethods[0].verified).toBe(false);

    const newEmail = uniqueEmail('sdk-tp-new');
    const updated = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', thirdPartyUserId, newEmail, true);
    expect(updated.status).toBe('OK');
    if (updated.status !== 'OK') return;
    expect(updated.createdNewRecipeUser).toBe(false);
    expect(updated.user.id).toBe(created.user.id);
    expect(updated.user.emails).toEqual([newEmail]);
    expect(updated.user.loginMethods[0].verified).toBe(true);
  });

  it('signs an email-password user up and in (right and wrong password) with EmailPassword', async () => {
    const email = uniqueEmail('sdk-ep');
    const signUp = await EmailPassword.signUp('public', email, 'correct horse battery staple');
    expect(signUp.status).toBe('OK');
    if (signUp.status !== 'OK') return;
    expect(signUp.user.emails).toEqual([email]);
    expect(signUp.user.loginMethods[0].recipeId).toBe('emailpassword');
    expect(await EmailPassword.signUp('public', email, 'another password 1')).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });

    const signIn = await EmailPassword.signIn('public', email, 'correct horse battery staple');
    expect(signIn.status === 'OK' && signIn.user.id).toBe(signUp.user.id);
    expect(await EmailPassword.signIn('public', email, 'wrong password')).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
    expect(await EmailPassword.signIn('public', uniqueEmail('nobody'), 'whatever')).toEqual({ status: 'WRONG_CREDENTIALS_ERROR' });
  });

  it('surfaces a 400 as an SDK error carrying the service\'s sentence', async () => {
    await expect(EmailPassword.signUp('public', 'not-an-email', 'a password 12345')).rejects.toThrow(
      "SuperTokens core threw an error for a POST request to path: '/public/recipe/signup' with status code: 400 and message: Field name 'email' is not an email address: it has no '@'",
    );
  });

  it('reads users with getUser and listUsersByAccountInfo', async () => {
    const email = uniqueEmail('sdk-read');
    const ep = await EmailPassword.signUp('public', email, 'a password 12345');
    const tp = await ThirdParty.manuallyCreateOrUpdateUser('public', 'github', `sdk-read-${Date.now()}`, email, true);
    if (ep.status !== 'OK' || tp.status !== 'OK') throw new Error('setup failed');

    const user = await supertokens.getUser(ep.user.id);
    expect(user?.toJson()).toEqual(ep.user.toJson());
    expect(await supertokens.getUser('00000000-0000-4000-8000-000000000000')).toBeUndefined();

    const byEmail = await supertokens.listUsersByAccountInfo('public', { email });
    expect(byEmail.map((u) => u.id).sort()).toEqual([ep.user.id, tp.user.id].sort());
    const byThirdParty = await supertokens.listUsersByAccountInfo('public', { thirdParty: tp.user.thirdParty[0] });
    expect(byThirdParty.map((u) => u.id)).toEqual([tp.user.id]);
    const both = await supertokens.listUsersByAccountInfo('public', { email, thirdParty: tp.user.thirdParty[0] }, false);
    expect(both.map((u) => u.id)).toEqual([tp.user.id]);
    const either = await supertokens.listUsersByAccountInfo('public', { email: uniqueEmail('x'), thirdParty: tp.user.thirdParty[0] }, true);
    expect(either.map((u) => u.id)).toEqual([tp.user.id]);
  });

  it('pages, counts and deletes users with getUsersOldestFirst, getUserCount and deleteUser', async () => {
    await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'sdk-t' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await EmailPassword.signUp('sdk-t', uniqueEmail('sdk-page'), 'a password 12345');
      if (r.status !== 'OK') throw new Error(r.status);
      ids.push(r.user.id);
    }
    const first = await supertokens.getUsersOldestFirst({ tenantId: 'sdk-t', limit: 3 });
    expect(first.users).toHaveLength(3);
    expect(first.nextPaginationToken).toEqual(expect.any(String));
    const second = await supertokens.getUsersOldestFirst({ tenantId: 'sdk-t', limit: 3, paginationToken: first.nextPaginationToken });
    expect(second.nextPaginationToken).toBeUndefined();
    expect([...first.users, ...second.users].map((u) => u.id).sort()).toEqual([...ids].sort());
    const newest = await supertokens.getUsersNewestFirst({ tenantId: 'sdk-t', includeRecipeIds: ['emailpassword'] });
    expect(newest.users.map((u) => u.id)).toEqual([...first.users, ...second.users].map((u) => u.id).reverse());

    expect(await supertokens.getUserCount(undefined, 'sdk-t')).toBe(5);
    expect(await supertokens.getUserCount(['thirdparty'], 'sdk-t')).toBe(0);
    const all = await supertokens.getUserCount();
    expect(all).toBeGreaterThanOrEqual(5);

    expect(await supertokens.deleteUser(ids[0])).toEqual({ status: 'OK', didUserExist: true });
    expect(await supertokens.getUser(ids[0])).toBeUndefined();
    expect(await supertokens.getUserCount(undefined, 'sdk-t')).toBe(4);
  });

  it('used only the documented core paths', () => {
    const distinct = [...new Set(sent)].sort();
    expect(distinct).toEqual(
      [
        'GET /apiversion',
        'GET /user/id',
        'GET /public/users/by-accountinfo',
        'GET /public/users/count',
        'GET /sdk-t/users',
        'GET /sdk-t/users/count',
        'POST /public/recipe/signin',
        'POST /public/recipe/signinup',
        'POST /public/recipe/signinup/code',
        'POST /public/recipe/signinup/code/consume',
        'POST /public/recipe/signup',
        'POST /sdk-t/recipe/signup',
        'POST /user/remove',
        'PUT /recipe/user',
      ].sort(),
    );
  });
});
