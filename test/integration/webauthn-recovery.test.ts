import { createHash } from 'node:crypto';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';
import { startApi, tableProblems, type TestApi } from '../support/api';
import { uniqueEmail } from '../support/flows';
import { linkingClient } from '../support/linking';
import { scanTable, testDocClient } from '../support/table';
import { SoftAuthenticator, webauthnClient } from '../support/webauthn';

/**
 * The rest of the WebAuthn recipe over HTTP (SPEC §21): account recovery tokens (generate,
 * consume, the user of a token), the email update, and a passkey user in account linking and
 * tenant association. Every status and text, the 400s, single use under racing consumes, and no
 * token in the table, a log line or another answer. Expiry (a clock the test moves) is in
 * `webauthn-recipe.test.ts`.
 */
let api: TestApi;
let wa: ReturnType<typeof webauthnClient>;
let linking: ReturnType<typeof linkingClient>;
beforeAll(async () => {
  api = await startApi();
  wa = webauthnClient(api);
  linking = linkingClient(api);
  for (const tenantId of ['rc-t1', 'rc-t2']) expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).status).toBe(200);
});
afterAll(() => api.stop());

const INVALID = { status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' };
/** Every token an answer gave, to look for afterwards. */
const tokens: string[] = [];

/** A webauthn user signed up with a new authenticator: its id, email and authenticator. */
async function webauthnUser(tenantId?: string, email = uniqueEmail('rc')) {
  const auth = new SoftAuthenticator();
  const res = await wa.signUpWith(auth, email, tenantId);
  expect(res.json.status).toBe('OK');
  return { id: res.json.recipeUserId as string, email, auth };
}

/** A recovery token: generate's answer must be `OK`. */
async function tokenFor(userId: string, email: string, tenantId?: string): Promise<string> {
  const res = await wa.recoverToken(userId, email, tenantId);
  expect(res.json).toEqual({ status: 'OK', token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  tokens.push(res.json.token);
  return res.json.token;
}

describe('POST /recipe/webauthn/user/recover/token', () => {
  it('makes a 32-byte base64url token for a user of any recipe, stored only as its SHA-256', async () => {
    const { id, email } = await webauthnUser();
    const token = await tokenFor(id, `  ${email.toUpperCase()} `);
    const items = await scanTable(api.tableName);
    const hash = createHash('sha256').update(token).digest('hex');
    expect(items.filter((i) => i.tokenHash === hash).map((i) => [i.type, i.userId, i.email])).toEqual([['waRecoveryToken', id, email]]);
    expect(JSON.stringify(items)).not.toContain(token);
    // An email-password user, and a user that holds no such email: as the core, the SDK checks that.
    const ep = await linking.emailPassword();
    await tokenFor(ep, uniqueEmail('other'));
  });

  it('takes an external id and stores the SuperTokens id it maps to', async () => {
    const { id, email } = await webauthnUser();
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: `ext-rc-${id}` })).json.status).toBe('OK');
    const token = await tokenFor(`ext-rc-${id}`, email);
    const hash = createHash('sha256').update(token).digest('hex');
    expect((await scanTable(api.tableName)).find((i) => i.tokenHash === hash)?.userId).toBe(id);
    expect((await wa.consumeToken(token)).json).toEqual({ status: 'OK', userId: `ext-rc-${id}`, email });
  });

  it('answers UNKNOWN_USER_ID_ERROR for an unknown user', async () => {
    expect((await wa.recoverToken('no-such-user', 'a@example.com')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });
});

describe('POST /recipe/webauthn/user/recover/token/consume', () => {
  it('answers the user id and email once, then RECOVER_ACCOUNT_TOKEN_INVALID_ERROR', async () => {
    const { id, email } = await webauthnUser();
    const token = await tokenFor(id, email);
    expect((await wa.consumeToken(token)).json).toEqual({ status: 'OK', userId: id, email });
    expect((await wa.consumeToken(token)).json).toEqual(INVALID);
    expect((await wa.consumeToken('not-a-token')).json).toEqual(INVALID);
  });

  it('ends every token of the email in the tenant, not those of another email or tenant', async () => {
    const { id, email } = await webauthnUser();
    const [a, b, otherEmail, otherTenant] = [
      await tokenFor(id, email),
      await tokenFor(id, email),
      await tokenFor(id, 'x@example.com'),
      await tokenFor(id, email, 'rc-t1'),
    ];
    expect((await wa.consumeToken(b)).json.status).toBe('OK');
    expect((await wa.consumeToken(a)).json).toEqual(INVALID);
    expect((await wa.consumeToken(otherEmail)).json).toEqual({ status: 'OK', userId: id, email: 'x@example.com' });
    expect((await wa.consumeToken(otherTenant)).json).toEqual(INVALID);
    expect((await wa.consumeToken(otherTenant, 'rc-t2')).json).toEqual(INVALID);
    expect((await wa.consumeToken(otherTenant, 'rc-t1')).json).toEqual({ status: 'OK', userId: id, email });
  });

  it('lets exactly one of 10 racing consumes of a token win, and one of two tokens of an email consumed at once', async () => {
    const { id, email } = await webauthnUser();
    const token = await tokenFor(id, email);
    const answers = await Promise.all(Array.from({ length: 10 }, () => wa.consumeToken(token)));
    expect(answers.map((r) => r.json.status).sort()).toEqual(['OK', ...Array(9).fill('RECOVER_ACCOUNT_TOKEN_INVALID_ERROR')]);
    const pair = [await tokenFor(id, email), await tokenFor(id, email)];
    const both = await Promise.all(pair.map((t) => wa.consumeToken(t)));
    expect(both.map((r) => r.json.status).sort()).toEqual(['OK', 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR']);
  });

  it("answers RECOVER_ACCOUNT_TOKEN_INVALID_ERROR for a removed user's token, and ends it", async () => {
    const { id, email } = await webauthnUser();
    const token = await tokenFor(id, email);
    expect((await linking.remove(id)).json.status).toBe('OK');
    expect((await wa.consumeToken(token)).json).toEqual(INVALID);
    const hash = createHash('sha256').update(token).digest('hex');
    expect((await scanTable(api.tableName)).filter((i) => i.tokenHash === hash || i.sk === hash)).toEqual([]);
  });
});

describe('GET /recipe/webauthn/user/recover?token=', () => {
  it('answers the user and its webauthn login method in the tenant without consuming the token', async () => {
    const { id, email, auth } = await webauthnUser();
    const token = await tokenFor(id, email);
    const res = (await wa.recoverUser(token)).json;
    expect(res).toEqual({ status: 'OK', user: expect.objectContaining({ id, emails: [email], webauthn: { credentialIds: [auth.id] } }), recipeUserId: id });
    expect((await wa.recoverUser(token)).json.status).toBe('OK');
    expect((await wa.consumeToken(token)).json.status).toBe('OK');
    expect((await wa.recoverUser(token)).json).toEqual(INVALID);
  });

  it('leaves recipeUserId out for a user without a webauthn login method in the tenant; another tenant does not find the token', async () => {
    const ep = await linking.emailPassword();
    const token = await tokenFor(ep, 'new@example.com');
    const res = (await wa.recoverUser(token)).json;
    expect(res).toEqual({ status: 'OK', user: expect.objectContaining({ id: ep }) });
    expect('recipeUserId' in res).toBe(false);
    const w = await webauthnUser();
    const t1 = await tokenFor(w.id, w.email, 'rc-t1');
    expect((await wa.recoverUser(t1)).json).toEqual(INVALID);
    // In rc-t1, but the user's webauthn login method is in public only.
    expect((await wa.recoverUser(t1, 'rc-t1')).json).toEqual({ status: 'OK', user: expect.objectContaining({ id: w.id }) });
    expect((await wa.recoverUser('not-a-token')).json).toEqual(INVALID);
  });

  it("answers a primary user, and its webauthn login method holding the token's email, by external id when mapped", async () => {
    const a = await webauthnUser();
    const b = await webauthnUser();
    expect((await linking.createPrimary(a.id)).json.status).toBe('OK');
    expect((await linking.link(b.id, a.id)).json.status).toBe('OK');
    expect((await api.post('/recipe/userid/map', { superTokensUserId: b.id, externalUserId: `ext-rc-${b.id}` })).json.status).toBe('OK');
    const byA = (await wa.recoverUser(await tokenFor(b.id, a.email))).json;
    expect([byA.user.id, byA.user.loginMethods.length, byA.recipeUserId]).toEqual([a.id, 2, a.id]);
    expect((await wa.recoverUser(await tokenFor(a.id, b.email))).json.recipeUserId).toBe(`ext-rc-${b.id}`);
  });

  it('recovers an account as the SDK does: the token, then a new passkey on the login method, which signs in', async () => {
    const { id, email, auth } = await webauthnUser();
    const token = await tokenFor(id, email);
    const { recipeUserId } = (await wa.recoverUser(token)).json;
    const consumed = (await wa.consumeToken(token)).json;
    const options = (await wa.registerOptions({ email: consumed.email })).json;
    const fresh = new SoftAuthenticator(-8);
    expect((await wa.registerCredential(recipeUserId, options.webauthnGeneratedOptionsId, fresh.register(wa.ceremony(options)))).json.status).toBe('OK');
    expect((await wa.signInWith(fresh)).res.json).toEqual(expect.objectContaining({ status: 'OK', recipeUserId: id }));
    expect((await wa.signInWith(auth)).res.json.status).toBe('OK');
  });
});

describe('PUT /recipe/webauthn/user/email', () => {
  it('changes the email in every tenant of the login method; the new one is unverified, sign-in unchanged', async () => {
    const { id, email, auth } = await webauthnUser();
    expect((await api.post('/rc-t1/recipe/multitenancy/tenant/user', { recipeUserId: id })).json.status).toBe('OK');
    const ev = (await api.post('/recipe/user/email/verify/token', { userId: id, email })).json.token;
    expect((await api.post('/recipe/user/email/verify', { method: 'token', token: ev })).json.status).toBe('OK');
    const next = uniqueEmail('moved');
    expect((await wa.updateEmail(id, ` ${next.toUpperCase()}`, 'rc-t2')).json).toEqual({ status: 'OK' });
    const lm = (await linking.user(id)).loginMethods[0];
    expect([lm.email, lm.verified, lm.tenantIds.sort()]).toEqual([next, false, ['public', 'rc-t1']]);
    for (const t of ['', '/rc-t1']) {
      expect(
        (await api.get(`${t}/users/by-accountinfo?email=${encodeURIComponent(next)}&doUnionOfAccountInfo=false`)).json.users.map((u: { id: string }) => u.id),
      ).toEqual([id]);
      expect((await api.get(`${t}/users/by-accountinfo?email=${encodeURIComponent(email)}&doUnionOfAccountInfo=false`)).json.users).toEqual([]);
    }
    expect((await wa.signInWith(auth, 'rc-t1')).res.json).toEqual(expect.objectContaining({ status: 'OK', recipeUserId: id }));
    // The old email is free for another webauthn user; the same email again is OK.
    expect((await wa.signUpWith(new SoftAuthenticator(), email)).json.status).toBe('OK');
    expect((await wa.updateEmail(id, next)).json).toEqual({ status: 'OK' });
  });

  it('answers UNKNOWN_USER_ID_ERROR for an unknown id or one of another recipe; takes an external id', async () => {
    expect((await wa.updateEmail('no-such-user', 'a@example.com')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await wa.updateEmail(await linking.emailPassword(), 'a@example.com')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const { id } = await webauthnUser();
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: `ext-em-${id}` })).json.status).toBe('OK');
    const next = uniqueEmail('ext');
    expect((await wa.updateEmail(`ext-em-${id}`, next)).json).toEqual({ status: 'OK' });
    expect((await linking.user(id)).emails).toEqual([next]);
  });

  it('answers EMAIL_ALREADY_EXISTS_ERROR for an email another webauthn login method holds in one of its tenants only', async () => {
    const a = await webauthnUser();
    const b = await webauthnUser();
    const elsewhere = await webauthnUser('rc-t1');
    const ep = uniqueEmail('ep-held');
    await linking.emailPassword(ep);
    expect((await wa.updateEmail(a.id, b.email)).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await wa.updateEmail(a.id, elsewhere.email)).json).toEqual({ status: 'OK' });
    expect((await wa.updateEmail(a.id, ep)).json).toEqual({ status: 'OK' });
  });

  it("answers USER_WITH_EMAIL_ALREADY_EXISTS_ERROR for a primary user's login method and an email another primary user holds", async () => {
    const { id } = await webauthnUser();
    expect((await linking.createPrimary(id)).json.status).toBe('OK');
    const taken = uniqueEmail('primary');
    expect((await linking.createPrimary(await linking.emailPassword(taken))).json.status).toBe('OK');
    expect((await wa.updateEmail(id, taken)).json).toEqual({ status: 'USER_WITH_EMAIL_ALREADY_EXISTS_ERROR' });
    // A login method on its own may take it.
    const alone = await webauthnUser();
    expect((await wa.updateEmail(alone.id, taken)).json).toEqual({ status: 'OK' });
  });
});

