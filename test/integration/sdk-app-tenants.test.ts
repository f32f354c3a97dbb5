import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Multitenancy from 'supertokens-node/recipe/multitenancy';
import { createExampleApp, OIDC_PROVIDER_ID } from '../../examples/sdk-app/app';
import { startOidcStandIn, type OidcStandIn } from '../../examples/sdk-app/oidc-stand-in';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { uniqueEmail } from '../support/flows';
import { type Answer, type AppTarget, Browser } from '../support/sdk-browser';
import { pastTenantCache } from '../support/tenant-cache';

/**
 * Issue #46's "must show": `examples/sdk-app` signing users in to a tenant whose OpenID Connect
 * provider lives only in the core (SPEC §22), never in the app's config. The tenant and its
 * provider are made with the core's own PUTs (what `examples/sdk-app/README.md` shows with curl);
 * the provider is a second loopback stand-in with a client the app has never heard of. A browser
 * then goes the whole way: `GET /auth/<t>/authorisationurl`, the provider's redirect back,
 * `POST /auth/<t>/signinup`. The app runs in this process; its core calls are counted through the
 * SDK's `networkInterceptor`.
 */
jest.setTimeout(60_000);

const WEBSITE = 'http://localhost:3000';
const target: AppTarget = { url: '', website: WEBSITE };
const TENANT = 'acme';
const PROVIDER = 'acme-oidc';
const CLIENT = { clientId: 'acme-app', clientSecret: 'acme-app-secret-0123456789' };

let api: TestApi;
/** The app's own (static) provider, and Acme's, known only to the core. */
let appIdp: OidcStandIn;
let acmeIdp: OidcStandIn;
let appServer: Server;
/** Every core request the SDK made (`networkInterceptor`), but `GET /apiversion`: `METHOD /path`. */
const sdkCalls: string[] = [];

/** The provider config as an operator stores it for the tenant: discovery, one client. */
const acmeProvider = () => ({
  thirdPartyId: PROVIDER,
  name: 'Acme SSO',
  oidcDiscoveryEndpoint: acmeIdp.discoveryEndpoint,
  clients: [{ ...CLIENT, scope: ['openid', 'email'] }],
});

beforeAll(async () => {
  api = await startApi();
  appIdp = await startOidcStandIn();
  acmeIdp = await startOidcStandIn(CLIENT);
  appServer = createServer();
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  const port = (appServer.address() as AddressInfo).port;
  target.url = `http://127.0.0.1:${port}`;
  const { app } = createExampleApp({
    coreUrl: api.baseUrl,
    coreApiKey: TEST_API_KEY,
    apiDomain: `http://localhost:${port}`,
    websiteDomain: WEBSITE,
    oidc: appIdp,
    dashboardApiKey: 'dashboard-key-for-the-test-0123456789',
    devOutbox: true,
    onCoreRequest: (method, url) => {
      // Not counted: the SDK's version handshake, once per process at its first core call.
      const call = `${method} ${new URL(url).pathname}`;
      if (call !== 'GET /apiversion') sdkCalls.push(call);
    },
  });
  appServer.on('request', app);
}, 60_000);

afterAll(async () => {
  if (appServer) {
    appServer.closeAllConnections();
    await new Promise((resolve) => appServer.close(resolve));
  }
  await acmeIdp?.close();
  await appIdp?.close();
  await api?.stop();
});

const callback = (thirdPartyId: string) => `${WEBSITE}/auth/callback/${thirdPartyId}`;

/** `GET /auth/<t>/authorisationurl` as the frontend asks it. */
const authorisationUrl = (visitor: Browser, tenantId: string, thirdPartyId: string) =>
  visitor.get(`/auth/${tenantId}/authorisationurl?thirdPartyId=${thirdPartyId}&redirectURIOnProviderDashboard=${encodeURIComponent(callback(thirdPartyId))}`);

