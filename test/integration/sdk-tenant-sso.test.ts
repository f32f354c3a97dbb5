import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import supertokens from 'supertokens-node';
import { errorHandler, middleware } from 'supertokens-node/framework/express';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import Multitenancy from 'supertokens-node/recipe/multitenancy';
import Session from 'supertokens-node/recipe/session';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { uniqueEmail } from '../support/flows';
import { startOAuthStandIn, type OAuthStandIn } from '../support/oauth-stand-in';
import { pastTenantCache } from '../support/tenant-cache';

/**
 * SPEC §22 through the unchanged supertokens-node 24: a tenant's third-party providers kept in the
 * core (`Multitenancy.createOrUpdateThirdPartyConfig` …), the SDK finding a provider it has no
 * static config for (`ThirdParty.getProvider`), and a user signing up and in through it (the FDI
 * `POST /auth/<t>/signinup` of an Express app, against a loopback identity provider), in `public`
 * and in another tenant; and the user–tenant association functions.
 */
let api: TestApi;
let idp: OAuthStandIn;
let app: Server;
let appUrl: string;
/** Every core request the SDK sent: `METHOD /path`. */
const sent: string[] = [];

const TENANT = `sso-acme-${Date.now().toString(36)}`;
const SECRETS = { 'public-client': 'public-client-secret-0123456789', 'acme-client': 'acme-client-secret-0123456789' };
/** A tenant's provider at the stand-in, with the client the stand-in knows for it. */
const providerConfig = (thirdPartyId: string, clientId: keyof typeof SECRETS) => ({
  thirdPartyId,
  name: `${thirdPartyId} SSO`,
  clients: [{ clientId, clientSecret: SECRETS[clientId], scope: ['openid', 'email'] }],
  authorizationEndpoint: `${idp.base}/authorize`,
  tokenEndpoint: idp.tokenEndpoint,
  userInfoEndpoint: idp.userInfoEndpoint,
});

beforeAll(async () => {
  api = await startApi();
  idp = await startOAuthStandIn(SECRETS);
  supertokens.init({
    framework: 'express',
    supertokens: {
      connectionURI: api.baseUrl,
      apiKey: TEST_API_KEY,
      networkInterceptor: (request) => {
        sent.push(`${request.method.toUpperCase()} ${new URL(request.url).pathname}`);
        return request;
      },
    },
    appInfo: { appName: 'sdk-tenant-sso', apiDomain: 'http://api.example.test', websiteDomain: 'http://app.example.test', apiBasePath: '/auth' },
    recipeList: [
      // One static provider: a tenant whose core config lists providers offers only those (the SDK's merge).
      ThirdParty.init({
        signInAndUpFeature: { providers: [{ config: { thirdPartyId: 'google', clients: [{ clientId: 'static-google', clientSecret: 'x' }] } }] },
      }),
      EmailPassword.init(),
      Session.init(),
    ],
  });
  const server = express();
  server.use(middleware());
  server.use(errorHandler());
  app = await new Promise<Server>((resolve) => {
    const s = server.listen(0, '127.0.0.1', () => resolve(s));
  });
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  expect(await Multitenancy.createOrUpdateTenant(TENANT, {})).toEqual({ status: 'OK', createdNew: true });
});
afterAll(async () => {
  await new Promise((resolve) => app.close(resolve));
  await idp.stop();
  await api.stop();
});