describe('a passkey user in account linking and tenant association', () => {
  it('is linked to a primary user and associated into another tenant, where its passkey then signs the primary user in', async () => {
    const email = uniqueEmail('assoc');
    const primary = await linking.emailPassword(email);
    expect((await linking.createPrimary(primary)).json.status).toBe('OK');
    const { id, auth } = await webauthnUser(undefined, email);
    expect((await linking.link(id, primary)).json.status).toBe('OK');
    expect((await wa.signInWith(auth, 'rc-t2')).res.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
    expect((await api.post('/rc-t2/recipe/multitenancy/tenant/user', { recipeUserId: id })).json).toEqual({ status: 'OK', wasAlreadyAssociated: false });
    const { res } = await wa.signInWith(auth, 'rc-t2');
    expect(res.json).toEqual(expect.objectContaining({ status: 'OK', recipeUserId: id, user: expect.objectContaining({ id: primary, isPrimaryUser: true }) }));
    expect(res.json.user.loginMethods.find((lm: { recipeId: string }) => lm.recipeId === 'webauthn').tenantIds.sort()).toEqual(['public', 'rc-t2']);
    expect(
      (await api.get(`/rc-t2/users/by-accountinfo?webauthnCredentialId=${auth.id}&doUnionOfAccountInfo=false`)).json.users.map((u: { id: string }) => u.id),
    ).toEqual([primary]);
    // Disassociated again: the tenant no longer finds the passkey.
    expect((await api.post('/rc-t2/recipe/multitenancy/tenant/user/remove', { recipeUserId: id })).json).toEqual({ status: 'OK', wasAssociated: true });
    expect((await wa.signInWith(auth, 'rc-t2')).res.json).toEqual({ status: 'CREDENTIAL_NOT_FOUND_ERROR' });
  });

  it('answers EMAIL_ALREADY_EXISTS_ERROR when a webauthn user of the tenant holds the email', async () => {
    const email = uniqueEmail('assoc-dup');
    const { id } = await webauthnUser(undefined, email);
    await webauthnUser('rc-t1', email);
    expect((await api.post('/rc-t1/recipe/multitenancy/tenant/user', { recipeUserId: id })).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
  });
});

describe('bad input is a 400 naming the field', () => {
  it.each([
    ['POST', '/recipe/webauthn/user/recover/token', { email: 'a@example.com' }, "Field name 'userId' is invalid in JSON input"],
    ['POST', '/recipe/webauthn/user/recover/token', { userId: 'u', email: 7 }, "Field name 'email' is invalid in JSON input"],
    ['POST', '/recipe/webauthn/user/recover/token', { userId: 'u', email: 'nobody' }, "Field name 'email' is not an email address: it has no '@'"],
    ['POST', '/recipe/webauthn/user/recover/token/consume', {}, "Field name 'token' is invalid in JSON input"],
    ['POST', '/recipe/webauthn/user/recover/token/consume', { token: 5 }, "Field name 'token' is invalid in JSON input"],
    ['GET', '/recipe/webauthn/user/recover', undefined, "Field name 'token' is missing in GET request"],
    ['PUT', '/recipe/webauthn/user/email', { email: 'a@example.com' }, "Field name 'recipeUserId' is invalid in JSON input"],
    ['PUT', '/recipe/webauthn/user/email', { recipeUserId: 'u' }, "Field name 'email' is invalid in JSON input"],
    [
      'PUT',
      '/recipe/webauthn/user/email',
      { recipeUserId: 'u', email: 'a b@example.com' },
      "Field name 'email' is not an email address: it contains whitespace",
    ],
  ])('%s %s %j: %s', async (method, path, body, text) => {
    const res = await api.request(method, path, body === undefined ? {} : { body });
    expect([res.status, res.text]).toEqual([400, text]);
  });

  it('answers 405 for another method, and 400 for an unknown tenant', async () => {
    expect((await api.get('/recipe/webauthn/user/email')).status).toBe(405);
    expect((await api.post('/no-such-tenant/recipe/webauthn/user/recover/token/consume', { token: 'x' })).status).toBe(400);
  });
});

describe('the consistency checker', () => {
  it('finds a recovery token without its entry, and an entry without its token', async () => {
    const { id, email } = await webauthnUser();
    const [a, b] = [await tokenFor(id, email), await tokenFor(id, email)];
    const sha = (t: string) => createHash('sha256').update(t).digest('hex');
    const doc = testDocClient();
    const drop = (Key: { pk: string; sk: string }) => doc.send(new DeleteCommand({ TableName: api.tableName, Key }));
    try {
      await drop({ pk: keys.webauthnRecoveryTokensOf('public', email), sk: sha(a) });
      await drop(keys.webauthnRecoveryToken('public', sha(b)));
      const problems = await tableProblems(api.tableName);
      expect(problems.map((p) => [p.kind, p.key]).sort()).toEqual(
        [
          ['recovery-entry-without-token', keys.webauthnRecoveryTokensOf('public', email)],
          ['recovery-token-without-entry', keys.webauthnRecoveryToken('public', sha(a)).pk],
        ].sort(),
      );
      expect(JSON.stringify(problems)).not.toContain(a);
    } finally {
      // Mended, so the suite's own check at the end finds nothing.
      await drop(keys.webauthnRecoveryToken('public', sha(a)));
      await drop({ pk: keys.webauthnRecoveryTokensOf('public', email), sk: sha(b) });
      doc.destroy();
    }
  });
});

describe('no token outside the answer that made it', () => {
  it('has no token in any log line', async () => {
    expect(tokens.length).toBeGreaterThan(10);
    // The server writes its lines through a pipe: wait for the last request's line before reading.
    await api.post('/recipe/webauthn/user/recover/token/consume', { token: 'last-request' });
    expect(await api.logLine((l) => l.includes('recover/token/consume') || l.includes('webauthn-recover-token-consume'))).toBeDefined();
    const logs = api.logs.join('\n');
    expect(tokens.filter((t) => logs.includes(t))).toEqual([]);
  });
});
