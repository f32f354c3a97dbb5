import { randomBytes } from 'node:crypto';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { BCRYPT_VECTORS } from '../fixtures/password-vectors';
import { startApi, type TestApi } from '../support/api';
import { SoftAuthenticator, webauthnClient } from '../support/webauthn';
import { bulkRowCount, bulkRowsDrained } from '../support/bulk-users';

/**
 * Passkeys in bulk import (SPEC §21, passkey import): a `webauthn` login method carries the public
 * parts of each credential; the imported passkey then signs in, as the imported user (its external
 * id), with an assertion the old authenticator signs; a credential id is the app's once (E040).
 * The software authenticator's key stands in for the old provider's passkey: the test makes it
 * and imports only its COSE public key.
 */
let n = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`;
const email = () => `${unique('pk')}@example.com`;
const RP_ID = 'example.com';
const bcrypt = BCRYPT_VECTORS[0];
/** A passkey as an export gives it: the public parts of `auth`'s credential, its counter as last seen. */
const passkeyOf = (auth: SoftAuthenticator, over: Record<string, unknown> = {}) => ({
  credentialId: auth.id,
  publicKey: auth.coseKey().toString('base64url'),
  rpId: RP_ID,
  counter: auth.counter,
  transports: ['internal'],
  ...over,
});
const webauthnLm = (address: string, credentials: unknown[], over: Record<string, unknown> = {}) => ({
  recipeId: 'webauthn',
  email: address,
  credentials,
  ...over,
});

describe('passkey import, one user at once (POST /bulk-import/import)', () => {
  let api: TestApi;
  let wa: ReturnType<typeof webauthnClient>;
  beforeAll(async () => {
    api = await startApi({ WEBAUTHN_RP_ID: `${RP_ID},auth.example.org` });
    wa = webauthnClient(api);
  });
  afterAll(() => api.stop());

  it.each([
    ['ES256', -7],
    ['Ed25519', -8],
    ['RS256', -257],
  ] as const)('an imported %s passkey signs in as the imported user (its external id), its password linked beside it', async (_name, alg) => {
    const auth = new SoftAuthenticator(alg);
    auth.counter = 9;
    const externalUserId = unique('kc');
    const address = email();
    const res = await api.post('/bulk-import/import', {
      externalUserId,
      loginMethods: [
        { recipeId: 'emailpassword', email: address, passwordHash: bcrypt.hash, hashingAlgorithm: 'bcrypt', timeJoinedInMSSinceEpoch: 1_000 },
        webauthnLm(address, [passkeyOf(auth)], { isPrimary: true, isVerified: true, timeJoinedInMSSinceEpoch: 2_000 }),
      ],
    });
    expect([res.status, res.json.user.id, res.json.user.isPrimaryUser]).toEqual([200, externalUserId, true]);
    expect(res.json.user.webauthn).toEqual({ credentialIds: [auth.id] });
    const webauthnMethod = res.json.user.loginMethods.find((lm: { recipeId: string }) => lm.recipeId === 'webauthn');
    expect([webauthnMethod.email, webauthnMethod.verified, webauthnMethod.webauthn]).toEqual([address, true, { credentialIds: [auth.id] }]);

    // The old authenticator's next assertion (counter 10 over the exported 9).
    const signIn = await wa.signInWith(auth);
    expect([signIn.res.json.status, signIn.res.json.user.id, signIn.res.json.recipeUserId]).toEqual(['OK', externalUserId, webauthnMethod.recipeUserId]);
    const password = await api.post('/recipe/signin', { email: address, password: bcrypt.password });
    expect([password.json.status, password.json.user.id]).toEqual(['OK', externalUserId]);
    const listed = await wa.list(webauthnMethod.recipeUserId);
    expect(listed.json.credentials.map((c: { webauthnCredentialId: string; relyingPartyId: string }) => [c.webauthnCredentialId, c.relyingPartyId])).toEqual([
      [auth.id, RP_ID],
    ]);
  });

  it("keeps the exported counter: an assertion at or below it is refused, as the recipe refuses a cloned authenticator's", async () => {
    const auth = new SoftAuthenticator(-7);
    const res = await api.post('/bulk-import/import', { loginMethods: [webauthnLm(email(), [passkeyOf(auth, { counter: 50 })])] });
    expect(res.status).toBe(200);
    auth.counter = 49;
    const refused = await wa.signInWith(auth);
    expect(refused.res.json.status).toBe('INVALID_AUTHENTICATOR_ERROR');
    auth.counter = 50;
    expect((await wa.signInWith(auth)).res.json.status).toBe('OK');
  });

  it('takes a standard base64 credential id (Keycloak) and a passkey under another of WEBAUTHN_RP_ID', async () => {
    const auth = new SoftAuthenticator(-8);
    const res = await api.post('/bulk-import/import', {
      loginMethods: [webauthnLm(email(), [passkeyOf(auth, { credentialId: auth.credentialId.toString('base64'), rpId: 'Auth.Example.org' })])],
    });
    expect([res.status, res.json.user.webauthn]).toEqual([200, { credentialIds: [auth.id] }]);
    expect((await wa.signInWith(auth)).res.json.user.id).toBe(res.json.user.id);
  });

  it('two users with one credential id: the first wins, the second fails with E040 and writes nothing; the same user again is a no-op', async () => {
    const auth = new SoftAuthenticator(-7);
    const externalUserId = unique('first');
    const first = { externalUserId, loginMethods: [webauthnLm(email(), [passkeyOf(auth)])] };
    expect((await api.post('/bulk-import/import', first)).status).toBe(200);
    const count = (await api.get('/users/count')).json.count;

    const second = await api.post('/bulk-import/import', { externalUserId: unique('second'), loginMethods: [webauthnLm(email(), [passkeyOf(auth)])] });
    expect([second.status, second.json]).toEqual([400, { errors: [`E040: A credential with id ${auth.id} already exists.`] }]);
    // The same id with another key, on the same user again: E040 too.
    const other = new SoftAuthenticator(-7, 1, auth.credentialId);
    const rekeyed = await api.post('/bulk-import/import', { ...first, loginMethods: [webauthnLm(first.loginMethods[0].email, [passkeyOf(other)])] });
    expect(rekeyed.json).toEqual({ errors: [`E040: A credential with id ${auth.id} already exists.`] });
    expect((await api.get('/users/count')).json.count).toBe(count);

    const again = await api.post('/bulk-import/import', first);
    expect([again.status, again.json.user.id]).toEqual([200, externalUserId]);
    // A passkey more is not the same user: a conflict, as any changed identity (no passkey added).
    const added = new SoftAuthenticator(-8);
    const more = await api.post('/bulk-import/import', {
      ...first,
      loginMethods: [webauthnLm(first.loginMethods[0].email, [passkeyOf(auth), passkeyOf(added)])],
    });
    expect(more.json).toEqual({ errors: [`E031: A user with externalId ${externalUserId} already exists`] });
    expect((await wa.signInWith(added)).res.json.status).toBe('CREDENTIAL_NOT_FOUND_ERROR');
    expect((await api.get('/users/count')).json.count).toBe(count);
    expect((await wa.signInWith(auth)).res.json.user.id).toBe(externalUserId);
  });

  it('a webauthn email another webauthn user of the tenant holds fails with its text', async () => {
    const address = email();
    expect((await api.post('/bulk-import/import', { loginMethods: [webauthnLm(address, [passkeyOf(new SoftAuthenticator())])] })).status).toBe(200);
    const res = await api.post('/bulk-import/import', { loginMethods: [webauthnLm(address, [passkeyOf(new SoftAuthenticator())])] });
    expect(res.json).toEqual({ errors: [`A user with email ${address} already exists in webauthn loginMethod.`] });
  });

  it('answers each invalid credential with its text and writes nothing', async () => {
    const auth = new SoftAuthenticator(-7);
    const count = (await api.get('/users/count')).json.count;
    const short = randomBytes(8).toString('base64url');
    const res = await api.post('/bulk-import/import', {
      loginMethods: [
        webauthnLm(email(), [
          passkeyOf(auth, { rpId: 'evil.example.net' }),
          passkeyOf(new SoftAuthenticator(), { credentialId: short }),
          passkeyOf(new SoftAuthenticator(), { publicKey: auth.coseKey().subarray(0, 20).toString('base64url') }),
          passkeyOf(auth),
        ]),
      ],
    });
    expect([res.status, res.json.errors]).toEqual([
      400,
      [
        `rpId evil.example.net of credential ${auth.id} is not this deployment's relying party id (WEBAUTHN_RP_ID=example.com,auth.example.org): passkeys only work under the RP ID they were made for.`,
        `Invalid credentialId ${short} for a webauthn recipe.`,
        expect.stringMatching(/^Invalid publicKey for credential [\w-]+: it is not CBOR \(CBOR .*\)\. Pass a COSE key with alg -7, -8 or -257\.$/),
        `credentialId ${auth.id} is not unique. It is already used by another credential.`,
      ],
    ]);
    expect((await api.get('/users/count')).json.count).toBe(count);
    expect((await wa.signInWith(auth)).res.json.status).toBe('CREDENTIAL_NOT_FOUND_ERROR');
  });
});