/** The provider's part: its sign-in page (`login_hint` signs `as` in) redirects back with a code. */
async function providerRedirect(start: Answer, as: string): Promise<URLSearchParams> {
  const authorize = new URL(start.json.urlWithQueryParams);
  authorize.searchParams.set('login_hint', as);
  const redirect = await fetch(authorize, { redirect: 'manual' });
  expect(redirect.status).toBe(302);
  return new URL(redirect.headers.get('location')!).searchParams;
}

/** `POST /auth/<t>/signinup` with what the provider sent back. */
const signInUp = (visitor: Browser, tenantId: string, back: URLSearchParams, pkceCodeVerifier?: string) =>
  visitor.post(`/auth/${tenantId}/signinup`, {
    thirdPartyId: PROVIDER,
    redirectURIInfo: { redirectURIOnProviderDashboard: callback(PROVIDER), redirectURIQueryParams: Object.fromEntries(back), pkceCodeVerifier },
  });

/** The whole round through Acme's provider; `calls` gets the core requests of the `signinup` POST alone. */
async function acmeSignIn(visitor: Browser, as: string, calls: string[] = []): Promise<Answer> {
  const start = await authorisationUrl(visitor, TENANT, PROVIDER);
  expect([start.status, start.json.status]).toEqual([200, 'OK']);
  const back = await providerRedirect(start, as);
  const from = sdkCalls.length;
  const answer = await signInUp(visitor, TENANT, back, start.json.pkceCodeVerifier);
  calls.push(...sdkCalls.slice(from));
  return answer;
}

const notFound = (thirdPartyId: string) => ({ message: `the provider ${thirdPartyId} could not be found in the configuration` });

