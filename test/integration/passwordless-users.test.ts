import { startApi, type TestApi } from '../support/api';
import { createCode, passwordlessSignIn, consumeLink, uniqueEmail, uniquePhone } from '../support/flows';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.stop());

const PL = { rid: 'passwordless' };
const readUser = async (id: string) => (await api.get(`/user/id?userId=${id}`)).json.user;

describe('PUT /recipe/user with rid: passwordless', () => {
  it('adds a phone number to an email user, accepting the SDK field recipeUserId', async () => {
    const { user } = await passwordlessSignIn(api, { email: uniqueEmail() });
    const res = await api.put('/recipe/user', { recipeUserId: user.id, phoneNumber: '+1 (650) 555-0199' }, PL);
    expect(res.json).toEqual({ status: 'OK' });
    const after = await readUser(user.id);
    expect(after.phoneNumbers).toEqual(['+16505550199']);
    expect(after.emails).toEqual(user.emails);
    expect(after.loginMethods[0].verified).toBe(true);
  });

  it('changes the email (normalised); the new email is unverified and pending codes of the old one stop working', async () => {
    const email = uniqueEmail();
    const { user } = await passwordlessSignIn(api, { email });
    const pending = await createCode(api, { email });
    const newEmail = uniqueEmail('new');
    expect((await api.put('/recipe/user', { userId: user.id, email: ` ${newEmail.toUpperCase()}` }, PL)).json).toEqual({ status: 'OK' });
    const after = await readUser(user.id);
    expect(after.emails).toEqual([newEmail]);
    expect(after.loginMethods[0].verified).toBe(false);
    expect((await consumeLink(api, pending)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    const again = await passwordlessSignIn(api, { email: newEmail });
    expect(again.user.id).toBe(user.id);
    expect(again.createdNewUser).toBe(false);
    expect(again.user.loginMethods[0].verified).toBe(true);
    const old = await passwordlessSignIn(api, { email });
    expect(old.createdNewUser).toBe(true);
  });

  it('clears a field with null and keeps an absent one', async () => {
    const { user } = await passwordlessSignIn(api, { email: uniqueEmail() });
    const phone = uniquePhone();
    await api.put('/recipe/user', { userId: user.id, phoneNumber: phone }, PL);
    expect((await api.put('/recipe/user', { userId: user.id, email: null }, PL)).json).toEqual({ status: 'OK' });
    const after = await readUser(user.id);
    expect(after.emails).toEqual([]);
    expect(after.phoneNumbers).toEqual([phone]);
    const byPhone = await passwordlessSignIn(api, { phoneNumber: phone });
    expect(byPhone.user.id).toBe(user.id);
  });

  it('answers OK and changes nothing when no field is given', async () => {
    const { user } = await passwordlessSignIn(api, { email: uniqueEmail() });
    expect((await api.put('/recipe/user', { userId: user.id }, PL)).json).toEqual({ status: 'OK' });
    expect(await readUser(user.id)).toEqual(user);
  });

  it('refuses to clear both email and phone number with a 400', async () => {
    const { user } = await passwordlessSignIn(api, { email: uniqueEmail() });
    const res = await api.put('/recipe/user', { userId: user.id, email: null }, PL);
    expect(res.status).toBe(400);
    expect(res.text).toBe('You cannot clear both email and phone number of a user');
    expect((await readUser(user.id)).emails).toEqual(user.emails);
  });

  it('answers UNKNOWN_USER_ID_ERROR for an unknown user', async () => {
    const res = await api.put('/recipe/user', { userId: '00000000-0000-4000-8000-000000000000', email: 'a@b.c' }, PL);
    expect(res.json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('answers EMAIL_ALREADY_EXISTS_ERROR and PHONE_NUMBER_ALREADY_EXISTS_ERROR when another user holds the value', async () => {
    const a = (await passwordlessSignIn(api, { email: uniqueEmail() })).user;
    const phone = uniquePhone();
    const b = (await passwordlessSignIn(api, { phoneNumber: phone })).user;
    expect((await api.put('/recipe/user', { userId: b.id, email: a.emails[0] }, PL)).json).toEqual({ status: 'EMAIL_ALREADY_EXISTS_ERROR' });
    expect((await api.put('/recipe/user', { userId: a.id, phoneNumber: phone }, PL)).json).toEqual({ status: 'PHONE_NUMBER_ALREADY_EXISTS_ERROR' });
    expect((await readUser(a.id)).phoneNumbers).toEqual([]);
    expect((await readUser(b.id)).emails).toEqual([]);
  });

  it('lets exactly one of two users racing for one email win', async () => {
    const a = (await passwordlessSignIn(api, { email: uniqueEmail() })).user;
    const b = (await passwordlessSignIn(api, { email: uniqueEmail() })).user;
    const target = uniqueEmail('contested');
    const results = await Promise.all([a, b].map((u) => api.put('/recipe/user', { userId: u.id, email: target }, PL)));
    expect(results.map((r) => r.json.status).sort()).toEqual(['EMAIL_ALREADY_EXISTS_ERROR', 'OK']);
    const holders = await api.get(`/users/by-accountinfo?email=${encodeURIComponent(target)}`);
    expect(holders.json.users).toHaveLength(1);
  });

  it.each([
    [{ email: 'a@b.c' }, "Field name 'recipeUserId' is invalid in JSON input"],
    [{ userId: 5, email: 'a@b.c' }, "Field name 'userId' is invalid in JSON input"],
    [{ userId: 'x', phoneNumber: '0201234567' }, 'phoneNumber must be in international format, for example +14155552671'],
    [{ userId: 'x', email: 'nope' }, "Field name 'email' is not an email address: it has no '@'"],
    [{ userId: 'x', email: 3 }, "Field name 'email' is invalid in JSON input"],
  ])('refuses %j with a 400', async (body, message) => {
    const res = await api.put('/recipe/user', body, PL);
    expect(res.status).toBe(400);
    expect(res.text).toBe(message);
  });

  it('answers 405 for rid: thirdparty and 400 for an unknown rid', async () => {
    expect((await api.put('/recipe/user', { userId: 'x', email: 'a@b.c' }, { rid: 'thirdparty' })).status).toBe(405);
    const res = await api.put('/recipe/user', { userId: 'x', email: 'a@b.c' }, { rid: 'webauthn' });
    expect(res.status).toBe(400);
    expect(res.text).toBe('Header rid must be one of emailpassword, thirdparty or passwordless');
  });
});

describe('reading passwordless users', () => {
  it('GET /user/id answers OK with the user object of SPEC §4, or UNKNOWN_USER_ID_ERROR', async () => {
    const email = uniqueEmail();
    const { user } = await passwordlessSignIn(api, { email });
    const res = await api.get(`/user/id?userId=${user.id}`);
    expect(res.json).toEqual({
      status: 'OK',
      user: {
        id: user.id,
        isPrimaryUser: false,
        tenantIds: ['public'],
        timeJoined: user.timeJoined,
        emails: [email],
        phoneNumbers: [],
        thirdParty: [],
        webauthn: { credentialIds: [] },
        loginMethods: [{ tenantIds: ['public'], recipeUserId: user.id, verified: true, timeJoined: user.timeJoined, recipeId: 'passwordless', email }],
      },
    });
    expect((await api.get('/user/id?userId=nobody')).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    const missing = await api.get('/user/id');
    expect(missing.status).toBe(400);
    expect(missing.text).toBe("Field name 'userId' is invalid in JSON input");
  });

  it('GET /recipe/user with rid passwordless finds by userId, email and phone number', async () => {
    const email = uniqueEmail();
    const { user } = await passwordlessSignIn(api, { email });
    const phone = uniquePhone();
    await api.put('/recipe/user', { userId: user.id, phoneNumber: phone }, PL);
    for (const q of [`userId=${user.id}`, `email=${encodeURIComponent(email.toUpperCase())}`, `phoneNumber=${encodeURIComponent(phone)}`]) {
      const res = await api.get(`/recipe/user?${q}`, PL);
      expect([q, res.json.status, res.json.user?.id]).toEqual([q, 'OK', user.id]);
    }
    expect((await api.get('/recipe/user?userId=nobody', PL)).json).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
    expect((await api.get('/recipe/user?email=nobody@example.com', PL)).json).toEqual({ status: 'UNKNOWN_EMAIL_ERROR' });
    expect((await api.get('/recipe/user?phoneNumber=%2B14155550000', PL)).json).toEqual({ status: 'UNKNOWN_PHONE_NUMBER_ERROR' });
    const both = await api.get(`/recipe/user?userId=${user.id}&email=${encodeURIComponent(email)}`, PL);
    expect(both.status).toBe(400);
    expect(both.text).toBe('Please provide exactly one of userId, email, phoneNumber');
  });

  it('GET /users/by-accountinfo matches all values, or any with doUnionOfAccountInfo, oldest first', async () => {
    const email = uniqueEmail();
    const phone = uniquePhone();
    const a = (await passwordlessSignIn(api, { email })).user;
    const b = (await passwordlessSignIn(api, { phoneNumber: phone })).user;
    const q = `email=${encodeURIComponent(email)}&phoneNumber=${encodeURIComponent(phone)}`;
    expect((await api.get(`/users/by-accountinfo?${q}`)).json).toEqual({ status: 'OK', users: [] });
    const union = await api.get(`/public/users/by-accountinfo?${q}&doUnionOfAccountInfo=true`);
    expect(union.json.users.map((u: { id: string }) => u.id)).toEqual([a.id, b.id]);
    const none = await api.get('/users/by-accountinfo');
    expect(none.status).toBe(400);
    expect(none.text).toBe('Please provide at least one of email, phoneNumber, thirdPartyId+thirdPartyUserId or webauthnCredentialId');
  });
});