describe('passkey import without WEBAUTHN_RP_ID', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.stop());

  it('refuses the passkeys, in both calls, naming the setting', async () => {
    const user = { loginMethods: [webauthnLm(email(), [passkeyOf(new SoftAuthenticator())])] };
    const text = 'Passkey import needs WEBAUTHN_RP_ID: set it to the relying party id the passkeys were made for.';
    expect((await api.post('/bulk-import/import', user)).json).toEqual({ errors: [text] });
    const staged = await api.post('/bulk-import/users', { users: [user] });
    expect([staged.status, staged.json.users]).toEqual([400, [{ index: 0, errors: [text] }]]);
  });
});

describe('passkey import, staged (POST /bulk-import/users) and imported by the worker', () => {
  let dynamo: DynamoDbLocal;
  let api: TestApi;
  let wa: ReturnType<typeof webauthnClient>;
  beforeAll(async () => {
    // A DynamoDB Local of its own, as the worker's suite: its stream serves this suite alone.
    dynamo = await startDynamoDbLocal();
    api = await startApi({ BULK_WORKER: 'on', AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint, WEBAUTHN_RP_ID: RP_ID });
    wa = webauthnClient(api);
  });
  afterAll(async () => {
    await api.stop();
    await dynamo.stop();
  });

  it('refuses one credential id twice in a request at the later index, staging nothing', async () => {
    const auth = new SoftAuthenticator();
    const res = await api.post('/bulk-import/users', {
      users: [{ loginMethods: [webauthnLm(email(), [passkeyOf(auth)])] }, { loginMethods: [webauthnLm(email(), [passkeyOf(auth)])] }],
    });
    expect([res.status, res.json.users]).toEqual([
      400,
      [{ index: 1, errors: [`credentialId ${auth.id} is not unique. It is already used by another credential.`] }],
    ]);
    expect(await bulkRowCount(api, 'NEW')).toBe(0);
  });

  it('imports staged passkeys that sign in as the staged user; of two rows with one credential id one wins, the other fails E040', async () => {
    const auth = new SoftAuthenticator(-7);
    auth.counter = 3;
    const externalUserId = unique('staged');
    const address = email();
    const staged = await api.post('/bulk-import/users', {
      users: [
        {
          externalUserId,
          loginMethods: [
            { recipeId: 'emailpassword', email: address, passwordHash: bcrypt.hash, hashingAlgorithm: 'bcrypt' },
            webauthnLm(address, [passkeyOf(auth)], { isPrimary: true }),
          ],
        },
      ],
    });
    expect(staged.status).toBe(200);
    expect(staged.json.users[0].loginMethods.map((lm: { recipeId: string; email: string }) => [lm.recipeId, lm.email])).toEqual([
      ['emailpassword', address],
      ['webauthn', address],
    ]);
    // A second request, so staging cannot see the first's id: the worker decides.
    const rival = await api.post('/bulk-import/users', {
      users: [{ externalUserId: unique('rival'), loginMethods: [webauthnLm(email(), [passkeyOf(auth)])] }],
    });
    expect(rival.status).toBe(200);
    await bulkRowsDrained(api);

    const failed = (await api.get('/bulk-import/users?status=FAILED')).json.users;
    expect(failed.map((r: { errorMessage: string }) => r.errorMessage)).toEqual([`E040: A credential with id ${auth.id} already exists.`]);
    // The failed row shows its passkeys' public parts.
    expect(failed[0].loginMethods.at(-1).credentials).toEqual([
      {
        credentialId: auth.id,
        publicKey: auth.coseKey().toString('base64url'),
        rpId: RP_ID,
        counter: 3,
        transports: ['internal'],
        aaguid: '00000000-0000-0000-0000-000000000000',
        createdAt: expect.any(Number),
      },
    ]);
    const winner = failed[0].externalUserId === externalUserId ? rival.json.users[0].userId : externalUserId;
    const signIn = await wa.signInWith(auth);
    expect([signIn.res.json.status, signIn.res.json.user.id]).toEqual(['OK', winner]);
    if (winner === externalUserId) {
      expect((await api.post('/recipe/signin', { email: address, password: bcrypt.password })).json.user.id).toBe(externalUserId);
    }
  }, 120_000);
});
