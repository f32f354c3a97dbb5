import supertokens from 'supertokens-node';
import type { TypeInput } from 'supertokens-node/types';
import AccountLinking from 'supertokens-node/recipe/accountlinking';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import EmailVerification from 'supertokens-node/recipe/emailverification';
import Multitenancy from 'supertokens-node/recipe/multitenancy';
import Session from 'supertokens-node/recipe/session';
import JWT from 'supertokens-node/recipe/jwt';
import Passwordless from 'supertokens-node/recipe/passwordless';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import UserMetadata from 'supertokens-node/recipe/usermetadata';
import UserRoles from 'supertokens-node/recipe/userroles';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { uniqueEmail, uniquePhone } from '../support/flows';
import { pastTenantCache } from '../support/tenant-cache';

/**
 * The official SuperTokens backend SDK (supertokens-node 24, CDI 5.4) uses the local service as
 * its core. Every call below goes through the SDK only; the assertions read its results.
 * `supertokens.init` is global per process; jest gives each test file its own module registry.
 */
let api: TestApi;
/** Every request the SDK sent: method and path (what SPEC §9 calls the conformance set). */
const sent: string[] = [];

/** The `supertokens` part of `init`: the local service as the core, every request recorded in `sent`. */
const coreOf = (baseUrl: string): TypeInput['supertokens'] => ({
  connectionURI: baseUrl,
  apiKey: TEST_API_KEY,
  networkInterceptor: (request) => {
    sent.push(`${request.method.toUpperCase()} ${new URL(request.url).pathname}`);
    return request;
  },
});
const appInfo = (appName: string) => ({ appName, apiDomain: 'http://api.example.test', websiteDomain: 'http://app.example.test' });

