import { startApi, type TestApi } from '../support/api';
import { uniqueEmail } from '../support/flows';
import { linkingClient } from '../support/linking';
import { FLAG, RP, SoftAuthenticator, webauthnClient, type Alg } from '../support/webauthn';

/**
 * The WebAuthn recipe over HTTP (SPEC §21) with a software authenticator: every endpoint, status
 * and reason of this slice, the tenant forms, the double call, a credential id unique in the app
 * under racing registrations, the 400s, and what users, removal and account linking make of a
 * webauthn login method. Rules that hang on time (expired options) are in
 * `webauthn-recipe.test.ts`, with a clock the test moves.
 */
let api: TestApi;
let wa: ReturnType<typeof webauthnClient>;
let linking: ReturnType<typeof linkingClient>;
beforeAll(async () => {
  api = await startApi();
  wa = webauthnClient(api);
  linking = linkingClient(api);
  for (const tenantId of ['wa-t1', 'wa-t2']) expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).status).toBe(200);
});
afterAll(() => api.stop());

const reason = (status: string, text: string | RegExp) => ({ status, reason: typeof text === 'string' ? text : expect.stringMatching(text) });

/** A webauthn user signed up with a new authenticator: its id, email and authenticator. */
async function webauthnUser(alg: Alg = -7, tenantId?: string, email = uniqueEmail('wa')) {
  const auth = new SoftAuthenticator(alg);
  const res = await wa.signUpWith(auth, email, tenantId);
  expect(res.json.status).toBe('OK');
  return { id: res.json.recipeUserId as string, email, auth, user: res.json.user };
}

describe('POST /recipe/webauthn/options/register', () => {
  it("answers the core's shape with its defaults, and user.id from the options' own id for a new email", async () => {
    const res = await wa.registerOptions({ email: '  New@Example.COM ' });
    const o = res.json;
    expect(o).toEqual({
      status: 'OK',
      webauthnGeneratedOptionsId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      rp: { id: 'example.com', name: 'Example' },
      user: { id: Buffer.from(o.webauthnGeneratedOptionsId).toString('base64url'), name: 'new@example.com', displayName: 'new@example.com' },
      email: 'new@example.com',
      timeout: 6000,
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      attestation: 'none',
      createdAt: expect.any(Number),
      expiresAt: o.createdAt + 6000,
      pubKeyCredParams: [
        { alg: -8, type: 'public-key' },
        { alg: -7, type: 'public-key' },
        { alg: -257, type: 'public-key' },
      ],
      excludeCredentials: [],
      authenticatorSelection: { requireResidentKey: true, residentKey: 'required', userVerification: 'preferred' },
    });
  });

  it("takes the SDK's values and either spelling of the algorithm list; user.id is an existing user's id for a held email", async () => {
    const email = uniqueEmail('opts');
    const holder = await linking.emailPassword(email);
    const body = {
      email,
      displayName: 'Ann',
      timeout: 60000,
      attestation: 'direct',
      residentKey: 'preferred',
      userVerification: 'required',
      userPresence: true,
    };
    const a = (await wa.registerOptions({ ...body, supportedAlgorithmIds: [-7] })).json;
    expect(a).toEqual(expect.objectContaining({ timeout: 60000, attestation: 'direct', pubKeyCredParams: [{ alg: -7, type: 'public-key' }] }));
    expect(a.user).toEqual({ id: Buffer.from(holder).toString('base64url'), name: email, displayName: 'Ann' });
    expect(a.authenticatorSelection).toEqual({ requireResidentKey: false, residentKey: 'preferred', userVerification: 'required' });
    expect((await wa.registerOptions({ email, supportedAlgorithmIDs: [-257] })).json.pubKeyCredParams).toEqual([{ alg: -257, type: 'public-key' }]);
    expect((await wa.getOptions(a.webauthnGeneratedOptionsId)).json).toEqual(expect.objectContaining({ userPresence: true, userVerification: 'required' }));
  });

  it.each([
    [{ origin: 'not a url' }, 'Origin has to be a valid url!'],
    [{ origin: 'https://example.org' }, 'Origin does not match RelyingParty Id'],
    [{ origin: 'android:apk-key-hash:' }, 'Android origin must contain a valid base64 hash'],
    [{ origin: 'android:apk-key-hash:abc+' }, 'Android origin hash must be valid URL-safe base64 (no padding)'],
    [{ origin: 'android:apk-key-hash:abcd' }, 'Android origin hash must be 43 characters (base64url SHA-256)'],
    [{ timeout: -1 }, 'Timeout must be a positive value'],
    [{ userVerification: 'always' }, "Invalid value 'always' for userVerification. Must be one of: required, discouraged, preferred"],
    [{ attestation: 'full' }, "Invalid value 'full' for attestation. Must be one of: none, indirect, direct, enterprise"],
    [{ residentKey: 'maybe' }, "Invalid value 'maybe' for residentKey. Must be one of: required, discouraged, preferred"],
  ])('answers INVALID_OPTIONS_ERROR for %j: %s', async (body, text) => {
    expect((await wa.registerOptions({ email: uniqueEmail('bad'), ...body })).json).toEqual(reason('INVALID_OPTIONS_ERROR', text));
  });

  it('accepts an Android app origin', async () => {
    const origin = `android:apk-key-hash:${Buffer.alloc(32, 7).toString('base64url')}`;
    expect((await wa.registerOptions({ email: uniqueEmail('android'), origin })).json.status).toBe('OK');
  });

  it.each([
    [{ relyingPartyId: undefined }, "Field name 'relyingPartyId' is invalid in JSON input"],
    [{ email: 5 }, "Field name 'email' is invalid in JSON input"],
    [{ timeout: '60' }, "Field name 'timeout' is invalid in JSON input"],
    [{ userPresence: 'yes' }, "Field name 'userPresence' is invalid in JSON input"],
    [{ supportedAlgorithmIds: -7 }, "Field name 'supportedAlgorithmIds' is invalid in JSON input"],
  ])('answers 400 for %j', async (body, text) => {
    const res = await wa.registerOptions({ email: uniqueEmail('x'), ...body });
    expect([res.status, res.text]).toEqual([400, text]);
  });
});

