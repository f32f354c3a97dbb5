import supertokens from 'supertokens-node';
import EmailPassword from 'supertokens-node/recipe/emailpassword';
import MultiFactorAuth from 'supertokens-node/recipe/multifactorauth';
import Multitenancy from 'supertokens-node/recipe/multitenancy';
import Session from 'supertokens-node/recipe/session';
import Totp from 'supertokens-node/recipe/totp';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { uniqueEmail } from '../support/flows';
import { totpCode, wrongCode } from '../support/totp';

/**
 * supertokens-node 24's TOTP recipe (SPEC §20) with the local service as its core: every call goes
 * through the SDK (`Totp.createDevice`, `listDevices`, `verifyDevice`, `verifyTOTP`,
 * `updateDevice`, `removeDevice`), and the test computes codes from the secret it hands out, as
 * an authenticator app would. A file of its own: `supertokens.init` is global per test file.
 */
let api: TestApi;
const sent: string[] = [];

beforeAll(async () => {
  api = await startApi();
  supertokens.init({
    supertokens: {
      connectionURI: api.baseUrl,
      apiKey: TEST_API_KEY,
      networkInterceptor: (request) => {
        sent.push(`${request.method.toUpperCase()} ${new URL(request.url).pathname}`);
        return request;
      },
    },
    appInfo: { appName: 'sdk-totp', apiDomain: 'http://api.example.test', websiteDomain: 'http://app.example.test' },
    // The SDK requires MultiFactorAuth beside Totp (it asks no core call of its own).
    recipeList: [EmailPassword.init(), Session.init(), MultiFactorAuth.init(), Totp.init({ issuer: 'Example App' })],
  });
});
afterAll(() => api.stop());

async function signUp(): Promise<{ id: string; email: string }> {
  const email = uniqueEmail('sdk-totp');
  const res = await EmailPassword.signUp('public', email, 'pw-123456');
  if (res.status !== 'OK') throw new Error(res.status);
  return { id: res.user.id, email };
}

describe('supertokens-node 24 Totp against the local service', () => {
  it('enrols a device, verifies it, checks codes once each, renames and removes it', async () => {
    const user = await signUp();
    const created = await Totp.createDevice(user.id);
    if (created.status !== 'OK') throw new Error(created.status);
    expect(created.deviceName).toBe('TOTP Device 0');
    expect(created.secret).toMatch(/^[A-Z2-7]{32}$/);
    // The SDK builds the QR code string from the secret and the user's email (read with GET /user/id).
    expect(created.qrCodeString).toBe(`otpauth://totp/Example%20App:${encodeURI(user.email)}?secret=${created.secret}&issuer=Example%20App&digits=6&period=30`);
    expect(await Totp.listDevices(user.id)).toEqual({ status: 'OK', devices: [{ name: 'TOTP Device 0', period: 30, skew: 1, verified: false }] });

    expect(await Totp.verifyDevice('public', user.id, 'TOTP Device 0', wrongCode(created.secret))).toEqual({
      status: 'INVALID_TOTP_ERROR',
      currentNumberOfFailedAttempts: 1,
      maxNumberOfFailedAttempts: 5,
    });
    expect(await Totp.verifyDevice('public', user.id, 'TOTP Device 0', totpCode(created.secret))).toEqual({ status: 'OK', wasAlreadyVerified: false });
    expect(await Totp.verifyDevice('public', user.id, 'TOTP Device 0', '000000')).toEqual({ status: 'OK', wasAlreadyVerified: true });
    // MultiFactorAuth sees the factor set up (it lists the devices: GET /recipe/totp/device/list).
    expect(await MultiFactorAuth.getFactorsSetupForUser(user.id)).toEqual(expect.arrayContaining(['totp']));

    // The code verify-device used is spent; the next step's (within the skew) is not.
    expect((await Totp.verifyTOTP('public', user.id, totpCode(created.secret))).status).toBe('INVALID_TOTP_ERROR');
    const next = totpCode(created.secret, 1);
    expect(await Totp.verifyTOTP('public', user.id, next)).toEqual({ status: 'OK' });
    expect(await Totp.verifyTOTP('public', user.id, next)).toEqual({
      status: 'INVALID_TOTP_ERROR',
      currentNumberOfFailedAttempts: 1,
      maxNumberOfFailedAttempts: 5,
    });

    expect(await Totp.updateDevice(user.id, 'TOTP Device 0', 'phone')).toEqual({ status: 'OK' });
    expect(await Totp.updateDevice(user.id, 'TOTP Device 0', 'tablet')).toEqual({ status: 'UNKNOWN_DEVICE_ERROR' });
    expect(await Totp.createDevice(user.id, undefined, 'phone')).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
    const second = await Totp.createDevice(user.id, undefined, 'tablet', 2, 60);
    expect(second.status).toBe('OK');
    expect(await Totp.updateDevice(user.id, 'tablet', 'phone')).toEqual({ status: 'DEVICE_ALREADY_EXISTS_ERROR' });
    expect((await Totp.listDevices(user.id)).devices).toEqual([
      { name: 'phone', period: 30, skew: 1, verified: true },
      { name: 'tablet', period: 60, skew: 2, verified: false },
    ]);

    expect(await Totp.removeDevice(user.id, 'phone')).toEqual({ status: 'OK', didDeviceExist: true });
    expect(await Totp.removeDevice(user.id, 'phone')).toEqual({ status: 'OK', didDeviceExist: false });
    expect(await Totp.removeDevice(user.id, 'tablet')).toEqual({ status: 'OK', didDeviceExist: true });
    expect(await Totp.listDevices(user.id)).toEqual({ status: 'OK', devices: [] });
    expect(await Totp.verifyTOTP('public', user.id, next)).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('answers UNKNOWN_USER_ID_ERROR for createDevice of an unknown user (the SDK asks GET /user/id first)', async () => {
    expect(await Totp.createDevice('no-such-user')).toEqual({ status: 'UNKNOWN_USER_ID_ERROR' });
  });

  it('rate-limits verifyTOTP per tenant: five wrong codes, then LIMIT_REACHED_ERROR with retryAfterMs', async () => {
    expect((await Multitenancy.createOrUpdateTenant('sdk-totp-t')).status).toBe('OK');
    const user = await signUp();
    const created = await Totp.createDevice(user.id, undefined, 'phone');
    if (created.status !== 'OK') throw new Error(created.status);
    await Totp.verifyDevice('public', user.id, 'phone', totpCode(created.secret));
    for (let i = 1; i <= 5; i++) expect((await Totp.verifyTOTP('sdk-totp-t', user.id, wrongCode(created.secret))).status).toBe('INVALID_TOTP_ERROR');
    const limited = await Totp.verifyTOTP('sdk-totp-t', user.id, totpCode(created.secret, 1));
    expect(limited).toEqual(expect.objectContaining({ status: 'LIMIT_REACHED_ERROR', retryAfterMs: expect.any(Number) }));
    expect(await Totp.verifyTOTP('public', user.id, totpCode(created.secret, 1))).toEqual({ status: 'OK' });
  });

  it('sent the TOTP calls to the paths SPEC §20 serves', () => {
    const totpCalls = [...new Set(sent.filter((s) => s.includes('/totp/')))].sort();
    expect(totpCalls).toEqual([
      'GET /recipe/totp/device/list',
      'POST /public/recipe/totp/device/verify',
      'POST /public/recipe/totp/verify',
      'POST /recipe/totp/device',
      'POST /recipe/totp/device/remove',
      'POST /sdk-totp-t/recipe/totp/verify',
      'PUT /recipe/totp/device',
    ]);
  });
});
