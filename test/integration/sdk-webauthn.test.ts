import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebAuthn from 'supertokens-node/recipe/webauthn';
import { createExampleApp, type OutboxMessage } from '../../examples/sdk-app/app';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { uniqueEmail } from '../support/flows';
import { type AppTarget, Browser, type CoreAnswer, startRecordingProxy } from '../support/sdk-browser';
import { type CeremonyOptions, SoftAuthenticator } from '../support/webauthn';

/**
 * Issue #45: the unchanged supertokens-node 24 WebAuthn recipe in `examples/sdk-app`, on the local
 * service as its core, driven as a browser would with the software authenticator standing in for
 * `navigator.credentials` (the frontend's page is at WEBSITE, so the RP id is `localhost` and the
 * origin WEBSITE). The app runs in this process; its core calls are counted through the SDK's
 * `networkInterceptor` and go through a recording proxy, so the last test can say none was
 * answered 404, 405 or 5xx.
 */
jest.setTimeout(120_000);

const WEBSITE = 'http://localhost:3000';
const target: AppTarget = { url: '', website: WEBSITE };

let api: TestApi;
let proxy: Server;
let appServer: Server;
/** Every core request the SDK made (`networkInterceptor`): `METHOD /path`. */
const sdkCalls: string[] = [];
const coreAnswers: CoreAnswer[] = [];

beforeAll(async () => {
  api = await startApi();
  const recorder = await startRecordingProxy(api.baseUrl, coreAnswers);
  proxy = recorder.server;
  appServer = createServer();
  await new Promise<void>((resolve) => appServer.listen(0, '127.0.0.1', resolve));
  const port = (appServer.address() as AddressInfo).port;
  target.url = `http://127.0.0.1:${port}`;
  const { app } = createExampleApp({
    coreUrl: recorder.url,
    coreApiKey: TEST_API_KEY,
    apiDomain: `http://localhost:${port}`,
    websiteDomain: WEBSITE,
    // No third-party sign-in here: the provider is configured, never asked.
    oidc: { discoveryEndpoint: 'http://127.0.0.1:9/.well-known/openid-configuration', clientId: 'unused', clientSecret: 'unused' },
    dashboardApiKey: 'dashboard-key-for-the-test-0123456789',
    devOutbox: true,
    onCoreRequest: (method, url) => sdkCalls.push(`${method} ${new URL(url).pathname}`),
  });
  appServer.on('request', app);
}, 120_000);