describe('POST /recipe/webauthn/options/signin, GET …/options, DELETE …/options/remove', () => {
  it('makes sign-in options, reads them back in their tenant only, and removes them once', async () => {
    const o = (await wa.signInOptions({ timeout: 30000, userVerification: 'required' }, 'wa-t1')).json;
    expect(o).toEqual({
      status: 'OK',
      webauthnGeneratedOptionsId: expect.any(String),
      relyingPartyId: 'example.com',
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      timeout: 30000,
      userVerification: 'required',
      userPresence: false,
      createdAt: expect.any(Number),
      expiresAt: o.createdAt + 30000,
    });
    const id = o.webauthnGeneratedOptionsId;
    expect((await wa.getOptions(id, 'wa-t1')).json).toEqual({
      status: 'OK',
      webauthnGeneratedOptionsId: id,
      relyingPartyId: 'example.com',
      relyingPartyName: 'Example',
      challenge: o.challenge,
      timeout: 30000,
      origin: RP.origin,
      createdAt: o.createdAt,
      expiresAt: o.expiresAt,
      userVerification: 'required',
      userPresence: false,
    });
    expect((await wa.getOptions(id)).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    expect((await wa.removeOptions(id, 'wa-t2')).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    expect((await wa.removeOptions(id, 'wa-t1')).json).toEqual({ status: 'OK' });
    expect((await wa.removeOptions(id, 'wa-t1')).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    expect((await wa.getOptions(id, 'wa-t1')).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
  });

  it('answers INVALID_OPTIONS_ERROR for sign-in options too, and 400 without the query parameter', async () => {
    expect((await wa.signInOptions({ origin: 'https://evil.test' })).json).toEqual(reason('INVALID_OPTIONS_ERROR', 'Origin does not match RelyingParty Id'));
    const res = await api.get('/recipe/webauthn/options');
    expect([res.status, res.text]).toEqual([400, "Field name 'webauthnGeneratedOptionsId' is missing in GET request"]);
    expect((await api.request('POST', '/recipe/webauthn/options/remove')).status).toBe(405);
  });
});

describe('POST /recipe/webauthn/signup', () => {
  it.each([-7, -8, -257] as Alg[])('creates a webauthn user with an unverified email and the passkey (alg %i)', async (alg) => {
    const email = uniqueEmail('signup');
    const auth = new SoftAuthenticator(alg);
    const res = (await wa.signUpWith(auth, email)).json;
    expect(res).toEqual({
      status: 'OK',
      user: {
        id: res.recipeUserId,
        isPrimaryUser: false,
        tenantIds: ['public'],
        timeJoined: expect.any(Number),
        emails: [email],
        phoneNumbers: [],
        thirdParty: [],
        webauthn: { credentialIds: [auth.id] },
        loginMethods: [
          {
            tenantIds: ['public'],
            recipeUserId: res.recipeUserId,
            verified: false,
            timeJoined: res.user.timeJoined,
            recipeId: 'webauthn',
            email,
            webauthn: { credentialIds: [auth.id] },
          },
        ],
      },
      recipeUserId: expect.any(String),
      webauthnCredentialId: auth.id,
      relyingPartyId: 'example.com',
      relyingPartyName: 'Example',
    });
    expect(await linking.user(res.recipeUserId)).toEqual(res.user);
  });

  it('accepts packed self attestation, and refuses a statement signed by another key', async () => {
    const auth = new SoftAuthenticator(-8);
    expect((await wa.signUpWith(auth, uniqueEmail('packed'), undefined, { fmt: 'packed' })).json.status).toBe('OK');
    const other = new SoftAuthenticator(-7);
    expect(
      (await wa.signUpWith(other, uniqueEmail('packed'), undefined, { fmt: 'packed', attestationSignedBy: new SoftAuthenticator().privateKey })).json,
    ).toEqual(reason('INVALID_AUTHENTICATOR_ERROR', 'packed self attestation signature is invalid'));
  });

  it('answers EMAIL_ALREADY_EXISTS_ERROR for an email a webauthn user holds in the tenant, not for one in another tenant or recipe', async () => {
    const { email } = await webauthnUser();
    expect((await wa.signUpWith(new SoftAuthenticator(), email)).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await wa.signUpWith(new SoftAuthenticator(), email, 'wa-t1')).json.status).toBe('OK');
    const epEmail = uniqueEmail('ep');
    await linking.emailPassword(epEmail);
    expect((await wa.signUpWith(new SoftAuthenticator(), epEmail)).json.status).toBe('OK');
  });

  it('answers INVALID_CREDENTIALS_ERROR for a credential id already registered', async () => {
    const { auth } = await webauthnUser();
    expect((await wa.signUpWith(auth, uniqueEmail('dup'))).json).toEqual(reason('INVALID_CREDENTIALS_ERROR', 'A credential with this id already exists'));
  });

  it('answers OPTIONS_NOT_FOUND_ERROR for unknown options or another tenant’s, INVALID_OPTIONS_ERROR for sign-in options', async () => {
    const auth = new SoftAuthenticator();
    const o = (await wa.registerOptions({ email: uniqueEmail('t') }, 'wa-t1')).json;
    const credential = auth.register(wa.ceremony(o));
    expect((await wa.signUp('00000000-0000-4000-8000-000000000000', credential)).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    expect((await wa.signUp(o.webauthnGeneratedOptionsId, credential, 'wa-t2')).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    const signInOptions = (await wa.signInOptions()).json;
    expect((await wa.signUp(signInOptions.webauthnGeneratedOptionsId, auth.register(wa.ceremony(signInOptions)))).json).toEqual(
      reason('INVALID_OPTIONS_ERROR', 'Options were generated for a sign-in, not a registration'),
    );
    expect((await wa.signUp(o.webauthnGeneratedOptionsId, credential, 'wa-t1')).json.status).toBe('OK');
  });

  it('answers INVALID_AUTHENTICATOR_ERROR for a wrong origin or RP id, and INVALID_CREDENTIALS_ERROR for a bad id or type', async () => {
    const auth = new SoftAuthenticator();
    expect((await wa.signUpWith(auth, uniqueEmail('o'), undefined, { origin: 'https://evil.example.com' })).json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', /^The origin 'https:\/\/evil.example.com' does not match/),
    );
    expect((await wa.signUpWith(auth, uniqueEmail('rp'), undefined, { rpId: 'evil.com' })).json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', 'rpIdHash does not match the hash of the relying party id'),
    );
    const o = (await wa.registerOptions({ email: uniqueEmail('c') })).json;
    const credential = auth.register(wa.ceremony(o));
    expect((await wa.signUp(o.webauthnGeneratedOptionsId, { ...credential, id: undefined })).json).toEqual(
      reason('INVALID_CREDENTIALS_ERROR', 'credential id is missing!'),
    );
    expect((await wa.signUp(o.webauthnGeneratedOptionsId, { ...credential, type: 'x' })).json).toEqual(
      reason('INVALID_CREDENTIALS_ERROR', "not supported credential type: 'x'"),
    );
    const res = await wa.signUp(o.webauthnGeneratedOptionsId, 'not an object');
    expect([res.status, res.text]).toEqual([400, "Field name 'credential' is invalid in JSON input"]);
  });
});

describe('POST /recipe/webauthn/signin', () => {
  it.each([-7, -8, -257] as Alg[])('signs a user in with its passkey (alg %i), counter stored', async (alg) => {
    const { id, auth, user } = await webauthnUser(alg);
    const { res } = await wa.signInWith(auth);
    expect(res.json).toEqual({ status: 'OK', user, recipeUserId: id });
    expect((await wa.getCredential(id, auth.id)).json).toEqual(expect.objectContaining({ status: 'OK', updatedAt: expect.any(Number) }));
  });

  it('answers the one byte-identical repeat as the first, and refuses a third call and any other assertion on spent options', async () => {
    const { id, auth } = await webauthnUser();
    const { optionsId, assertion, res } = await wa.signInWith(auth);
    expect(res.json.status).toBe('OK');
    expect((await wa.signIn(optionsId, assertion)).json).toEqual(res.json);
    expect((await wa.signIn(optionsId, assertion)).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    const second = await wa.signInWith(auth);
    const options = (await wa.getOptions(second.optionsId)).json;
    expect((await wa.signIn(second.optionsId, auth.assert(wa.ceremony(options)))).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    // Replayed on fresh options, the old assertion's challenge is not theirs.
    const fresh = (await wa.signInOptions()).json;
    expect((await wa.signIn(fresh.webauthnGeneratedOptionsId, assertion)).json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', 'The actual challenge does not match the expected challenge'),
    );
    expect((await wa.signInWith(auth)).res.json).toEqual(expect.objectContaining({ status: 'OK', recipeUserId: id }));
  });

  it('lets two racing calls with one assertion both through (first use and its repeat), and a third no further', async () => {
    const { auth } = await webauthnUser();
    const options = (await wa.signInOptions()).json;
    const assertion = auth.assert(wa.ceremony(options));
    const answers = await Promise.all([1, 2, 3].map(() => wa.signIn(options.webauthnGeneratedOptionsId, assertion)));
    expect(answers.map((a) => a.json.status).sort()).toEqual(['OK', 'OK', 'OPTIONS_NOT_FOUND_ERROR']);
  });

  it('refuses a tampered assertion, a lower counter, a wrong origin or RP id', async () => {
    const { auth } = await webauthnUser();
    const o = (await wa.signInOptions()).json;
    const good = auth.assert(wa.ceremony(o));
    const sig = Buffer.from(good.response.signature, 'base64url');
    sig[sig.length - 1] ^= 1;
    expect((await wa.signIn(o.webauthnGeneratedOptionsId, { ...good, response: { ...good.response, signature: sig.toString('base64url') } })).json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', 'The assertion signature is invalid'),
    );
    // authenticatorData with its counter raised after signing; clientDataJSON changed after signing.
    const authData = Buffer.from(good.response.authenticatorData, 'base64url');
    authData[36] ^= 0x40;
    const tamperedAuthData = { ...good.response, authenticatorData: authData.toString('base64url') };
    expect((await wa.signIn(o.webauthnGeneratedOptionsId, { ...good, response: tamperedAuthData })).json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', 'The assertion signature is invalid'),
    );
    const clientData = JSON.parse(Buffer.from(good.response.clientDataJSON, 'base64url').toString('utf8'));
    const crossOrigin = Buffer.from(JSON.stringify({ ...clientData, crossOrigin: true })).toString('base64url');
    expect((await wa.signIn(o.webauthnGeneratedOptionsId, { ...good, response: { ...good.response, clientDataJSON: crossOrigin } })).json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', 'The assertion signature is invalid'),
    );
    expect((await wa.signIn(o.webauthnGeneratedOptionsId, { ...good, response: { ...good.response, clientDataJSON: '%%' } })).json).toEqual(
      reason('INVALID_CREDENTIALS_ERROR', 'response.clientDataJSON is missing or not base64url'),
    );
    // None of the refusals spent the options: the untouched assertion still signs in.
    expect((await wa.signIn(o.webauthnGeneratedOptionsId, good)).json.status).toBe('OK');
    auth.counter = 0;
    expect((await wa.signInWith(auth)).res.json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', 'Malicious counter value is detected. Cloned authenticators exist in parallel.'),
    );
    expect((await wa.signInWith(auth, undefined, { counter: 99, origin: 'https://app.example.org' })).res.json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', /^The origin/),
    );
    expect((await wa.signInWith(auth, undefined, { counter: 99, rpId: 'example.org' })).res.json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', 'rpIdHash does not match the hash of the relying party id'),
    );
    expect((await wa.signInWith(auth, undefined, { counter: 99, flags: FLAG.UP })).res.json.status).toBe('OK');
  });

  it('checks UV when the options require it and UP when they ask for presence', async () => {
    const { auth } = await webauthnUser(-257);
    expect((await wa.signInWith(auth, undefined, { flags: FLAG.UP })).res.json.status).toBe('OK');
    const uv = (await wa.signInOptions({ userVerification: 'required' })).json;
    expect((await wa.signIn(uv.webauthnGeneratedOptionsId, auth.assert(wa.ceremony(uv), { flags: FLAG.UP }))).json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', 'User verification is required, but the UV flag is not set'),
    );
    const up = (await wa.signInOptions({ userPresence: true })).json;
    expect((await wa.signIn(up.webauthnGeneratedOptionsId, auth.assert(wa.ceremony(up), { flags: FLAG.UV }))).json).toEqual(
      reason('INVALID_AUTHENTICATOR_ERROR', 'User presence is required, but the UP flag is not set'),
    );
    expect((await wa.signIn(up.webauthnGeneratedOptionsId, auth.assert(wa.ceremony(up)))).json.status).toBe('OK');
  });

  it('accepts a passkey whose counter stays 0 (synced passkeys) on every sign-in', async () => {
    const auth = new SoftAuthenticator(-8, 0);
    expect((await wa.signUpWith(auth, uniqueEmail('synced'))).json.status).toBe('OK');
    for (let i = 0; i < 2; i++) expect((await wa.signInWith(auth)).res.json.status).toBe('OK');
  });

  it('answers CREDENTIAL_NOT_FOUND_ERROR for an unknown passkey or one whose user is in another tenant, OPTIONS_NOT_FOUND_ERROR for another tenant’s options', async () => {
    expect((await wa.signInWith(new SoftAuthenticator())).res.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    const { auth } = await webauthnUser(-7, 'wa-t1');
    expect((await wa.signInWith(auth)).res.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    const o = (await wa.signInOptions({}, 'wa-t2')).json;
    expect((await wa.signIn(o.webauthnGeneratedOptionsId, auth.assert(wa.ceremony(o)), 'wa-t1')).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    expect((await wa.signInWith(auth, 'wa-t1')).res.json.status).toBe('OK');
  });
});

describe('passkeys of a user (app-wide calls)', () => {
  it('registers another passkey, lists, reads and removes them; the login method stays without passkeys', async () => {
    const { id, email, auth } = await webauthnUser();
    const second = new SoftAuthenticator(-8);
    const o = (await wa.registerOptions({ email })).json;
    expect(o.user.id).toBe(Buffer.from(id).toString('base64url'));
    expect((await wa.registerCredential(id, o.webauthnGeneratedOptionsId, second.register(wa.ceremony(o)))).json).toEqual({
      status: 'OK',
      webauthnCredentialId: second.id,
      recipeUserId: id,
      email,
      relyingPartyId: 'example.com',
      relyingPartyName: 'Example',
    });
    expect((await linking.user(id)).webauthn).toEqual({ credentialIds: [auth.id, second.id] });
    const listed = (await wa.list(id)).json;
    expect(listed).toEqual({
      status: 'OK',
      credentials: [
        { webauthnCredentialId: auth.id, recipeUserId: id, relyingPartyId: 'example.com', createdAt: expect.any(Number) },
        { webauthnCredentialId: second.id, recipeUserId: id, relyingPartyId: 'example.com', createdAt: expect.any(Number) },
      ],
    });
    expect((await wa.signInWith(second)).res.json.status).toBe('OK');
    expect((await wa.getCredential(id, second.id)).json).toEqual({
      status: 'OK',
      webauthnCredentialId: second.id,
      recipeUserId: id,
      relyingPartyId: 'example.com',
      createdAt: listed.credentials[1].createdAt,
      updatedAt: expect.any(Number),
    });
    expect((await api.get(`/recipe/webauthn/user/credential/?recipeUserId=${id}&webauthnCredentialId=${auth.id}`)).json.status).toBe('OK');
    expect((await wa.getCredential('someone-else', second.id)).json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    expect((await wa.removeCredential(id, auth.id)).json).toEqual({ status: 'OK' });
    expect((await wa.removeCredential(id, auth.id)).json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    expect((await wa.signInWith(auth)).res.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    expect((await wa.removeCredential(id, second.id)).json).toEqual({ status: 'OK' });
    expect((await wa.list(id)).json).toEqual({ status: 'OK', credentials: [] });
    expect((await linking.user(id)).loginMethods[0]).toEqual(expect.objectContaining({ recipeId: 'webauthn', email, webauthn: { credentialIds: [] } }));
  });

  it('answers CREDENTIAL_ALREADY_EXISTS_ERROR for a registered id, UNKNOWN_USER_ID_ERROR for a non-webauthn or unknown user', async () => {
    const { id, email, auth } = await webauthnUser();
    const o = (await wa.registerOptions({ email })).json;
    expect((await wa.registerCredential(id, o.webauthnGeneratedOptionsId, auth.register(wa.ceremony(o)))).json).toEqual({
      status: 'CREDENTIAL_ALREADY_EXISTS_ERROR',
    });
    const other = new SoftAuthenticator();
    const ep = await linking.emailPassword();
    expect((await wa.registerCredential(ep, o.webauthnGeneratedOptionsId, other.register(wa.ceremony(o)))).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await wa.registerCredential('nobody', o.webauthnGeneratedOptionsId, other.register(wa.ceremony(o)))).json).toEqual({
      status: 'UNKNOWN_USER_ID_ERROR',
    });
    expect((await wa.registerCredential(id, 'no-such-options', other.register(wa.ceremony(o)))).json).toEqual({ status: 'OPTIONS_NOT_FOUND_ERROR' });
    expect((await wa.list('nobody')).json).toEqual({ status: 'OK', credentials: [] });
  });

  it('finds options of any tenant, and refuses a tenant segment on the app-wide calls (403)', async () => {
    const { id, email } = await webauthnUser();
    const o = (await wa.registerOptions({ email }, 'wa-t1')).json;
    expect((await wa.registerCredential(id, o.webauthnGeneratedOptionsId, new SoftAuthenticator().register(wa.ceremony(o)))).json.status).toBe('OK');
    for (const [method, path] of [
      ['POST', '/wa-t1/recipe/webauthn/user/credential/register'],
      ['GET', `/wa-t1/recipe/webauthn/user/credential/list?recipeUserId=${id}`],
      ['GET', `/wa-t1/recipe/webauthn/user/credential?recipeUserId=${id}&webauthnCredentialId=AAAA`],
      ['DELETE', `/wa-t1/recipe/webauthn/user/credential/remove?recipeUserId=${id}&webauthnCredentialId=AAAA`],
    ]) {
      const res = await api.request(method, path, method === 'POST' ? { body: {} } : {});
      expect([res.status, res.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    }
  });

  it('answers by the external id once mapped, as the core translates it', async () => {
    const { id, auth } = await webauthnUser();
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: `ext-${id}` })).json.status).toBe('OK');
    expect((await wa.list(`ext-${id}`)).json.credentials).toEqual([expect.objectContaining({ webauthnCredentialId: auth.id, recipeUserId: `ext-${id}` })]);
    expect((await wa.getCredential(`ext-${id}`, auth.id)).json.status).toBe('OK');
    expect((await wa.signInWith(auth)).res.json).toEqual(expect.objectContaining({ status: 'OK', recipeUserId: `ext-${id}` }));
  });
});

describe('users, removal and account linking with a webauthn login method', () => {
  it('finds the user by webauthnCredentialId in its tenant, alone or with its email', async () => {
    const { id, email, auth } = await webauthnUser();
    const by = (q: string, tenant = '') => api.get(`${tenant}/users/by-accountinfo?${q}&doUnionOfAccountInfo=false`);
    expect((await by(`webauthnCredentialId=${auth.id}`)).json.users.map((u: { id: string }) => u.id)).toEqual([id]);
    expect((await by(`webauthnCredentialId=${auth.id}&email=${encodeURIComponent(email)}`)).json.users).toHaveLength(1);
    expect((await by(`webauthnCredentialId=${auth.id}&email=other%40example.com`)).json.users).toEqual([]);
    expect((await by(`webauthnCredentialId=${auth.id}`, '/wa-t1')).json.users).toEqual([]);
    expect((await by('webauthnCredentialId=AAAA')).json.users).toEqual([]);
    expect((await api.get('/users?includeRecipeIds=webauthn&limit=500')).json.users.map((u: { id: string }) => u.id)).toContain(id);
  });

  it('removes the passkeys with the user', async () => {
    const { id, auth } = await webauthnUser();
    expect((await linking.remove(id)).json).toEqual({ status: 'OK', didUserExist: true });
    expect((await wa.signInWith(auth)).res.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    expect((await wa.getCredential(id, auth.id)).json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    // The id is free again.
    expect((await wa.signUpWith(auth, uniqueEmail('again'))).json.status).toBe('OK');
  });

  it('links and unlinks like a passwordless email: the primary user answers sign-in, with the union of passkeys', async () => {
    const email = uniqueEmail('link');
    const { id, auth } = await webauthnUser(-7, undefined, email);
    const ep = await linking.emailPassword(email);
    expect((await linking.createPrimary(id)).json).toEqual(expect.objectContaining({ status: 'OK', wasAlreadyAPrimaryUser: false }));
    expect((await linking.link(ep, id)).json.status).toBe('OK');
    const { res } = await wa.signInWith(auth);
    expect(res.json.recipeUserId).toBe(id);
    expect(res.json.user).toEqual(expect.objectContaining({ id, isPrimaryUser: true, emails: [email], webauthn: { credentialIds: [auth.id] } }));
    expect(res.json.user.loginMethods.map((lm: { recipeId: string }) => lm.recipeId).sort()).toEqual(['emailpassword', 'webauthn']);
    expect((await api.get(`/users/by-accountinfo?webauthnCredentialId=${auth.id}&doUnionOfAccountInfo=false`)).json.users[0].id).toBe(id);
    // Another primary user with the email conflicts with a webauthn login method as with any email.
    const email2 = uniqueEmail('conflict');
    const pl = await linking.passwordless({ email: email2 });
    expect((await linking.createPrimary(pl)).json.status).toBe('OK');
    const w2 = await webauthnUser(-8, undefined, email2);
    expect((await linking.createPrimary(w2.id)).json.status).toBe('ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR');
    expect((await linking.link(w2.id, pl)).json.status).toBe('OK');
    expect((await linking.unlink(w2.id)).json).toEqual({ status: 'OK', wasLinked: true, wasRecipeUserDeleted: false });
    expect((await wa.signInWith(w2.auth)).res.json).toEqual(
      expect.objectContaining({ status: 'OK', recipeUserId: w2.id, user: expect.objectContaining({ id: w2.id, isPrimaryUser: false }) }),
    );
    // Unlinking the primary user's own webauthn login method deletes it, and its passkeys with it.
    expect((await linking.unlink(id)).json).toEqual({ status: 'OK', wasLinked: true, wasRecipeUserDeleted: true });
    expect((await wa.signInWith(auth)).res.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
  });
});

describe('a credential id is unique in the app', () => {
  it('lets exactly one of four racing sign-ups with one credential id win, in any tenant', async () => {
    const auth = new SoftAuthenticator();
    const tenants = [undefined, undefined, 'wa-t1', 'wa-t2'];
    const options = await Promise.all(tenants.map(async (t) => (await wa.registerOptions({ email: uniqueEmail('race') }, t)).json));
    const answers = await Promise.all(options.map((o, i) => wa.signUp(o.webauthnGeneratedOptionsId, auth.register(wa.ceremony(o)), tenants[i])));
    expect(answers.map((a) => a.json.status).sort()).toEqual(['INVALID_CREDENTIALS_ERROR', 'INVALID_CREDENTIALS_ERROR', 'INVALID_CREDENTIALS_ERROR', 'OK']);
    const winner = answers.find((a) => a.json.status === 'OK')?.json.recipeUserId;
    const found = (await api.get(`/users/by-accountinfo?webauthnCredentialId=${auth.id}&doUnionOfAccountInfo=false`)).json.users;
    const t1 = (await api.get(`/wa-t1/users/by-accountinfo?webauthnCredentialId=${auth.id}&doUnionOfAccountInfo=false`)).json.users;
    const t2 = (await api.get(`/wa-t2/users/by-accountinfo?webauthnCredentialId=${auth.id}&doUnionOfAccountInfo=false`)).json.users;
    expect([...found, ...t1, ...t2].map((u: { id: string }) => u.id)).toEqual([winner]);
  });

  it('lets exactly one of two racing registrations of one id win: a sign-up against a credential added to another user', async () => {
    const a = await webauthnUser();
    const b = await webauthnUser();
    const auth = new SoftAuthenticator(-8);
    const [oa, ob, os] = await Promise.all([
      wa.registerOptions({ email: a.email }),
      wa.registerOptions({ email: b.email }),
      wa.registerOptions({ email: uniqueEmail('race') }),
    ]).then((rs) => rs.map((r) => r.json));
    const answers = await Promise.all([
      wa.registerCredential(a.id, oa.webauthnGeneratedOptionsId, auth.register(wa.ceremony(oa))),
      wa.registerCredential(b.id, ob.webauthnGeneratedOptionsId, auth.register(wa.ceremony(ob))),
    ]);
    expect(answers.map((r) => r.json.status).sort()).toEqual(['CREDENTIAL_ALREADY_EXISTS_ERROR', 'OK']);
    const owner = answers[0].json.status === 'OK' ? a : b;
    expect((await wa.signUp(os.webauthnGeneratedOptionsId, auth.register(wa.ceremony(os)))).json).toEqual(
      reason('INVALID_CREDENTIALS_ERROR', 'A credential with this id already exists'),
    );
    expect((await wa.signInWith(auth)).res.json).toEqual(expect.objectContaining({ status: 'OK', recipeUserId: owner.id }));
    const lists = await Promise.all([wa.list(a.id), wa.list(b.id)]);
    expect(lists.map((l) => l.json.credentials.length).sort()).toEqual([1, 2]);
  });
});

describe('bad input is a 400 naming the field', () => {
  const options = '00000000-0000-4000-8000-000000000000';
  it.each([
    ['POST', '/recipe/webauthn/options/signin', { relyingPartyId: 'example.com', relyingPartyName: 'Example' }, "Field name 'origin' is invalid in JSON input"],
    ['POST', '/recipe/webauthn/options/signin', { ...RP, timeout: 1.5 }, "Field name 'timeout' is invalid in JSON input"],
    ['POST', '/recipe/webauthn/options/signin', { ...RP, userVerification: 1 }, "Field name 'userVerification' is invalid in JSON input"],
    ['POST', '/recipe/webauthn/signup', { credential: {} }, "Field name 'webauthnGeneratedOptionsId' is invalid in JSON input"],
    ['POST', '/recipe/webauthn/signin', { webauthnGeneratedOptionsId: options }, "Field name 'credential' is invalid in JSON input"],
    ['POST', '/recipe/webauthn/signin', { webauthnGeneratedOptionsId: 7, credential: {} }, "Field name 'webauthnGeneratedOptionsId' is invalid in JSON input"],
    ['POST', '/recipe/webauthn/signin', { webauthnGeneratedOptionsId: options, credential: [] }, "Field name 'credential' is invalid in JSON input"],
    [
      'POST',
      '/recipe/webauthn/user/credential/register',
      { webauthnGeneratedOptionsId: options, credential: {} },
      "Field name 'recipeUserId' is invalid in JSON input",
    ],
    ['GET', '/recipe/webauthn/user/credential/list', undefined, "Field name 'recipeUserId' is missing in GET request"],
    ['GET', '/recipe/webauthn/user/credential?recipeUserId=u', undefined, "Field name 'webauthnCredentialId' is missing in GET request"],
    ['DELETE', '/recipe/webauthn/user/credential/remove?webauthnCredentialId=AAAA', undefined, "Field name 'recipeUserId' is missing in GET request"],
    ['DELETE', '/recipe/webauthn/options/remove', undefined, "Field name 'webauthnGeneratedOptionsId' is missing in GET request"],
  ])('%s %s %j: %s', async (method, path, body, text) => {
    const res = await api.request(method, path, body === undefined ? {} : { body });
    expect([res.status, res.text]).toEqual([400, text]);
  });

  it('answers INVALID_CREDENTIALS_ERROR, never a 5xx, for undecodable parts of a credential', async () => {
    const auth = new SoftAuthenticator();
    const o = (await wa.registerOptions({ email: uniqueEmail('junk') })).json;
    const good = auth.register(wa.ceremony(o));
    const junk = [
      { ...good, id: 'not base64url!' },
      { ...good, response: undefined },
      { ...good, response: { ...good.response, attestationObject: Buffer.from([0xa1, 0x63]).toString('base64url') } },
      { ...good, response: { ...good.response, clientDataJSON: Buffer.from('{"type":').toString('base64url') } },
    ];
    for (const credential of junk) {
      const res = await wa.signUp(o.webauthnGeneratedOptionsId, credential);
      expect([res.status, res.json.status]).toEqual([200, 'INVALID_CREDENTIALS_ERROR']);
    }
    expect((await wa.signUp(o.webauthnGeneratedOptionsId, good)).json.status).toBe('OK');
  });
});
