import { startApi, TEST_API_KEY, type ApiResponse, type TestApi } from '../support/api';
import { consumeInput, consumeLink, createCode, uniqueEmail, uniquePhone } from '../support/flows';
import { BCRYPT_VECTORS, VENDOR_SCRYPT_PROJECT, VENDOR_SCRYPT_VECTORS } from '../fixtures/password-vectors';

const MAX = 3;
let api: TestApi;
beforeAll(async () => {
  api = await startApi({ PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS: String(MAX), VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey });
});
afterAll(() => api.stop());

describe('brute force on user input codes', () => {
  it('never accepts more than the maximum number of wrong guesses for one device, even in parallel', async () => {
    for (let round = 0; round < 3; round++) {
      const code = await createCode(api, { email: uniqueEmail('brute') });
      const guesses = await Promise.all(
        Array.from({ length: 30 }, (_, i) => consumeInput(api, code, `wrong-${i}`, i % 2 ? '/recipe/signinup/code/consume' : '/recipe/signinup/code/check')),
      );
      const statuses = guesses.map((g) => g.json.status);
      const incorrect = statuses.filter((s) => s === 'INCORRECT_USER_INPUT_CODE_ERROR');
      expect(incorrect.length).toBeLessThanOrEqual(MAX - 1);
      expect(statuses.filter((s) => s !== 'INCORRECT_USER_INPUT_CODE_ERROR').every((s) => s === 'RESTART_FLOW_ERROR')).toBe(true);
      expect((await consumeInput(api, code, code.userInputCode)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    }
  });

  it('lets exactly one of 30 parallel consumes of one code win', async () => {
    const code = await createCode(api, { phoneNumber: uniquePhone() });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? consumeLink(api, code) : consumeInput(api, code, code.userInputCode))));
    expect(results.filter((r) => r.json.status === 'OK')).toHaveLength(1);
    expect(results.filter((r) => r.json.status === 'RESTART_FLOW_ERROR')).toHaveLength(29);
  });
});

describe('secret hygiene across every operation', () => {
  it('shows API keys, signer key, passwords, hashes, codes and verification tokens only where they belong, and never in a log line', async () => {
    const exchanges: { what: string; res: ApiResponse; allowed: string[] }[] = [];
    const run = async (what: string, p: Promise<ApiResponse>, allowed: string[] = []) => {
      const res = await p;
      exchanges.push({ what, res, allowed });
      return res;
    };
    const secrets: string[] = [TEST_API_KEY, VENDOR_SCRYPT_PROJECT.signerKey];
    const email = uniqueEmail('hygiene');

    const code = (await run('create code', api.post('/recipe/signinup/code', { email, userInputCode: 'secret-code-4711' }))).json;
    exchanges[exchanges.length - 1].allowed = [code.linkCode, code.deviceId, code.userInputCode];
    secrets.push(code.linkCode, code.deviceId, code.userInputCode);
    const resend = (await run('resend', api.post('/recipe/signinup/code', { deviceId: code.deviceId }))).json;
    exchanges[exchanges.length - 1].allowed = [resend.linkCode, resend.deviceId, resend.userInputCode];
    secrets.push(resend.linkCode, resend.userInputCode);
    await run('wrong guess', consumeInput(api, code, 'not-the-code-0815'));
    await run('check', api.post('/recipe/signinup/code/check', { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode }));
    const user = (await run('consume', consumeLink(api, code))).json.user;
    await run('update', api.put('/recipe/user', { userId: user.id, phoneNumber: uniquePhone() }, { rid: 'passwordless' }));
    await run('get', api.get(`/user/id?userId=${user.id}`));

    const passwords = ['correct horse battery staple', 'wrong-password-9999', BCRYPT_VECTORS[0].password, VENDOR_SCRYPT_VECTORS[0].password];
    const hashes = [BCRYPT_VECTORS[0].hash, VENDOR_SCRYPT_VECTORS[0].hash];
    secrets.push(...passwords, ...hashes, ...hashes.flatMap((h) => h.split('$').filter((s) => s.length >= 16)));
    const epEmail = uniqueEmail('ep');
    await run('import bcrypt', api.post('/recipe/user/passwordhash/import', { email: epEmail, passwordHash: hashes[0] }));
    await run(
      'import scrypt',
      api.post('/recipe/user/passwordhash/import', { email: uniqueEmail('fs'), passwordHash: hashes[1], hashingAlgorithm: 'vendor_scrypt' }),
    );
    await run('bad import', api.post('/recipe/user/passwordhash/import', { email: epEmail, passwordHash: `{bcrypt}${hashes[0]}` }));
    await run('bad import 2', api.post('/recipe/user/passwordhash/import', { email: epEmail, passwordHash: hashes[0].replace('$10$', '$31$') }));
    await run('sign in', api.post('/recipe/signin', { email: epEmail, password: passwords[2] }));
    await run('wrong sign in', api.post('/recipe/signin', { email: epEmail, password: passwords[1] }));
    await run('sign up', api.post('/recipe/signup', { email: uniqueEmail('su'), password: passwords[0] }));
    const epUser = (await run('ep get', api.get(`/recipe/user?email=${encodeURIComponent(epEmail)}`, { rid: 'emailpassword' }))).json.user;
    await run('password change', api.put('/recipe/user', { recipeUserId: epUser.id, password: passwords[0] }));
    await run('by account info', api.get(`/users/by-accountinfo?email=${encodeURIComponent(epEmail)}`));
    await run('wrong key', api.request('GET', '/apiversion', { apiKey: 'x'.repeat(20) + TEST_API_KEY.slice(0, 5) }));
    await run('too long password', api.post('/recipe/signin', { email: epEmail, password: passwords[0].repeat(100) }));

    // Account linking, external ids, email verification, metadata and roles: no hash in any answer.
    await run('create primary', api.post('/recipe/accountlinking/user/primary', { recipeUserId: epUser.id }));
    await run('link', api.post('/recipe/accountlinking/user/link', { recipeUserId: user.id, primaryUserId: epUser.id }));
    await run('map', api.post('/recipe/userid/map', { superTokensUserId: epUser.id, externalUserId: `hygiene-${Date.now()}` }));
    await run('linked sign in', api.post('/recipe/signin', { email: epEmail, password: passwords[0] }));
    const evToken = (await run('ev token', api.post('/recipe/user/email/verify/token', { userId: epUser.id, email: epEmail }))).json.token as string;
    exchanges[exchanges.length - 1].allowed = [evToken];
    secrets.push(evToken);
    await run('ev verify', api.post('/recipe/user/email/verify', { method: 'token', token: evToken }));
    await run('metadata', api.put('/recipe/user/metadata', { userId: epUser.id, metadataUpdate: { plan: 'pro' } }));
    await run('role', api.put('/recipe/role', { role: 'hygiene', permissions: ['read'] }));
    await run('user role', api.put('/recipe/user/role', { userId: epUser.id, role: 'hygiene' }));
    await run('remove', api.post('/user/remove', { userId: epUser.id }));

    await new Promise((r) => setTimeout(r, 200));
    const logs = api.logs.join('\n');
    const leaks: string[] = [];
    for (const secret of secrets) {
      if (logs.includes(secret)) leaks.push(`log contains ${secret}`);
      for (const { what, res, allowed } of exchanges) {
        if (!allowed.includes(secret) && res.text.includes(secret)) leaks.push(`${what} response contains ${secret}`);
      }
    }
    expect(leaks).toEqual([]);
    expect(exchanges.every((e) => e.res.status < 500)).toBe(true);
    expect(exchanges.find((e) => e.what === 'sign in')?.res.json.status).toBe('OK');
  });
});