afterAll(async () => {
  for (const server of [appServer, proxy]) {
    if (!server) continue;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await api?.stop();
});

/** The core calls the SDK makes while `step` runs (less `GET /apiversion`, asked once per process). */
async function coreCallsOf<T>(step: () => Promise<T>): Promise<{ result: T; calls: string[] }> {
  const from = sdkCalls.length;
  const result = await step();
  return { result, calls: sdkCalls.slice(from).filter((c) => c !== 'GET /apiversion') };
}
const webauthnOnly = (calls: string[]) => calls.filter((c) => c.includes('/webauthn/'));

/** What the browser hands the authenticator: the options' challenge and RP id, and the page's origin. */
const registering = (o: { challenge: string; rp: { id: string } }): CeremonyOptions => ({ challenge: o.challenge, rpId: o.rp.id, origin: WEBSITE });
const asserting = (o: { challenge: string; rpId: string }): CeremonyOptions => ({ challenge: o.challenge, rpId: o.rpId, origin: WEBSITE });

/** The newest message the app "sent" to `to`, from its development outbox. */
async function outbox(to: string, kind: OutboxMessage['kind']): Promise<OutboxMessage> {
  const res = await fetch(`${target.url}/dev/outbox?to=${encodeURIComponent(to)}`);
  const { messages } = (await res.json()) as { messages: OutboxMessage[] };
  const message = messages.filter((m) => m.kind === kind).at(-1);
  if (!message) throw new Error(`no ${kind} message to ${to}`);
  return message;
}

/** The frontend's passkey sign-in: options, `navigator.credentials.get()`, then the sign-in. */
async function signInWithPasskey(browser: Browser, auth: SoftAuthenticator) {
  const options = await browser.post('/auth/webauthn/options/signin');
  expect([options.status, options.json.status]).toEqual([200, 'OK']);
  return browser.post('/auth/webauthn/signin', {
    webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId,
    credential: auth.assert(asserting(options.json)),
  });
}

describe('passkeys in the example app (the SDK WebAuthn recipe) driven as a browser', () => {
  const email = uniqueEmail('app-passkey');
  const passkey = new SoftAuthenticator(-7);
  let userId = '';

  it('signs up with a passkey (register options, then sign-up): a session, and once the email is verified GET /me is the new user', async () => {
    const browser = new Browser('cookie', target);
    const { result: options, calls: optionCalls } = await coreCallsOf(() => browser.post('/auth/webauthn/options/register', { email }));
    expect(options.status).toBe(200);
    expect(options.json).toEqual(
      expect.objectContaining({
        status: 'OK',
        rp: { id: 'localhost', name: 'sdk-example-app' },
        user: expect.objectContaining({ name: email, displayName: email }),
        timeout: 60000,
        attestation: 'none',
        excludeCredentials: [],
        authenticatorSelection: { requireResidentKey: true, residentKey: 'required', userVerification: 'preferred' },
      }),
    );
    expect(optionCalls).toEqual(['POST /public/recipe/webauthn/options/register']);

    const { result: signUp, calls } = await coreCallsOf(() =>
      browser.post('/auth/webauthn/signup', {
        webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId,
        credential: passkey.register(registering(options.json)),
      }),
    );
    expect(signUp.status).toBe(200);
    expect(signUp.json).toEqual(
      expect.objectContaining({ status: 'OK', user: expect.objectContaining({ emails: [email], webauthn: { credentialIds: [passkey.id] } }) }),
    );
    expect(signUp.json.user.loginMethods).toEqual([expect.objectContaining({ recipeId: 'webauthn', email, verified: false })]);
    userId = signUp.json.user.id;
    expect([...browser.cookies.keys()].sort()).toEqual(['sAccessToken', 'sRefreshToken']);
    // The SDK reads the options for their email, then the core signs the user up; the session follows.
    expect(webauthnOnly(calls)).toEqual(['GET /public/recipe/webauthn/options', 'POST /public/recipe/webauthn/signup']);
    expect(calls).toContain('POST /public/recipe/session');
    expect(calls.indexOf('POST /public/recipe/webauthn/signup')).toBeLessThan(calls.indexOf('POST /public/recipe/session'));
    // 13 in all: the tenant, the email's users (before and after), linking's reads, the claims, MFA's reads and regenerate.
    expect(calls).toHaveLength(13);

    // EmailVerification REQUIRED: a passkey proves no email, so the app asks for the link first.
    const blocked = await browser.get('/me');
    expect([blocked.status, blocked.json.claimValidationErrors?.[0]?.id]).toEqual([403, 'st-ev']);
    expect((await browser.post('/auth/user/email/verify/token')).json).toEqual({ status: 'OK' });
    const link = new URL((await outbox(email, 'email-verification')).link!);
    expect((await browser.post('/auth/user/email/verify', { method: 'token', token: link.searchParams.get('token') })).json).toEqual({ status: 'OK' });
    const me = await browser.get('/me');
    expect([me.status, me.json.userId, me.json.recipeUserId]).toEqual([200, userId, userId]);
  });

  it('signs in with the passkey (sign-in options, then sign-in): the core verifies the assertion once, and the session is the user', async () => {
    const browser = new Browser('header', target);
    const options = await browser.post('/auth/webauthn/options/signin');
    expect(options.json).toEqual(expect.objectContaining({ status: 'OK', rpId: 'localhost', timeout: 60000, userVerification: 'preferred' }));
    const credential = passkey.assert(asserting(options.json));
    const { result: signIn, calls } = await coreCallsOf(() =>
      browser.post('/auth/webauthn/signin', { webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId, credential }),
    );
    expect([signIn.status, signIn.json.status, signIn.json.user?.id]).toEqual([200, 'OK', userId]);
    // 24.0.3 verifies once (`verifyCredentials`: the core's signin), reads the options and finds
    // the user by its credential id (`GET /users/by-accountinfo?webauthnCredentialId=`), then the
    // session; with MultiFactorAuth on, the factors are read and `st-mfa` written (regenerate).
    expect(calls).toEqual([
      'POST /public/recipe/webauthn/signin',
      'GET /public/recipe/webauthn/options',
      'GET /public/users/by-accountinfo',
      'GET /public/recipe/multitenancy/tenant/v2',
      'GET /user/id',
      'GET /recipe/user/email/verify',
      'GET /public/recipe/user/roles',
      'POST /public/recipe/session',
      'GET /user/id',
      'GET /public/recipe/multitenancy/tenant/v2',
      'GET /recipe/user/metadata',
      'POST /recipe/session/regenerate',
    ]);

    const me = await browser.get('/me');
    expect([me.status, me.json.userId]).toEqual([200, userId]);

    // The price of §21's allowance for 24.0.0-24.0.2's repeat, under 24.0.3: the same assertion
    // sent again within the options' life is that repeat (one more session); a third is refused.
    const replay = () =>
      new Browser('header', target).post('/auth/webauthn/signin', { webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId, credential });
    expect((await replay()).json.status).toBe('OK');
    expect((await replay()).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
  });

  it('the 24.0.0-24.0.2 sign-in, verifyCredentials then signIn (which verifies again), passes: two signin calls, one user; a third is refused', async () => {
    const browser = new Browser('header', target);
    const options = (await browser.post('/auth/webauthn/options/signin')).json;
    const input = { tenantId: 'public', webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential: passkey.assert(asserting(options)) as any };
    const { result, calls } = await coreCallsOf(async () => {
      const verified = await WebAuthn.verifyCredentials(input);
      const signedIn = await WebAuthn.signIn({ ...input, session: undefined, shouldTryLinkingWithSessionUser: false });
      return { verified, signedIn };
    });
    expect(result.verified.status).toBe('OK');
    expect(result.signedIn.status === 'OK' && result.signedIn.user.id).toBe(userId);
    expect(webauthnOnly(calls)).toEqual(['POST /public/recipe/webauthn/signin', 'POST /public/recipe/webauthn/signin']);
    // The options are spent: a third presentation of the same assertion is refused (SPEC §21).
    expect((await WebAuthn.verifyCredentials(input)).status).toBe('OPTIONS_NOT_FOUND_ERROR');
  });

  const newPasskey = new SoftAuthenticator(-8);

  describe('account recovery (a lost passkey)', () => {
    it('emails a recover-account link (POST /auth/user/webauthn/reset/token), registers a new passkey with its token, and the token is spent', async () => {
      const browser = new Browser('cookie', target);
      const { result: asked, calls: tokenCalls } = await coreCallsOf(() => browser.post('/auth/user/webauthn/reset/token', { email }));
      expect([asked.status, asked.json]).toEqual([200, { status: 'OK' }]);
      expect(webauthnOnly(tokenCalls)).toEqual(['POST /public/recipe/webauthn/user/recover/token']);
      const link = new URL((await outbox(email, 'recover-account')).link!);
      expect(`${link.origin}${link.pathname}`).toBe(`${WEBSITE}/auth/webauthn/recover`);
      expect(link.searchParams.get('tenantId')).toBe('public');
      const token = link.searchParams.get('token')!;

      // The recover page: register options from the token (the SDK finds the user and its email), then the new passkey.
      const { result: options, calls: optionCalls } = await coreCallsOf(() => browser.post('/auth/webauthn/options/register', { recoverAccountToken: token }));
      expect(options.json).toEqual(expect.objectContaining({ status: 'OK', rp: { id: 'localhost', name: 'sdk-example-app' } }));
      expect(options.json.user).toEqual(expect.objectContaining({ name: email, id: Buffer.from(userId).toString('base64url') }));
      expect(optionCalls).toEqual(['GET /public/recipe/webauthn/user/recover', 'POST /public/recipe/webauthn/options/register']);

      const body = { token, webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId, credential: newPasskey.register(registering(options.json)) };
      const { result: recovered, calls } = await coreCallsOf(() => browser.post('/auth/user/webauthn/reset', body));
      expect([recovered.status, recovered.json]).toEqual([200, { status: 'OK' }]);
      // Consumed, then the new credential on the user's webauthn login method (the app-level call).
      expect(webauthnOnly(calls)).toEqual(['POST /public/recipe/webauthn/user/recover/token/consume', 'POST /recipe/webauthn/user/credential/register']);
      expect(browser.cookies.size).toBe(0); // recovery makes no session: the user signs in next

      expect((await browser.post('/auth/user/webauthn/reset', body)).json).toEqual({ status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' });
    });

    it('signs in with the new passkey as the same user; the old one still works', async () => {
      const browser = new Browser('cookie', target);
      const signIn = await signInWithPasskey(browser, newPasskey);
      expect([signIn.json.status, signIn.json.user.id]).toEqual(['OK', userId]);
      expect([...signIn.json.user.webauthn.credentialIds].sort()).toEqual([passkey.id, newPasskey.id].sort());
      expect((await browser.get('/me')).json.userId).toBe(userId);
      expect((await signInWithPasskey(new Browser('header', target), passkey)).json.status).toBe('OK');
    });
  });

  it("lists the user's passkeys (GET /auth/webauthn/credential/list), adds one from the session, removes one, which then signs in no more", async () => {
    const browser = new Browser('cookie', target);
    expect((await signInWithPasskey(browser, passkey)).json.status).toBe('OK');
    const recipeUserId = (await browser.get('/me')).json.recipeUserId;
    const ids = async () => {
      const list = await browser.get('/auth/webauthn/credential/list');
      expect(list.json.status).toBe('OK');
      expect(
        list.json.credentials.every(
          (c: { relyingPartyId: string; recipeUserId: string }) => c.relyingPartyId === 'localhost' && c.recipeUserId === recipeUserId,
        ),
      ).toBe(true);
      return list.json.credentials.map((c: { webauthnCredentialId: string }) => c.webauthnCredentialId).sort();
    };
    expect(await ids()).toEqual([passkey.id, newPasskey.id].sort());

    // One more from the session: POST /auth/webauthn/credential (the core's user/credential/register).
    const rsa = new SoftAuthenticator(-257);
    const options = await browser.post('/auth/webauthn/options/register', { email });
    const credential = rsa.register(registering(options.json));
    const { result: added, calls } = await coreCallsOf(() =>
      browser.post('/auth/webauthn/credential', { recipeUserId, webauthnGeneratedOptionsId: options.json.webauthnGeneratedOptionsId, credential }),
    );
    expect(added.json).toEqual({ status: 'OK' });
    expect(webauthnOnly(calls)).toEqual(['GET /public/recipe/webauthn/options', 'POST /recipe/webauthn/user/credential/register']);
    expect(await ids()).toEqual([passkey.id, newPasskey.id, rsa.id].sort());

    const removed = await browser.post('/auth/webauthn/credential/remove', { webauthnCredentialId: passkey.id });
    expect(removed.json).toEqual({ status: 'OK' });
    expect(await ids()).toEqual([newPasskey.id, rsa.id].sort());
    // The SDK's own functions see the same (the core's credential list and get).
    expect((await WebAuthn.listCredentials({ recipeUserId })).credentials).toHaveLength(2);
    expect((await WebAuthn.getCredential({ recipeUserId, webauthnCredentialId: passkey.id })).status).toBe('CREDENTIAL_NOT_FOUND_ERROR');

    // The removed passkey: the core answers CREDENTIAL_NOT_FOUND_ERROR, which the SDK turns into INVALID_CREDENTIALS_ERROR.
    expect((await signInWithPasskey(new Browser('header', target), passkey)).json).toEqual({ status: 'INVALID_CREDENTIALS_ERROR' });
    expect((await signInWithPasskey(new Browser('header', target), rsa)).json.user.id).toBe(userId);
  });

  it('made every core call through the SDK, and the core answered none of them 404, 405 or 5xx', () => {
    const answered = new Set(coreAnswers.map((a) => `${a.method} ${a.path}`));
    expect(sdkCalls.filter((call) => !answered.has(call))).toEqual([]);
    expect(coreAnswers.filter((a) => a.status === 404 || a.status === 405 || a.status >= 500)).toEqual([]);
  });
});