describe("a tenant's OIDC provider stored only in the core, used by examples/sdk-app", () => {
  const email = uniqueEmail('acme-sso');
  let userId = '';
  /** The core requests of the sign-up and of the sign-in again (the `signinup` POST). */
  const upCalls: string[] = [];
  const inCalls: string[] = [];

  it("the core's PUTs make the tenant and store its provider (the app's config has neither)", async () => {
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: TENANT })).json).toEqual({ status: 'OK', createdNew: true });
    const put = await api.put(`/${TENANT}/recipe/multitenancy/config/thirdparty`, { config: acmeProvider() });
    expect([put.status, put.json]).toEqual([200, { status: 'OK', createdNew: true }]);
  });

  it("GET /auth/acme/authorisationurl answers the stand-in's URL with the tenant's client", async () => {
    const from = sdkCalls.length;
    const start = await authorisationUrl(new Browser('cookie', target), TENANT, PROVIDER);
    expect([start.status, start.json.status]).toEqual([200, 'OK']);
    // One core call: the tenant's providers (the provider's discovery document is the SDK's own fetch).
    expect(sdkCalls.slice(from)).toEqual([`GET /${TENANT}/recipe/multitenancy/tenant/v2`]);
    const url = new URL(start.json.urlWithQueryParams);
    expect([url.origin + url.pathname, url.searchParams.get('client_id'), url.searchParams.get('redirect_uri'), url.searchParams.get('scope')]).toEqual([
      `${acmeIdp.issuer}/authorize`,
      CLIENT.clientId,
      callback(PROVIDER),
      'openid email',
    ]);
  });

  it("signs a user up in the tenant (the session's tenant is acme), then in again as the same user", async () => {
    const visitor = new Browser('cookie', target);
    const up = await acmeSignIn(visitor, email, upCalls);
    expect([up.status, up.json.status, up.json.createdNewRecipeUser]).toEqual([200, 'OK', true]);
    userId = up.json.user.id;
    expect([up.json.user.tenantIds, up.json.user.emails, up.json.user.thirdParty]).toEqual([
      [TENANT],
      [email],
      [{ id: PROVIDER, userId: acmeIdp.subjectOf(email) }],
    ]);
    // The provider verified the email, so the app's REQUIRED verification lets the session through at once.
    const me = await visitor.get('/me');
    expect([me.status, me.json.userId, me.json.tenantId]).toEqual([200, userId, TENANT]);

    const again = new Browser('header', target);
    const signIn = await acmeSignIn(again, email, inCalls);
    expect([signIn.json.status, signIn.json.createdNewRecipeUser, signIn.json.user.id]).toEqual(['OK', false, userId]);
    expect((await again.get('/me')).json).toEqual(expect.objectContaining({ userId, tenantId: TENANT }));

    // What supertokens-node 24.0.3 asks the core for one `signinup` POST: the tenant's providers
    // first (answered from the service's ≤ 5 s cache), then the SDK's linking checks, the sign-in,
    // the session's claims (verification, roles, MFA: the tenant again) and the session.
    const signInCalls = [
      `GET /${TENANT}/recipe/multitenancy/tenant/v2`,
      ...Array(3).fill(`GET /${TENANT}/users/by-accountinfo`),
      `POST /${TENANT}/recipe/signinup`,
      'GET /user/id',
    ];
    const sessionCalls = [
      'GET /recipe/user/email/verify',
      `GET /${TENANT}/recipe/user/roles`,
      `POST /${TENANT}/recipe/session`,
      'GET /user/id',
      `GET /${TENANT}/recipe/multitenancy/tenant/v2`,
      'GET /recipe/user/metadata',
      'POST /recipe/session/regenerate',
    ];
    // The sign-up also makes the new user primary (automatic account linking).
    expect(upCalls).toEqual([
      ...signInCalls,
      `GET /${TENANT}/users/by-accountinfo`,
      'POST /recipe/accountlinking/user/primary',
      'GET /user/id',
      ...sessionCalls,
    ]);
    expect(inCalls).toEqual([...signInCalls, ...sessionCalls]);
  });

  it('public does not know the provider: the SDK answers 400 there, and offers the static provider', async () => {
    const visitor = new Browser('cookie', target);
    const unknown = await authorisationUrl(visitor, 'public', PROVIDER);
    expect([unknown.status, unknown.json]).toEqual([400, notFound(PROVIDER)]);
    // The app's static provider is public's as long as the core lists none for public.
    expect((await authorisationUrl(visitor, 'public', OIDC_PROVIDER_ID)).json.status).toBe('OK');
  });

  it('after the cache bound: removed from acme in the core, the provider is refused there; stored in public too, public offers it (and only it)', async () => {
    expect(await Multitenancy.createOrUpdateThirdPartyConfig('public', acmeProvider())).toEqual({ status: 'OK', createdNew: true });
    // A browser on its way back from the provider while the provider is removed.
    const visitor = new Browser('cookie', target);
    const start = await authorisationUrl(visitor, TENANT, PROVIDER);
    const back = await providerRedirect(start, email);
    const since = Date.now();
    expect(await Multitenancy.deleteThirdPartyConfig(TENANT, PROVIDER)).toEqual({ status: 'OK', didConfigExist: true });
    // One wait for both changes: the removal was sent after the PUT in public.
    await pastTenantCache(since);

    const refused = await signInUp(visitor, TENANT, back, start.json.pkceCodeVerifier);
    expect([refused.status, refused.json]).toEqual([400, notFound(PROVIDER)]);
    expect(visitor.cookies.size).toBe(0);
    const restart = await authorisationUrl(visitor, TENANT, PROVIDER);
    expect([restart.status, restart.json]).toEqual([400, notFound(PROVIDER)]);
    // The user is still there, in its tenant; only the way in is gone.
    expect((await api.get(`/user/id?userId=${userId}`)).json.user.tenantIds).toEqual([TENANT]);

    expect((await authorisationUrl(visitor, 'public', PROVIDER)).json.status).toBe('OK');
    // The SDK's merge: once the core lists providers for a tenant, public included, it offers only those.
    const hidden = await authorisationUrl(visitor, 'public', OIDC_PROVIDER_ID);
    expect([hidden.status, hidden.json]).toEqual([400, notFound(OIDC_PROVIDER_ID)]);
  });
});
