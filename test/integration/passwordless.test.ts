import { createHash } from 'node:crypto';
import { startApi, type TestApi } from '../support/api';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';
import { dumpTable, testDocClient } from '../support/table';
import { consumeInput, consumeLink, createCode, passwordlessSignIn, uniqueEmail, uniquePhone } from '../support/flows';

let api: TestApi;
beforeAll(async () => {
  api = await startApi({ PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS: '3' });
});
afterAll(() => api.stop());

describe("the seed's passwordless migration flow", () => {
  it('creates an email user by consuming a link, a phone user likewise, then associates a phone with the email user', async () => {
    const email = uniqueEmail('seed');
    const code = await createCode(api, { email });
    const consumed = await consumeLink(api, code);
    expect(consumed.status).toBe(200);
    expect(consumed.json).toMatchObject({ status: 'OK', createdNewUser: true });
    const emailUser = consumed.json.user;
    expect(emailUser.emails).toEqual([email]);
    expect(consumed.json.recipeUserId).toBe(emailUser.id);

    const phoneUser = (await passwordlessSignIn(api, { phoneNumber: '+1 650-555-0101' })).user;
    expect(phoneUser.phoneNumbers).toEqual(['+16505550101']);
    expect(phoneUser.id).not.toBe(emailUser.id);

    const update = await api.put('/recipe/user', { userId: emailUser.id, email, phoneNumber: '+1 650 555 0102' }, { rid: 'passwordless' });
    expect(update.status).toBe(200);
    expect(update.json).toEqual({ status: 'OK' });

    const read = await api.get(`/user/id?userId=${emailUser.id}`);
    expect(read.json.status).toBe('OK');
    expect(read.json.user.emails).toEqual([email]);
    expect(read.json.user.phoneNumbers).toEqual(['+16505550102']);
    expect(read.json.user.loginMethods).toHaveLength(1);
    expect(read.json.user.loginMethods[0]).toMatchObject({ recipeId: 'passwordless', email, phoneNumber: '+16505550102' });
  });

  it('answers code generation with exactly the eight fields of the seed, with their types', async () => {
    const code = await createCode(api, { email: uniqueEmail() });
    expect(Object.keys(code).sort()).toEqual(
      ['codeId', 'codeLifetime', 'deviceId', 'linkCode', 'preAuthSessionId', 'status', 'timeCreated', 'userInputCode'].sort(),
    );
    expect(code.status).toBe('OK');
    expect(code.codeId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(code.userInputCode).toMatch(/^\d{6}$/);
    expect(Buffer.from(code.deviceId, 'base64')).toHaveLength(32);
    expect(code.preAuthSessionId).toBe(createHash('sha256').update(Buffer.from(code.deviceId, 'base64')).digest('base64url'));
    expect(code.linkCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Number.isInteger(code.timeCreated)).toBe(true);
    expect(Math.abs(code.timeCreated - Date.now())).toBeLessThan(60_000);
    expect(code.codeLifetime).toBe(900_000);
  });

  it('never stores the link code, only its hash', async () => {
    const code = await createCode(api, { email: uniqueEmail() });
    const scan = await dumpTable(api.tableName);
    expect(scan).toContain(code.preAuthSessionId);
    expect(scan).not.toContain(code.linkCode);
    expect(scan).not.toContain(code.deviceId);
    expect(scan).not.toContain(`"${code.userInputCode}"`);
  });
});

describe('POST /recipe/signinup/code', () => {
  it('creates a code for a phone number, normalised to E.164', async () => {
    const code = await createCode(api, { phoneNumber: '+640223334444' });
    const consumed = await consumeLink(api, code);
    expect(consumed.json.user.phoneNumbers).toEqual(['+64223334444']);
    expect(consumed.json.consumedDevice).toEqual({
      preAuthSessionId: code.preAuthSessionId,
      failedCodeInputAttemptCount: 0,
      phoneNumber: '+64223334444',
    });
  });

  it('trims and lower-cases the email', async () => {
    const email = uniqueEmail();
    const consumed = await passwordlessSignIn(api, { email: `  ${email.toUpperCase()} ` });
    expect(consumed.user.emails).toEqual([email]);
    expect(consumed.consumedDevice.email).toBe(email);
  });

  it('uses a caller-chosen userInputCode', async () => {
    const code = await createCode(api, { email: uniqueEmail(), userInputCode: 'migrated-42' });
    expect(code.userInputCode).toBe('migrated-42');
    const res = await consumeInput(api, code, 'migrated-42');
    expect(res.json.status).toBe('OK');
  });

  it('resends a new code on an existing device; both codes work until one is consumed', async () => {
    const first = await createCode(api, { email: uniqueEmail() });
    const second = await createCode(api, { deviceId: first.deviceId });
    expect(second.deviceId).toBe(first.deviceId);
    expect(second.preAuthSessionId).toBe(first.preAuthSessionId);
    expect(second.codeId).not.toBe(first.codeId);
    expect(second.linkCode).not.toBe(first.linkCode);
    const check = await api.post('/recipe/signinup/code/check', { preAuthSessionId: first.preAuthSessionId, linkCode: first.linkCode });
    expect(check.json.status).toBe('OK');
    expect((await consumeLink(api, second)).json.status).toBe('OK');
    expect((await consumeLink(api, first)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('answers RESTART_FLOW_ERROR for a device it never issued', async () => {
    const res = await api.post('/recipe/signinup/code', { deviceId: Buffer.alloc(32, 7).toString('base64') });
    expect(res.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    const garbage = await api.post('/recipe/signinup/code', { deviceId: 'not-a-device' });
    expect(garbage.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('answers USER_INPUT_CODE_ALREADY_USED_ERROR when the same userInputCode is issued twice on a device', async () => {
    const first = await createCode(api, { email: uniqueEmail(), userInputCode: '111111' });
    const res = await api.post('/recipe/signinup/code', { deviceId: first.deviceId, userInputCode: '111111' });
    expect(res.json).toEqual({ status: 'USER_INPUT_CODE_ALREADY_USED_ERROR' });
  });

  it.each([
    [{}, 'Please provide exactly one of email, phoneNumber or deviceId'],
    [{ email: 'a@b.c', phoneNumber: '+14155552671' }, 'Please provide exactly one of email, phoneNumber or deviceId'],
    [{ email: 'a@b.c', deviceId: 'x' }, 'Please provide exactly one of email, phoneNumber or deviceId'],
    [{ email: 42 }, "Field name 'email' is invalid in JSON input"],
    [{ email: 'no-at-sign' }, "Field name 'email' is not an email address: it has no '@'"],
    [{ email: 'a b@c.d' }, "Field name 'email' is not an email address: it contains whitespace"],
    [{ email: `${'a'.repeat(251)}@b.cde` }, "Field name 'email' is too long: the maximum is 256 characters"],
    [{ phoneNumber: '6505551234' }, 'phoneNumber must be in international format, for example +14155552671'],
    [{ phoneNumber: '+1' }, 'phoneNumber must be in international format, for example +14155552671'],
    [{ phoneNumber: true }, "Field name 'phoneNumber' is invalid in JSON input"],
    [{ email: 'a@b.c', userInputCode: '' }, "Field name 'userInputCode' must not be empty"],
    [{ email: 'a@b.c', userInputCode: 'x'.repeat(65) }, "Field name 'userInputCode' is too long: the maximum is 64 characters"],
    [{ email: 'a@b.c', userInputCode: 123456 }, "Field name 'userInputCode' is invalid in JSON input"],
  ])('refuses %j with a 400 naming the field', async (body, message) => {
    const res = await api.post('/recipe/signinup/code', body);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe(message);
  });
});

describe('POST /recipe/signinup/code/consume', () => {
  it('signs the same user in a second time with createdNewUser false', async () => {
    const email = uniqueEmail();
    const first = await passwordlessSignIn(api, { email });
    const second = await passwordlessSignIn(api, { email });
    expect(first.createdNewUser).toBe(true);
    expect(second.createdNewUser).toBe(false);
    expect(second.user.id).toBe(first.user.id);
    expect(second.user.loginMethods[0].verified).toBe(true);
  });

  it('consumes by deviceId and userInputCode', async () => {
    const code = await createCode(api, { phoneNumber: uniquePhone() });
    const res = await consumeInput(api, code, code.userInputCode);
    expect(res.json).toMatchObject({ status: 'OK', createdNewUser: true });
    expect(res.json.user.loginMethods[0].verified).toBe(true);
  });

  it('answers RESTART_FLOW_ERROR for a link used twice', async () => {
    const code = await createCode(api, { email: uniqueEmail() });
    expect((await consumeLink(api, code)).json.status).toBe('OK');
    expect((await consumeLink(api, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('answers RESTART_FLOW_ERROR for an unknown link code or device', async () => {
    const code = await createCode(api, { email: uniqueEmail() });
    const wrongLink = await consumeLink(api, { preAuthSessionId: code.preAuthSessionId, linkCode: 'A'.repeat(43) });
    expect(wrongLink.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    const malformedLink = await consumeLink(api, { preAuthSessionId: code.preAuthSessionId, linkCode: 'short' });
    expect(malformedLink.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    const otherDevice = await consumeLink(api, { preAuthSessionId: 'x'.repeat(43), linkCode: code.linkCode });
    expect(otherDevice.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('counts wrong user input codes and deletes the device at the maximum', async () => {
    const code = await createCode(api, { email: uniqueEmail() });
    const wrong1 = await consumeInput(api, code, '000000-wrong');
    expect(wrong1.json).toEqual({ status: 'INCORRECT_USER_INPUT_CODE_ERROR', failedCodeInputAttemptCount: 1, maximumCodeInputAttempts: 3 });
    const wrong2 = await consumeInput(api, code, '000001-wrong');
    expect(wrong2.json).toEqual({ status: 'INCORRECT_USER_INPUT_CODE_ERROR', failedCodeInputAttemptCount: 2, maximumCodeInputAttempts: 3 });
    const right = await api.post('/recipe/signinup/code/check', {
      preAuthSessionId: code.preAuthSessionId,
      deviceId: code.deviceId,
      userInputCode: code.userInputCode,
    });
    expect(right.json.consumedDevice.failedCodeInputAttemptCount).toBe(2);
    const wrong3 = await consumeInput(api, code, '000002-wrong');
    expect(wrong3.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consumeInput(api, code, code.userInputCode)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consumeLink(api, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('lets exactly one of 20 concurrent consumes of one link win', async () => {
    const code = await createCode(api, { email: uniqueEmail('race') });
    const results = await Promise.all(Array.from({ length: 20 }, () => consumeLink(api, code)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const statuses = results.map((r) => r.json.status);
    expect(statuses.filter((s) => s === 'OK')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'RESTART_FLOW_ERROR')).toHaveLength(19);
  });

  it('makes one user when two devices of one email are consumed at the same time', async () => {
    const email = uniqueEmail('two-devices');
    const [a, b] = await Promise.all([createCode(api, { email }), createCode(api, { email })]);
    const [ra, rb] = await Promise.all([consumeLink(api, a), consumeLink(api, b)]);
    const ok = [ra, rb].filter((r) => r.json.status === 'OK');
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.json.user.id)).size).toBe(1);
    const users = await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`);
    expect(users.json.users).toHaveLength(1);
  });

  it('ends every other pending device of the email on success, and only those made before', async () => {
    const email = uniqueEmail();
    const older = await createCode(api, { email });
    const used = await createCode(api, { email });
    expect((await consumeLink(api, used)).json.status).toBe('OK');
    expect((await consumeLink(api, older)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    // A device made after the consume signs the same user in.
    const later = await createCode(api, { email });
    const res = await consumeLink(api, later);
    expect(res.json).toMatchObject({ status: 'OK', createdNewUser: false });
    expect(res.json.user.id).toBe((await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`)).json.users[0].id);
  });

  it.each([
    [{ linkCode: 'x' }, "Field name 'preAuthSessionId' is invalid in JSON input"],
    [{ preAuthSessionId: 'p' }, 'Please provide exactly one of linkCode or deviceId+userInputCode'],
    [{ preAuthSessionId: 'p', linkCode: 'l', userInputCode: '1' }, 'Please provide exactly one of linkCode or deviceId+userInputCode'],
    [{ preAuthSessionId: 'p', deviceId: 'd' }, 'Please provide exactly one of linkCode or deviceId+userInputCode'],
    [{ preAuthSessionId: 'p'.repeat(129), linkCode: 'l' }, "Field name 'preAuthSessionId' is too long: the maximum is 128 characters"],
    [{ preAuthSessionId: 'p', linkCode: 7 }, "Field name 'linkCode' is invalid in JSON input"],
  ])('refuses %j with a 400', async (body, message) => {
    const res = await api.post('/recipe/signinup/code/consume', body);
    expect(res.status).toBe(400);
    expect(res.text).toBe(message);
  });

  it('answers 400 when the preAuthSessionId does not belong to the deviceId', async () => {
    const a = await createCode(api, { email: uniqueEmail() });
    const b = await createCode(api, { email: uniqueEmail() });
    const res = await api.post('/recipe/signinup/code/consume', { preAuthSessionId: a.preAuthSessionId, deviceId: b.deviceId, userInputCode: b.userInputCode });
    expect(res.status).toBe(400);
    expect(res.text).toBe("preAuthSessionId and deviceId doesn't match");
  });
});

describe('POST /recipe/signinup/code/check', () => {
  it('answers OK with the device and consumes nothing', async () => {
    const email = uniqueEmail();
    const code = await createCode(api, { email });
    const check = await api.post('/recipe/signinup/code/check', { preAuthSessionId: code.preAuthSessionId, linkCode: code.linkCode });
    expect(check.json).toEqual({
      status: 'OK',
      consumedDevice: { preAuthSessionId: code.preAuthSessionId, failedCodeInputAttemptCount: 0, email },
    });
    const none = await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`);
    expect(none.json.users).toEqual([]);
    expect((await consumeLink(api, code)).json.status).toBe('OK');
  });

  it('counts a wrong guess like consume does', async () => {
    const code = await createCode(api, { email: uniqueEmail() });
    const res = await consumeInput(api, code, 'nope', '/recipe/signinup/code/check');
    expect(res.json).toEqual({ status: 'INCORRECT_USER_INPUT_CODE_ERROR', failedCodeInputAttemptCount: 1, maximumCodeInputAttempts: 3 });
    const link = await api.post('/recipe/signinup/code/check', { preAuthSessionId: code.preAuthSessionId, linkCode: 'B'.repeat(43) });
    expect(link.json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });
});

describe("a consume ends the identity's other codes (as the core deletes their devices)", () => {
  it('for a phone number too, and an ended device takes no resend', async () => {
    const phoneNumber = uniquePhone();
    const older = await createCode(api, { phoneNumber });
    const resent = await api.post('/recipe/signinup/code', { deviceId: older.deviceId });
    expect(resent.json.status).toBe('OK');
    await passwordlessSignIn(api, { phoneNumber });
    expect((await api.post('/recipe/signinup/code', { deviceId: older.deviceId })).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consumeLink(api, { preAuthSessionId: older.preAuthSessionId, linkCode: resent.json.linkCode })).json).toEqual({
      status: 'RESTART_FLOW_ERROR',
    });
    expect((await consumeLink(api, older)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('answers a wrong code on an ended device with RESTART_FLOW_ERROR without counting it, and check refuses its right code', async () => {
    const email = uniqueEmail('ended');
    const older = await createCode(api, { email });
    await passwordlessSignIn(api, { email });
    expect((await consumeInput(api, older, 'nope')).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consumeInput(api, older, 'nope', '/recipe/signinup/code/check')).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await api.post('/recipe/signinup/code/check', { preAuthSessionId: older.preAuthSessionId, linkCode: older.linkCode })).json).toEqual({
      status: 'RESTART_FLOW_ERROR',
    });
    const doc = testDocClient();
    try {
      const device = await doc.send(new GetCommand({ TableName: api.tableName, Key: keys.device(older.preAuthSessionId) }));
      expect(device.Item?.failedAttempts).toBe(0);
    } finally {
      doc.destroy();
    }
  });

  it("leaves the email's devices in another tenant and the phone's devices of the same user alone", async () => {
    const tenant = `ended-${Date.now().toString(36)}`;
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: tenant })).json.status).toBe('OK');
    const email = uniqueEmail('ended-t');
    const elsewhere = await createCode(api, { email }, tenant);
    const user = await passwordlessSignIn(api, { email });
    const phoneNumber = uniquePhone();
    expect((await api.put('/recipe/user', { userId: user.user.id, email, phoneNumber }, { rid: 'passwordless' })).json).toEqual({ status: 'OK' });
    const byPhone = await createCode(api, { phoneNumber });
    await passwordlessSignIn(api, { email });
    expect((await consumeLink(api, byPhone)).json).toMatchObject({ status: 'OK', createdNewUser: false, user: { id: user.user.id } });
    expect((await consumeLink(api, elsewhere, tenant)).json).toMatchObject({ status: 'OK', createdNewUser: true });
  });
});
