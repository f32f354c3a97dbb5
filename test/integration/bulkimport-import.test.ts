import { ARGON2_VECTORS, BCRYPT_VECTORS, VENDOR_SCRYPT_PROJECT, VENDOR_SCRYPT_VECTORS } from '../fixtures/password-vectors';
import { startApi, type TestApi } from '../support/api';

/**
 * `POST /bulk-import/import` (SPEC §15): one bulk user imported at once, as the worker imports a
 * staged row: linked login methods, external id, verified emails, metadata, roles, old join
 * times, every hash format; re-runs are safe; conflicts fail with the core's texts.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startApi({ VENDOR_PASSWORD_HASHING_SIGNER_KEY: VENDOR_SCRYPT_PROJECT.signerKey, ARGON2_MEMORY_KIB: '4096', ARGON2_ITERATIONS: '1' });
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'shop' })).status).toBe(200);
  for (const role of ['admin', 'viewer']) expect((await api.put('/recipe/role', { role })).status).toBe(200);
});
afterAll(() => api.stop());

let n = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`;
const importUser = (user: unknown) => api.post('/bulk-import/import', user);
const signIn = (email: string, password: string, tenant = '') => api.post(`${tenant}/recipe/signin`, { email, password });
const ep = (email: string, vector = BCRYPT_VECTORS[0], over: Record<string, unknown> = {}) => ({
  recipeId: 'emailpassword',
  email,
  passwordHash: vector.hash,
  hashingAlgorithm: vector.hash.startsWith('$2') ? 'bcrypt' : vector.hash.startsWith('$argon') ? 'argon2' : 'firebase_scrypt',
  ...over,
});

describe('POST /bulk-import/import', () => {
  it('imports a linked user with its external id, verified email, metadata, roles and old join time; it signs in by each login method', async () => {
    const externalUserId = unique('firebase');
    const email = `${unique('ada')}@example.com`;
    const res = await importUser({
      externalUserId,
      userMetadata: { plan: 'pro', gone: null },
      userRoles: [{ role: 'admin', tenantIds: ['public', 'shop'] }],
      loginMethods: [
        { ...ep(email), isPrimary: true, timeJoinedInMSSinceEpoch: 1_500_000_000_000, tenantIds: ['public', 'shop'] },
        { recipeId: 'thirdparty', email, thirdPartyId: 'google', thirdPartyUserId: unique('g'), isVerified: true, timeJoinedInMSSinceEpoch: 1_400_000_000_000 },
        { recipeId: 'passwordless', phoneNumber: '+1 415 555 0100', isVerified: true },
      ],
    });
    expect(res.status).toBe(200);
    const { user } = res.json;
    expect(user).toMatchObject({ id: externalUserId, isPrimaryUser: true, timeJoined: 1_400_000_000_000, emails: [email], phoneNumbers: ['+14155550100'] });
    expect(user.tenantIds.sort()).toEqual(['public', 'shop']);
    expect(user.loginMethods.map((lm: { recipeId: string; verified: boolean; recipeUserId: string }) => [lm.recipeId, lm.verified])).toEqual([
      ['thirdparty', true],
      ['emailpassword', false],
      ['passwordless', true],
    ]);
    expect(user.loginMethods.find((lm: { recipeId: string }) => lm.recipeId === 'emailpassword').recipeUserId).toBe(externalUserId);

    for (const tenant of ['', '/shop']) {
      const signin = await signIn(email, BCRYPT_VECTORS[0].password, tenant);
      expect([tenant, signin.json.status, signin.json.user?.id]).toEqual([tenant, 'OK', externalUserId]);
    }
    const tp = await api.post('/recipe/signinup', {
      thirdPartyId: 'google',
      thirdPartyUserId: user.thirdParty[0].userId,
      email: { id: email, isVerified: true },
    });
    expect([tp.json.createdNewUser, tp.json.user.id]).toEqual([false, externalUserId]);
    expect((await api.get(`/user/id?userId=${externalUserId}`)).json.user.id).toBe(externalUserId);
    expect((await api.get(`/recipe/user/metadata?userId=${externalUserId}`)).json.metadata).toEqual({ plan: 'pro' });
    expect((await api.get(`/recipe/user/roles?userId=${externalUserId}`)).json.roles).toEqual(['admin']);
    expect((await api.get(`/shop/recipe/user/roles?userId=${externalUserId}`)).json.roles).toEqual(['admin']);
    // A login method in two tenants is listed and found by its email in both.
    const shopList = (await api.get('/shop/users?limit=500')).json.users.map((u: { id: string }) => u.id);
    expect(shopList).toContain(externalUserId);
    const byEmail = (await api.get(`/shop/users/by-accountinfo?email=${encodeURIComponent(email)}`)).json.users;
    expect(byEmail.map((u: { id: string }) => u.id)).toEqual([externalUserId]);
  });

  it('imports every hash format, and a plain-text password hashed with the own Argon2id; each signs in', async () => {
    for (const vector of [BCRYPT_VECTORS[1], BCRYPT_VECTORS[3], ARGON2_VECTORS[0], ARGON2_VECTORS[2], VENDOR_SCRYPT_VECTORS[0]]) {
      const email = `${unique('hash')}@example.com`;
      expect((await importUser({ loginMethods: [ep(email, vector)] })).status).toBe(200);
      expect((await signIn(email, vector.password)).json.status).toBe('OK');
      expect((await signIn(email, `${vector.password}x`)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
    }
    const email = `${unique('plain')}@example.com`;
    const res = await importUser({ loginMethods: [{ recipeId: 'emailpassword', email, plainTextPassword: 'plain secret 1' }] });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('plain secret 1');
    expect((await signIn(email, 'plain secret 1')).json.status).toBe('OK');
  });

  it('makes separate users of login methods without isPrimary, and answers the oldest', async () => {
    const email = `${unique('sep')}@example.com`;
    const res = await importUser({
      loginMethods: [
        { recipeId: 'passwordless', email, timeJoinedInMSSinceEpoch: 2_000 },
        { recipeId: 'thirdparty', email, thirdPartyId: 'github', thirdPartyUserId: unique('gh'), timeJoinedInMSSinceEpoch: 1_000 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.json.user).toMatchObject({ isPrimaryUser: false, timeJoined: 1_000 });
    expect(res.json.user.loginMethods.map((lm: { recipeId: string }) => lm.recipeId)).toEqual(['thirdparty']);
    const users = (await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`)).json.users;
    expect(users.map((u: { loginMethods: { recipeId: string }[] }) => u.loginMethods[0].recipeId).sort()).toEqual(['passwordless', 'thirdparty']);
  });

  it('is safe to run again: the same user is a success with the same id, a changed hash replaces the old one', async () => {
    const externalUserId = unique('auth0');
    const email = `${unique('again')}@example.com`;
    const body = {
      externalUserId,
      userRoles: [{ role: 'viewer', tenantIds: ['public'] }],
      loginMethods: [
        { ...ep(email), isPrimary: true },
        { recipeId: 'passwordless', email },
      ],
    };
    const first = await importUser(body);
    const count = (await api.get('/users/count')).json.count;
    const again = await importUser(body);
    expect([again.status, again.json.user.id, again.json.user.loginMethods.length]).toEqual([200, externalUserId, 2]);
    expect(again.json.user).toEqual(first.json.user);
    expect((await api.get('/users/count')).json.count).toBe(count);

    const changed = await importUser({
      ...body,
      loginMethods: [
        { ...ep(email, ARGON2_VECTORS[1]), isPrimary: true },
        { recipeId: 'passwordless', email },
      ],
    });
    expect(changed.status).toBe(200);
    expect((await signIn(email, ARGON2_VECTORS[1].password)).json.user.id).toBe(externalUserId);
    expect((await signIn(email, BCRYPT_VECTORS[0].password)).json.status).toBe('WRONG_CREDENTIALS_ERROR');

    // Without an external id: every login method already on one user is that user (SPEC §15).
    const loneEmail = `${unique('lone')}@example.com`;
    const lone = await importUser({ loginMethods: [ep(loneEmail)] });
    expect((await importUser({ loginMethods: [ep(loneEmail)] })).json.user.id).toBe(lone.json.user.id);
  });

  it('fails on an identity or external id another user holds, with the core texts, and writes nothing', async () => {
    const email = `${unique('taken')}@example.com`;
    const phone = '+14155550199';
    const tpUser = unique('tp');
    const ext = unique('ext');
    expect(
      (
        await importUser({
          externalUserId: ext,
          loginMethods: [
            ep(email),
            { recipeId: 'passwordless', email, isPrimary: true },
            { recipeId: 'passwordless', phoneNumber: phone },
            { recipeId: 'thirdparty', email, thirdPartyId: 'google', thirdPartyUserId: tpUser },
          ],
        })
      ).status,
    ).toBe(200);
    const cases: [unknown, string][] = [
      [{ loginMethods: [ep(email)], externalUserId: unique('other') }, `E003: A user with email ${email} already exists in emailpassword loginMethod.`],
      [
        {
          loginMethods: [
            { recipeId: 'thirdparty', email: 'x@example.com', thirdPartyId: 'google', thirdPartyUserId: tpUser },
            ep(`${unique('new')}@example.com`),
          ],
        },
        `E005: A user with thirdPartyId google and thirdPartyUserId ${tpUser} already exists in thirdparty loginMethod.`,
      ],
      [
        { loginMethods: [{ recipeId: 'passwordless', email }, ep(`${unique('new')}@example.com`)] },
        `E006: A user with email ${email} already exists in passwordless loginMethod.`,
      ],
      [
        { loginMethods: [ep(`${unique('new')}@example.com`), { recipeId: 'passwordless', phoneNumber: phone }] },
        `E007: A user with phoneNumber ${phone} already exists in passwordless loginMethod.`,
      ],
      [{ externalUserId: ext, loginMethods: [ep(`${unique('fresh')}@example.com`)] }, `E031: A user with externalId ${ext} already exists`],
      // A primary user would share its email with another primary user in the tenant.
      [
        { loginMethods: [{ recipeId: 'thirdparty', email, thirdPartyId: 'github', thirdPartyUserId: unique('gh'), isPrimary: true }] },
        'E027: there is a conflicting account info',
      ],
    ];
    for (const [body, error] of cases) {
      const count = (await api.get('/users/count')).json.count;
      const res = await importUser(body);
      expect([JSON.stringify(body).slice(0, 60), res.status, res.json]).toEqual([JSON.stringify(body).slice(0, 60), 400, { errors: [error] }]);
      expect((await api.get('/users/count')).json.count).toBe(count);
    }
  });

  it('leaves one user when the same user is imported four times at once, and one winner when two users race for an email', async () => {
    const externalUserId = unique('race');
    const email = `${unique('race')}@example.com`;
    const body = {
      externalUserId,
      userMetadata: { n: 1 },
      loginMethods: [
        { ...ep(email), isPrimary: true },
        { recipeId: 'thirdparty', email, thirdPartyId: 'google', thirdPartyUserId: unique('g') },
      ],
    };
    const count = (await api.get('/users/count')).json.count;
    const all = await Promise.all([1, 2, 3, 4].map(() => importUser(body)));
    expect(all.map((r) => [r.status, r.json.user?.id])).toEqual(Array.from({ length: 4 }, () => [200, externalUserId]));
    expect((await api.get('/users/count')).json.count).toBe(count + 1);

    const contested = `${unique('contested')}@example.com`;
    const two = await Promise.all([unique('a'), unique('b')].map((ext) => importUser({ externalUserId: ext, loginMethods: [ep(contested)] })));
    expect(two.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(two.find((r) => r.status === 400)?.json).toEqual({ errors: [`E003: A user with email ${contested} already exists in emailpassword loginMethod.`] });
  });

  it('answers the validation errors of the user as {"errors":[…]}', async () => {
    const res = await importUser({
      externalUserId: 'x'.repeat(129),
      loginMethods: [{ recipeId: 'emailpassword', email: 'a@b.c' }],
      userRoles: [{ role: 'ghost', tenantIds: ['public'] }],
    });
    expect([res.status, res.json]).toEqual([
      400,
      {
        errors: [
          `externalUserId ${'x'.repeat(129)} is too long. Max length is 128.`,
          'Role ghost does not exist.',
          'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
        ],
      },
    ]);
    expect((await api.post('/shop/bulk-import/import', {})).status).toBe(403);
  });
});