beforeAll(async () => {
  api = await startApi();
  supertokens.init({
    supertokens: coreOf(api.baseUrl),
    appInfo: appInfo('sdk-conformance'),
    recipeList: [
      Passwordless.init({ contactMethod: 'EMAIL_OR_PHONE', flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK' }),
      ThirdParty.init({ signInAndUpFeature: { providers: [] } }),
      EmailPassword.init(),
      // Automatic linking off (the SDK's default): the app links with the AccountLinking functions.
      AccountLinking.init(),
      UserMetadata.init(),
      EmailVerification.init({ mode: 'OPTIONAL' }),
      UserRoles.init(),
      Session.init(),
    ],
  });
});
afterAll(() => api.stop());

describe('supertokens-node 24 against the local service', () => {
  it("reads and sets a tenant's login configuration with Multitenancy.getTenant / createOrUpdateTenant", async () => {
    const tenantId = 'sdk-cfg';
    expect(await Multitenancy.createOrUpdateTenant(tenantId, { firstFactors: ['emailpassword', 'thirdparty'] })).toEqual({ status: 'OK', createdNew: true });
    const tenant = await Multitenancy.getTenant(tenantId);
    expect([tenant?.status, tenant?.firstFactors, tenant?.thirdParty.providers]).toEqual(['OK', ['emailpassword', 'thirdparty'], []]);
    expect((await Multitenancy.getTenant('public'))?.firstFactors).toBeUndefined();
    // An unknown tenant: the SDK answers undefined (the core's TENANT_NOT_FOUND_ERROR).
    expect(await Multitenancy.getTenant('sdk-cfg-nobody')).toBeUndefined();
  });

  it("sets the public tenant's required secondary factors with createOrUpdateTenant('public'), which getTenant answers within 5 s (SPEC §20)", async () => {
    // Read once first: the GET's function now keeps public as it was, for up to 5 s.
    expect((await Multitenancy.getTenant('public'))?.requiredSecondaryFactors).toBeUndefined();
    const since = Date.now();
    expect(await Multitenancy.createOrUpdateTenant('public', { requiredSecondaryFactors: ['totp'] })).toEqual({ status: 'OK', createdNew: false });
    await pastTenantCache(since);
    const tenant = await Multitenancy.getTenant('public');
    expect([tenant?.status, tenant?.requiredSecondaryFactors, tenant?.firstFactors]).toEqual(['OK', ['totp'], undefined]);
    // Cleared again (null): the rest of this suite signs in without a second factor (no MultiFactorAuth here anyway).
    expect(await Multitenancy.createOrUpdateTenant('public', { requiredSecondaryFactors: null })).toEqual({ status: 'OK', createdNew: false });
  });

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
    const bad = await Passwordless.consumeCode({
      tenantId: 'public',
      preAuthSessionId: wrong.preAuthSessionId,
      deviceId: wrong.deviceId,
      userInputCode: 'nope',
    });
    expect(bad).toEqual({ status: 'INCORRECT_USER_INPUT_CODE_ERROR', failedCodeInputAttemptCount: 1, maximumCodeInputAttempts: 5 });
  });

  it('lists and revokes codes with Passwordless.listCodesBy*, revokeCode and revokeAllCodes', async () => {
    const email = uniqueEmail('sdk-codes');
    const code = await Passwordless.createCode({ tenantId: 'public', email });
    if (code.status !== 'OK') throw new Error(code.status);
    const resent = await Passwordless.createNewCodeForDevice({ tenantId: 'public', deviceId: code.deviceId });
    if (resent.status !== 'OK') throw new Error(resent.status);
    const device = {
      preAuthSessionId: code.preAuthSessionId,
      failedCodeInputAttemptCount: 0,
      email,
      codes: [code, resent].map((c) => ({ codeId: c.codeId, timeCreated: c.timeCreated, codeLifetime: c.codeLifetime })),
    };
    expect(await Passwordless.listCodesByEmail({ tenantId: 'public', email: email.toUpperCase() })).toEqual([device]);
    expect(await Passwordless.listCodesByDeviceId({ tenantId: 'public', deviceId: code.deviceId })).toEqual(device);
    expect(await Passwordless.listCodesByPreAuthSessionId({ tenantId: 'public', preAuthSessionId: code.preAuthSessionId })).toEqual(device);
    expect(await Passwordless.listCodesByPreAuthSessionId({ tenantId: 'public', preAuthSessionId: 'A'.repeat(43) })).toBeUndefined();

    expect(await Passwordless.revokeCode({ tenantId: 'public', codeId: code.codeId })).toEqual({ status: 'OK' });
    expect(await Passwordless.listCodesByDeviceId({ tenantId: 'public', deviceId: code.deviceId })).toEqual({ ...device, codes: [device.codes[1]] });
    const gone = await Passwordless.consumeCode({ tenantId: 'public', preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode });
    expect(gone.status).toBe('RESTART_FLOW_ERROR');
    expect(await Passwordless.revokeCode({ tenantId: 'public', preAuthSessionId: code.preAuthSessionId })).toEqual({ status: 'OK' });
    expect(await Passwordless.listCodesByEmail({ tenantId: 'public', email })).toEqual([]);

    const phoneNumber = '+1 650 555 0177';
    const byPhone = await Passwordless.createCode({ tenantId: 'public', phoneNumber });
    if (byPhone.status !== 'OK') throw new Error(byPhone.status);
    expect((await Passwordless.listCodesByPhoneNumber({ tenantId: 'public', phoneNumber })).map((d) => d.phoneNumber)).toEqual(['+16505550177']);
    expect(await Passwordless.revokeAllCodes({ tenantId: 'public', phoneNumber })).toEqual({ status: 'OK' });
    expect(await Passwordless.listCodesByPhoneNumber({ tenantId: 'public', phoneNumber })).toEqual([]);
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

    const unknown = await Passwordless.updateUser({
      recipeUserId: supertokens.convertToRecipeUserId('00000000-0000-4000-8000-000000000000'),
      phoneNumber: uniquePhone(),
    });
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

  it("surfaces a 400 as an SDK error carrying the service's sentence", async () => {
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
    // The SDK's email-exists check of something that is no address: no user (the core's), not a throw.
    expect(await supertokens.listUsersByAccountInfo('public', { email: 'random' })).toEqual([]);
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

  it('links, checks, signs in through and unlinks accounts with AccountLinking (automatic linking off)', async () => {
    const email = uniqueEmail('sdk-al');
    const ep = await EmailPassword.signUp('public', email, 'a password 12345');
    const tpUserId = `sdk-al-${Date.now()}`;
    const tp = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', tpUserId, email, true);
    const phoneNumber = uniquePhone();
    const plCode = await Passwordless.createCode({ tenantId: 'public', phoneNumber });
    if (ep.status !== 'OK' || tp.status !== 'OK' || plCode.status !== 'OK') throw new Error('setup failed');
    const pl = await Passwordless.consumeCode({ tenantId: 'public', preAuthSessionId: plCode.preAuthSessionId, linkCode: plCode.linkCode });
    if (pl.status !== 'OK') throw new Error(pl.status);
    // Linking is off: sign-up never linked anything.
    expect([ep.user.isPrimaryUser, tp.user.isPrimaryUser, pl.user.isPrimaryUser]).toEqual([false, false, false]);

    expect(await AccountLinking.canCreatePrimaryUser(ep.recipeUserId)).toEqual({ status: 'OK', wasAlreadyAPrimaryUser: false });
    const primary = await AccountLinking.createPrimaryUser(ep.recipeUserId);
    expect(primary.status === 'OK' && [primary.wasAlreadyAPrimaryUser, primary.user.isPrimaryUser, primary.user.id]).toEqual([false, true, ep.user.id]);
    expect(await AccountLinking.canLinkAccounts(tp.recipeUserId, ep.user.id)).toEqual({ status: 'OK', accountsAlreadyLinked: false });
    const linked = await AccountLinking.linkAccounts(tp.recipeUserId, ep.user.id);
    expect(linked.status === 'OK' && [linked.accountsAlreadyLinked, linked.user.loginMethods.length]).toEqual([false, 2]);
    const linkedPl = await AccountLinking.linkAccounts(pl.recipeUserId, ep.user.id);
    expect(linkedPl.status).toBe('OK');

    const user = await supertokens.getUser(tp.user.id);
    expect(user?.id).toBe(ep.user.id);
    expect(user?.isPrimaryUser).toBe(true);
    expect(user?.loginMethods.map((lm) => lm.recipeUserId.getAsString())).toEqual(
      [ep.recipeUserId, tp.recipeUserId, pl.recipeUserId].map((r) => r.getAsString()),
    );
    expect([user?.emails, user?.phoneNumbers, user?.thirdParty]).toEqual([[email], [phoneNumber], [{ id: 'google', userId: tpUserId }]]);
    expect(await AccountLinking.canCreatePrimaryUser(tp.recipeUserId)).toEqual({
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
      primaryUserId: ep.user.id,
      description: 'This user ID is already linked to another user ID',
    });

    // Each recipe signs the linked user in as the primary user, naming the login method used.
    const epIn = await EmailPassword.signIn('public', email, 'a password 12345');
    expect(epIn.status === 'OK' && [epIn.user.id, epIn.recipeUserId.getAsString()]).toEqual([ep.user.id, ep.recipeUserId.getAsString()]);
    const tpIn = await ThirdParty.manuallyCreateOrUpdateUser('public', 'google', tpUserId, email, true);
    expect(tpIn.status === 'OK' && [tpIn.createdNewRecipeUser, tpIn.user.id, tpIn.recipeUserId.getAsString()]).toEqual([
      false,
      ep.user.id,
      tp.recipeUserId.getAsString(),
    ]);
    const again = await Passwordless.createCode({ tenantId: 'public', phoneNumber });
    if (again.status !== 'OK') throw new Error(again.status);
    const plIn = await Passwordless.consumeCode({ tenantId: 'public', preAuthSessionId: again.preAuthSessionId, linkCode: again.linkCode });
    expect(plIn.status === 'OK' && [plIn.createdNewRecipeUser, plIn.user.id, plIn.recipeUserId.getAsString()]).toEqual([
      false,
      ep.user.id,
      pl.recipeUserId.getAsString(),
    ]);
    expect((await supertokens.listUsersByAccountInfo('public', { email })).map((u) => u.id)).toEqual([ep.user.id]);

    // Another primary user with the email cannot be made.
    const rival = await Passwordless.createCode({ tenantId: 'public', email });
    if (rival.status !== 'OK') throw new Error(rival.status);
    const rivalUser = await Passwordless.consumeCode({ tenantId: 'public', preAuthSessionId: rival.preAuthSessionId, linkCode: rival.linkCode });
    if (rivalUser.status !== 'OK') throw new Error(rivalUser.status);
    expect(await AccountLinking.createPrimaryUser(rivalUser.recipeUserId)).toEqual({
      status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: ep.user.id,
      description: "This user's email is already associated with another user ID",
    });
    expect(await AccountLinking.canLinkAccounts(rivalUser.recipeUserId, ep.user.id)).toEqual({ status: 'OK', accountsAlreadyLinked: false });

    expect(await AccountLinking.unlinkAccount(pl.recipeUserId)).toEqual({ status: 'OK', wasRecipeUserDeleted: false, wasLinked: true });
    expect((await supertokens.getUser(pl.user.id))?.isPrimaryUser).toBe(false);

    // deleteUser without removeAllLinkedAccounts takes one login method; with it (the default), the rest.
    expect(await supertokens.deleteUser(tp.user.id, false)).toEqual({ status: 'OK', didUserExist: true });
    expect((await supertokens.getUser(ep.user.id))?.loginMethods.map((lm) => lm.recipeId)).toEqual(['emailpassword']);
    expect(await supertokens.deleteUser(ep.user.id)).toEqual({ status: 'OK', didUserExist: true });
    expect(await supertokens.getUser(ep.user.id)).toBeUndefined();
    expect((await supertokens.getUser(pl.user.id))?.id).toBe(pl.user.id);
  });

  it('links automatically when the app turns automatic linking on (a second SDK instance)', async () => {
    type Sdk = {
      supertokens: typeof supertokens;
      AccountLinking: typeof AccountLinking;
      EmailPassword: typeof EmailPassword;
      Passwordless: typeof Passwordless;
      ThirdParty: typeof ThirdParty;
    };
    let sdk: Sdk | undefined;
    // A fresh module registry: the SDK's recipes are process-wide singletons, initialised once per
    // registry. `init` runs inside it too, because it loads further recipes (JWT, sessions) lazily.
    jest.isolateModules(() => {
      const fresh: Sdk = {
        supertokens: require('supertokens-node'),
        AccountLinking: require('supertokens-node/recipe/accountlinking'),
        EmailPassword: require('supertokens-node/recipe/emailpassword'),
        Passwordless: require('supertokens-node/recipe/passwordless'),
        ThirdParty: require('supertokens-node/recipe/thirdparty'),
      };
      fresh.supertokens.init({
        supertokens: coreOf(api.baseUrl),
        appInfo: appInfo('sdk-auto-linking'),
        recipeList: [
          fresh.Passwordless.init({ contactMethod: 'EMAIL_OR_PHONE', flowType: 'USER_INPUT_CODE_AND_MAGIC_LINK' }),
          fresh.ThirdParty.init({ signInAndUpFeature: { providers: [] } }),
          fresh.EmailPassword.init(),
          fresh.AccountLinking.init({ shouldDoAutomaticAccountLinking: async () => ({ shouldAutomaticallyLink: true, shouldRequireVerification: false }) }),
        ],
      });
      sdk = fresh;
    });
    if (!sdk) throw new Error('the SDK did not load');
    const auto: Sdk = sdk;

    const email = uniqueEmail('sdk-auto');
    const tp = await auto.ThirdParty.manuallyCreateOrUpdateUser('public', 'github', `auto-${Date.now()}`, email, true);
    if (tp.status !== 'OK') throw new Error(tp.status);
    expect(tp.user.isPrimaryUser).toBe(true);
    const ep = await auto.EmailPassword.signUp('public', email, 'a password 12345');
    if (ep.status !== 'OK') throw new Error(ep.status);
    expect([ep.user.id, ep.user.loginMethods.length, ep.recipeUserId.getAsString() === tp.user.id]).toEqual([tp.user.id, 2, false]);
    const code = await auto.Passwordless.createCode({ tenantId: 'public', email });
    if (code.status !== 'OK') throw new Error(code.status);
    const pl = await auto.Passwordless.consumeCode({ tenantId: 'public', preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode });
    if (pl.status !== 'OK') throw new Error(pl.status);
    expect([pl.user.id, pl.user.loginMethods.map((lm) => lm.recipeId)]).toEqual([tp.user.id, ['thirdparty', 'emailpassword', 'passwordless']]);
    const signIn = await auto.EmailPassword.signIn('public', email, 'a password 12345');
    expect(signIn.status === 'OK' && [signIn.user.id, signIn.recipeUserId.getAsString()]).toEqual([tp.user.id, ep.recipeUserId.getAsString()]);

    expect(await auto.supertokens.deleteUser(ep.recipeUserId.getAsString())).toEqual({ status: 'OK', didUserExist: true });
    for (const id of [tp.user.id, ep.recipeUserId.getAsString(), pl.recipeUserId.getAsString()]) expect(await auto.supertokens.getUser(id)).toBeUndefined();
  });

  it('reads, merges and clears user metadata with UserMetadata', async () => {
    const signUp = await EmailPassword.signUp('public', uniqueEmail('sdk-meta'), 'a password 12345');
    if (signUp.status !== 'OK') throw new Error(signUp.status);
    const userId = signUp.user.id;
    expect(await UserMetadata.getUserMetadata(userId)).toEqual({ status: 'OK', metadata: {} });
    expect(await UserMetadata.updateUserMetadata(userId, { plan: 'pro', profile: { city: 'Oslo' } })).toEqual({
      status: 'OK',
      metadata: { plan: 'pro', profile: { city: 'Oslo' } },
    });
    expect(await UserMetadata.updateUserMetadata(userId, { plan: null, tier: 2 })).toEqual({ status: 'OK', metadata: { profile: { city: 'Oslo' }, tier: 2 } });
    expect(await UserMetadata.getUserMetadata(userId)).toEqual({ status: 'OK', metadata: { profile: { city: 'Oslo' }, tier: 2 } });
    expect(await UserMetadata.clearUserMetadata(userId)).toEqual({ status: 'OK' });
    expect(await UserMetadata.getUserMetadata(userId)).toEqual({ status: 'OK', metadata: {} });
  });

  it('maps a user to its old provider id, signs it in under that id, and updates and deletes the mapping', async () => {
    const email = uniqueEmail('sdk-map');
    const signUp = await EmailPassword.signUp('public', email, 'a password 12345');
    if (signUp.status !== 'OK') throw new Error(signUp.status);
    const superTokensUserId = signUp.user.id;
    const externalUserId = `firebase-uid-${Date.now()}`;
    expect(await supertokens.createUserIdMapping({ superTokensUserId, externalUserId, externalUserIdInfo: 'imported' })).toEqual({ status: 'OK' });
    expect(await supertokens.createUserIdMapping({ superTokensUserId, externalUserId })).toEqual({
      status: 'USER_ID_MAPPING_ALREADY_EXISTS_ERROR',
      doesSuperTokensUserIdExist: true,
      doesExternalUserIdExist: true,
    });
    expect(await supertokens.getUserIdMapping({ userId: externalUserId, userIdType: 'EXTERNAL' })).toEqual({
      status: 'OK',
      superTokensUserId,
      externalUserId,
      externalUserIdInfo: 'imported',
    });
    // The app keeps using the old id: sign-in and getUser answer it.
    const signIn = await EmailPassword.signIn('public', email, 'a password 12345');
    expect(signIn.status === 'OK' && [signIn.user.id, signIn.recipeUserId.getAsString()]).toEqual([externalUserId, externalUserId]);
    expect((await supertokens.getUser(externalUserId))?.id).toBe(externalUserId);
    expect(await supertokens.updateOrDeleteUserIdMappingInfo({ userId: externalUserId, externalUserIdInfo: 'checked' })).toEqual({ status: 'OK' });
    expect(await supertokens.getUserIdMapping({ userId: superTokensUserId })).toEqual(expect.objectContaining({ externalUserIdInfo: 'checked' }));
    expect(await supertokens.updateOrDeleteUserIdMappingInfo({ userId: externalUserId })).toEqual({ status: 'OK' });
    expect(await supertokens.getUserIdMapping({ userId: superTokensUserId })).toEqual({ status: 'OK', superTokensUserId, externalUserId });
    expect(await supertokens.deleteUserIdMapping({ userId: externalUserId })).toEqual({ status: 'OK', didMappingExist: true });
    expect(await supertokens.getUserIdMapping({ userId: externalUserId })).toEqual({ status: 'UNKNOWN_MAPPING_ERROR' });
    expect((await supertokens.getUser(superTokensUserId))?.id).toBe(superTokensUserId);
  });

  it('verifies an email with EmailVerification: token, verify, check, revoke, unverify', async () => {
    const email = uniqueEmail('sdk-ev');
    const signUp = await EmailPassword.signUp('public', email, 'a password 12345');
    if (signUp.status !== 'OK') throw new Error(signUp.status);
    const { recipeUserId } = signUp;
    expect(await EmailVerification.isEmailVerified(recipeUserId)).toBe(false);
    const created = await EmailVerification.createEmailVerificationToken('public', recipeUserId);
    if (created.status !== 'OK') throw new Error(created.status);
    const verified = await EmailVerification.verifyEmailUsingToken('public', created.token, false);
    expect(verified.status === 'OK' && [verified.user.recipeUserId.getAsString(), verified.user.email]).toEqual([recipeUserId.getAsString(), email]);
    expect(await EmailVerification.isEmailVerified(recipeUserId, email)).toBe(true);
    expect((await supertokens.getUser(recipeUserId.getAsString()))?.loginMethods[0].verified).toBe(true);
    expect(await EmailVerification.createEmailVerificationToken('public', recipeUserId)).toEqual({ status: 'EMAIL_ALREADY_VERIFIED_ERROR' });
    expect(await EmailVerification.verifyEmailUsingToken('public', created.token, false)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
    expect(await EmailVerification.unverifyEmail(recipeUserId)).toEqual({ status: 'OK' });
    expect(await EmailVerification.isEmailVerified(recipeUserId)).toBe(false);
    const again = await EmailVerification.createEmailVerificationToken('public', recipeUserId);
    if (again.status !== 'OK') throw new Error(again.status);
    expect(await EmailVerification.revokeEmailVerificationTokens('public', recipeUserId)).toEqual({ status: 'OK' });
    expect(await EmailVerification.verifyEmailUsingToken('public', again.token, false)).toEqual({ status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' });
  });

  it('manages roles and permissions, and gives them to users per tenant, with UserRoles', async () => {
    const role = `sdk-role-${Date.now()}`;
    expect(await UserRoles.createNewRoleOrAddPermissions(role, ['read'])).toEqual({ status: 'OK', createdNewRole: true });
    expect(await UserRoles.createNewRoleOrAddPermissions(role, ['write'])).toEqual({ status: 'OK', createdNewRole: false });
    const perms = await UserRoles.getPermissionsForRole(role);
    expect(perms.status === 'OK' && perms.permissions.sort()).toEqual(['read', 'write']);
    expect(await UserRoles.getRolesThatHavePermission('write')).toEqual({ status: 'OK', roles: expect.arrayContaining([role]) });
    expect((await UserRoles.getAllRoles()).roles).toContain(role);
    expect(await UserRoles.removePermissionsFromRole(role, ['read'])).toEqual({ status: 'OK' });
    expect(await UserRoles.getPermissionsForRole(role)).toEqual({ status: 'OK', permissions: ['write'] });

    const signUp = await EmailPassword.signUp('public', uniqueEmail('sdk-roles'), 'a password 12345');
    if (signUp.status !== 'OK') throw new Error(signUp.status);
    const userId = signUp.user.id;
    expect(await UserRoles.addRoleToUser('public', userId, role)).toEqual({ status: 'OK', didUserAlreadyHaveRole: false });
    expect(await UserRoles.getRolesForUser('public', userId)).toEqual({ status: 'OK', roles: [role] });
    expect(await UserRoles.getUsersThatHaveRole('public', role)).toEqual({ status: 'OK', users: [userId] });
    expect(await UserRoles.removeUserRole('public', userId, role)).toEqual({ status: 'OK', didUserHaveRole: true });
    expect(await UserRoles.addRoleToUser('public', userId, 'no-such-role')).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    await UserRoles.addRoleToUser('public', userId, role);
    expect(await UserRoles.deleteRole(role)).toEqual({ status: 'OK', didRoleExist: true });
    expect(await UserRoles.getRolesForUser('public', userId)).toEqual({ status: 'OK', roles: [] });
  });

  it('creates, verifies, refreshes, merges, reads, revokes sessions and signs JWTs with Session and JWT (SPEC §18)', async () => {
    const email = uniqueEmail('sdk-session');
    const signedUp = await EmailPassword.signUp('public', email, 'password-123');
    if (signedUp.status !== 'OK') throw new Error(signedUp.status);
    const userId = signedUp.user.id;
    const session = await Session.createNewSessionWithoutRequestResponse('public', signedUp.recipeUserId, { plan: 'free' }, { cart: 2 });
    expect([session.getUserId(), session.getRecipeUserId().getAsString(), session.getTenantId()]).toEqual([userId, userId, 'public']);
    const first = session.getAllSessionTokensDangerously();
    expect(first.refreshToken).toMatch(/\.V2$/);

    // The SDK verifies a fresh token itself, against the JWKS it fetched from the service.
    const verified = await Session.getSessionWithoutRequestResponse(first.accessToken);
    expect([verified.getHandle(), verified.getAccessTokenPayload().plan]).toEqual([session.getHandle(), 'free']);
    await verified.mergeIntoAccessTokenPayload({ seen: true });
    expect(verified.getAccessTokenPayload()).toMatchObject({ plan: 'free', seen: true });

    const refreshed = await Session.refreshSessionWithoutRequestResponse(first.refreshToken!, true);
    const second = refreshed.getAllSessionTokensDangerously();
    expect(refreshed.getAccessTokenPayload()).toMatchObject({ plan: 'free', seen: true });
    // The first use of the refreshed token asks the service, which promotes it: a new access token.
    const promoted = await Session.getSessionWithoutRequestResponse(second.accessToken!);
    expect(promoted.getAllSessionTokensDangerously().accessAndFrontTokenUpdated).toBe(true);

    const info = await Session.getSessionInformation(session.getHandle());
    expect(info).toMatchObject({ sessionHandle: session.getHandle(), userId, sessionDataInDatabase: { cart: 2 }, tenantId: 'public' });
    expect(await Session.updateSessionDataInDatabase(session.getHandle(), { cart: 3 })).toBe(true);
    expect((await Session.getSessionInformation(session.getHandle()))?.sessionDataInDatabase).toEqual({ cart: 3 });
    expect(await Session.mergeIntoAccessTokenPayload(session.getHandle(), { byHandle: 1 })).toBe(true);
    expect(await Session.getAllSessionHandlesForUser(userId)).toEqual([session.getHandle()]);

    // An old refresh token after the promotion is theft; the SDK throws TOKEN_THEFT_DETECTED.
    await expect(Session.refreshSessionWithoutRequestResponse(first.refreshToken!, true)).rejects.toMatchObject({ type: 'TOKEN_THEFT_DETECTED' });
    expect(await Session.revokeSession(session.getHandle())).toBe(true);
    await expect(Session.getSessionWithoutRequestResponse(promoted.getAccessToken(), undefined, { checkDatabase: true })).rejects.toMatchObject({
      type: 'UNAUTHORISED',
    });
    expect(await Session.getSessionInformation(session.getHandle())).toBeUndefined();
    expect(await Session.revokeAllSessionsForUser(userId)).toEqual([]);

    const jwt = await JWT.createJWT({ sub: userId }, 60);
    if (jwt.status !== 'OK') throw new Error(jwt.status);
    expect(JSON.parse(Buffer.from(jwt.jwt.split('.')[1], 'base64url').toString())).toMatchObject({ sub: userId, iss: 'http://api.example.test' });
    const jwks = await JWT.getJWKS();
    expect(jwks.keys.map((k) => k.kid)).toContain(JSON.parse(Buffer.from(jwt.jwt.split('.')[0], 'base64url').toString()).kid);
  });

  it('used only the documented core paths', () => {
    const distinct = [...new Set(sent)].sort();
    expect(distinct).toEqual(
      [
        'GET /apiversion',
        'GET /recipe/accountlinking/user/link/check',
        'GET /recipe/accountlinking/user/primary/check',
        'GET /recipe/user/metadata',
        'GET /recipe/user/email/verify',
        'GET /recipe/roles',
        'GET /recipe/role/permissions',
        'GET /recipe/permission/roles',
        'GET /public/recipe/user/roles',
        'GET /public/recipe/role/users',
        'PUT /recipe/role',
        'POST /recipe/role/permissions/remove',
        'POST /recipe/role/remove',
        'PUT /public/recipe/user/role',
        'POST /public/recipe/user/role/remove',
        'POST /public/recipe/user/email/verify',
        'POST /public/recipe/user/email/verify/token',
        'POST /public/recipe/user/email/verify/token/remove',
        'POST /recipe/user/email/verify/remove',
        'GET /recipe/userid/map',
        'GET /user/id',
        'GET /public/users/by-accountinfo',
        'GET /public/recipe/multitenancy/tenant/v2',
        'GET /sdk-cfg/recipe/multitenancy/tenant/v2',
        'GET /sdk-cfg-nobody/recipe/multitenancy/tenant/v2',
        'PUT /recipe/multitenancy/tenant/v2',
        'GET /public/users/count',
        'GET /sdk-t/users',
        'GET /sdk-t/users/count',
        'POST /public/recipe/signin',
        'POST /public/recipe/signinup',
        'POST /public/recipe/signinup/code',
        'POST /public/recipe/signinup/code/consume',
        'GET /public/recipe/signinup/codes',
        'POST /public/recipe/signinup/code/remove',
        'POST /public/recipe/signinup/codes/remove',
        'POST /public/recipe/signup',
        'POST /sdk-t/recipe/signup',
        'POST /recipe/accountlinking/user/link',
        'POST /recipe/accountlinking/user/primary',
        'POST /recipe/accountlinking/user/unlink',
        'POST /recipe/user/metadata/remove',
        'PUT /recipe/user/metadata',
        'POST /recipe/userid/map',
        'POST /recipe/userid/map/remove',
        'PUT /recipe/userid/external-user-id-info',
        'POST /user/remove',
        'PUT /recipe/user',
        'GET /.well-known/jwks.json',
        'POST /public/recipe/session',
        'POST /recipe/session/verify',
        'POST /recipe/session/refresh',
        'POST /recipe/session/regenerate',
        'POST /recipe/session/remove',
        'GET /recipe/session',
        'GET /recipe/session/user',
        'PUT /recipe/session/data',
        'PUT /recipe/jwt/data',
        'POST /recipe/jwt',
      ].sort(),
    );
  });
});