/** The FDI's third-party sign-in-up of a browser back from the provider with `code`, in header mode. */
async function signInUp(tenantId: string, thirdPartyId: string, code: string) {
  const path = tenantId === 'public' ? '/auth/signinup' : `/auth/${tenantId}/signinup`;
  const res = await fetch(appUrl + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', rid: 'thirdparty', 'st-auth-mode': 'header' },
    body: JSON.stringify({
      thirdPartyId,
      redirectURIInfo: { redirectURIOnProviderDashboard: 'http://app.example.test/auth/callback', redirectURIQueryParams: { code } },
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, accessToken: res.headers.get('st-access-token') };
}

describe("a tenant's providers from the SDK (Multitenancy)", () => {
  it('creates, replaces, reads, lists and deletes providers with createOrUpdateThirdPartyConfig, getTenant, listAllTenants and deleteThirdPartyConfig', async () => {
    expect(await Multitenancy.createOrUpdateThirdPartyConfig(TENANT, providerConfig('okta-acme', 'acme-client'))).toEqual({ status: 'OK', createdNew: true });
    expect(await Multitenancy.createOrUpdateThirdPartyConfig(TENANT, { ...providerConfig('okta-acme', 'acme-client'), name: 'Acme' })).toEqual({
      status: 'OK',
      createdNew: false,
    });
    expect(await Multitenancy.createOrUpdateThirdPartyConfig('public', providerConfig('okta-public', 'public-client'))).toEqual({
      status: 'OK',
      createdNew: true,
    });
    const expected = { ...providerConfig('okta-acme', 'acme-client'), name: 'Acme', userInfoMap: { fromIdTokenPayload: {}, fromUserInfoAPI: {} } };
    const tenant = await Multitenancy.getTenant(TENANT);
    expect([tenant?.status, tenant?.thirdParty.providers]).toEqual(['OK', [expected]]);
    expect((await Multitenancy.getTenant('public'))?.thirdParty.providers.map((p) => p.thirdPartyId)).toEqual(['okta-public']);
    const all = await Multitenancy.listAllTenants();
    expect(all.tenants.find((t) => t.tenantId === TENANT)?.thirdParty.providers).toEqual([expected]);

    // The core's 400, as the SDK throws it; skipValidation lets the core store it.
    await expect(Multitenancy.createOrUpdateThirdPartyConfig(TENANT, { thirdPartyId: 'apple', clients: [{ clientId: 'a' }] })).rejects.toThrow(
      'message: Invalid third party config: a non empty string value must be specified for keyId, teamId and privateKey in the additionalConfig for Apple provider',
    );
    expect(await Multitenancy.createOrUpdateThirdPartyConfig(TENANT, { thirdPartyId: 'apple', clients: [{ clientId: 'a' }] }, true)).toEqual({
      status: 'OK',
      createdNew: true,
    });
    expect(await Multitenancy.deleteThirdPartyConfig(TENANT, 'apple')).toEqual({ status: 'OK', didConfigExist: true });
    expect(await Multitenancy.deleteThirdPartyConfig(TENANT, 'apple')).toEqual({ status: 'OK', didConfigExist: false });
    expect((await Multitenancy.listAllTenants()).tenants.find((t) => t.tenantId === TENANT)?.thirdParty.providers.map((p) => p.thirdPartyId)).toEqual([
      'okta-acme',
    ]);
  });

  it('finds a provider stored only in the core with ThirdParty.getProvider, each tenant its own, and no static provider where the core lists some', async () => {
    const acme = await ThirdParty.getProvider(TENANT, 'okta-acme', undefined);
    expect([acme?.id, acme?.config.clientId, acme?.config.clientSecret, acme?.config.tokenEndpoint]).toEqual([
      'okta-acme',
      'acme-client',
      SECRETS['acme-client'],
      idp.tokenEndpoint,
    ]);
    const pub = await ThirdParty.getProvider('public', 'okta-public', undefined);
    expect([pub?.id, pub?.config.clientId, pub?.config.clientSecret]).toEqual(['okta-public', 'public-client', SECRETS['public-client']]);
    expect(await ThirdParty.getProvider(TENANT, 'okta-public', undefined)).toBeUndefined();
    expect(await ThirdParty.getProvider(TENANT, 'google', undefined)).toBeUndefined();
  });
});

describe('signing in through a provider stored in the core (FDI, loopback provider)', () => {
  it.each([
    ['another tenant', 'okta-acme', 'acme-client'],
    ['public', 'okta-public', 'public-client'],
  ] as const)('signs a user up, then in, in %s', async (label, thirdPartyId, clientId) => {
    const tenantId = label === 'public' ? 'public' : TENANT;
    const email = uniqueEmail(`sso-${clientId}`);
    const before = { ...idp.counts };
    const up = await signInUp(tenantId, thirdPartyId, idp.codeFor(email, clientId));
    expect([up.status, up.body.status, up.body.createdNewRecipeUser, up.accessToken === null]).toEqual([200, 'OK', true, false]);
    expect([up.body.user.tenantIds, up.body.user.emails, up.body.user.thirdParty]).toEqual([
      [tenantId],
      [email],
      [{ id: thirdPartyId, userId: idp.subjectOf(email) }],
    ]);
    sent.length = 0;
    const again = await signInUp(tenantId, thirdPartyId, idp.codeFor(email, clientId));
    expect([again.body.status, again.body.createdNewRecipeUser, again.body.user.id]).toEqual(['OK', false, up.body.user.id]);
    // The token endpoint took the tenant's client secret from the core each time.
    expect(idp.counts).toEqual({ refusedClients: before.refusedClients, exchanges: before.exchanges + 2, userInfos: before.userInfos + 2 });
    const tenantPrefix = tenantId === 'public' ? '/public' : `/${tenantId}`;
    expect(sent).toContain(`GET ${tenantPrefix}/recipe/multitenancy/tenant/v2`);
    expect(sent).toContain(`POST ${tenantPrefix}/recipe/signinup`);
    // The other tenant's provider is not this tenant's.
    const wrong = await signInUp(tenantId, tenantId === 'public' ? 'okta-acme' : 'okta-public', idp.codeFor(email, clientId));
    expect(wrong.status).toBe(400);
  });

  it("builds the authorisation URL from the tenant's stored endpoint and client", async () => {
    const res = await fetch(
      `${appUrl}/auth/${TENANT}/authorisationurl?thirdPartyId=okta-acme&redirectURIOnProviderDashboard=${encodeURIComponent('http://app.example.test/cb')}`,
      {
        headers: { rid: 'thirdparty' },
      },
    );
    const url = new URL(((await res.json()) as { urlWithQueryParams: string }).urlWithQueryParams);
    expect([url.origin + url.pathname, url.searchParams.get('client_id'), url.searchParams.get('scope')]).toEqual([
      `${idp.base}/authorize`,
      'acme-client',
      'openid email',
    ]);
  });

  it('signs in with a provider changed in the core within 5 s (the tenant GET’s cache), with the new client', async () => {
    const tenantId = `sso-rotate-${Date.now().toString(36)}`;
    expect((await Multitenancy.createOrUpdateTenant(tenantId, {})).status).toBe('OK');
    expect((await Multitenancy.createOrUpdateThirdPartyConfig(tenantId, providerConfig('okta-rot', 'public-client'))).status).toBe('OK');
    const email = uniqueEmail('sso-rot');
    expect((await signInUp(tenantId, 'okta-rot', idp.codeFor(email, 'public-client'))).body.status).toBe('OK');
    const since = Date.now();
    expect((await Multitenancy.createOrUpdateThirdPartyConfig(tenantId, providerConfig('okta-rot', 'acme-client'))).createdNew).toBe(false);
    await pastTenantCache(since);
    const after = await signInUp(tenantId, 'okta-rot', idp.codeFor(email, 'acme-client'));
    expect([after.body.status, after.body.createdNewRecipeUser]).toEqual(['OK', false]);
  });
});

describe('users and tenants from the SDK (Multitenancy)', () => {
  it('associates and disassociates a login method with associateUserToTenant and disassociateUserFromTenant', async () => {
    const email = uniqueEmail('sso-assoc');
    const up = await EmailPassword.signUp('public', email, 'a password 12345');
    if (up.status !== 'OK') throw new Error(up.status);
    expect(await Multitenancy.associateUserToTenant(TENANT, up.recipeUserId)).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    expect(await Multitenancy.associateUserToTenant(TENANT, up.recipeUserId)).toEqual({ status: 'OK', wasAlreadyAssociated: true });
    expect((await supertokens.getUser(up.user.id))?.tenantIds).toEqual(['public', TENANT]);
    expect((await EmailPassword.signIn(TENANT, email, 'a password 12345')).status).toBe('OK');

    const rival = await EmailPassword.signUp('public', uniqueEmail('sso-rival'), 'a password 12345');
    if (rival.status !== 'OK') throw new Error(rival.status);
    const taken = await EmailPassword.signUp(`${TENANT}`, rival.user.emails[0], 'a password 12345');
    expect(taken.status).toBe('OK');
    expect(await Multitenancy.associateUserToTenant(TENANT, rival.recipeUserId)).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });

    expect(await Multitenancy.disassociateUserFromTenant(TENANT, up.recipeUserId)).toEqual({ status: 'OK', wasAssociated: true });
    expect(await Multitenancy.disassociateUserFromTenant(TENANT, up.recipeUserId)).toEqual({ status: 'OK', wasAssociated: false });
    expect((await supertokens.getUser(up.user.id))?.tenantIds).toEqual(['public']);
    expect((await EmailPassword.signIn(TENANT, email, 'a password 12345')).status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it("associates a user who signed up through a tenant's stored provider with public, where a sign-in through that identity finds them; the identity taken there or an unknown id refused", async () => {
    const sso = async (email: string) => {
      const up = await signInUp(TENANT, 'okta-acme', idp.codeFor(email, 'acme-client'));
      expect([up.body.status, up.body.createdNewRecipeUser]).toEqual(['OK', true]);
      return { id: up.body.user.id as string, recipeUserId: new supertokens.RecipeUserId(up.body.user.id as string), sub: idp.subjectOf(email) };
    };
    const moved = await sso(uniqueEmail('sso-to-public'));
    expect(await Multitenancy.associateUserToTenant('public', moved.recipeUserId)).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    expect((await supertokens.getUser(moved.id))?.loginMethods[0].tenantIds).toEqual([TENANT, 'public']);
    const again = await ThirdParty.manuallyCreateOrUpdateUser('public', 'okta-acme', moved.sub, uniqueEmail('sso-to-public-new'), true);
    expect(again.status === 'OK' && [again.createdNewRecipeUser, again.user.id]).toEqual([false, moved.id]);

    // The identity already has a user of its own in public: the core's THIRD_PARTY_USER_ALREADY_EXISTS_ERROR.
    const twin = await sso(uniqueEmail('sso-twin'));
    const there = await ThirdParty.manuallyCreateOrUpdateUser('public', 'okta-acme', twin.sub, uniqueEmail('sso-twin-public'), false);
    expect(there.status === 'OK' && there.createdNewRecipeUser).toBe(true);
    expect(await Multitenancy.associateUserToTenant('public', twin.recipeUserId)).toEqual({ status: 'THIRD_PARTY_USER_ALREADY_EXISTS_ERROR' });
    expect(await Multitenancy.associateUserToTenant('public', new supertokens.RecipeUserId('no-such-user'))).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect(await Multitenancy.disassociateUserFromTenant('public', new supertokens.RecipeUserId('no-such-user'))).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });
});
