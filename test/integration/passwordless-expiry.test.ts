import { startApi, type TestApi } from '../support/api';
import { consumeInput, consumeLink, createCode, uniqueEmail } from '../support/flows';

const LIFETIME_MS = 1000;
let api: TestApi;
beforeAll(async () => {
  api = await startApi({ PASSWORDLESS_CODE_LIFETIME: String(LIFETIME_MS), PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS: '2' });
});
afterAll(() => api.stop());

const waitForExpiry = () => new Promise((r) => setTimeout(r, LIFETIME_MS + 200));

describe('code expiry, checked at read time (DynamoDB Local never runs TTL)', () => {
  it('reports the configured lifetime', async () => {
    expect((await createCode(api, { email: uniqueEmail() })).codeLifetime).toBe(LIFETIME_MS);
  });

  it('answers RESTART_FLOW_ERROR for an expired link code', async () => {
    const code = await createCode(api, { email: uniqueEmail() });
    await waitForExpiry();
    expect((await consumeLink(api, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('answers EXPIRED_USER_INPUT_CODE_ERROR for an expired user input code, counting the attempt, and restarts at the maximum', async () => {
    const code = await createCode(api, { email: uniqueEmail() });
    await waitForExpiry();
    expect((await consumeInput(api, code, code.userInputCode)).json).toEqual({
      status: 'EXPIRED_USER_INPUT_CODE_ERROR',
      failedCodeInputAttemptCount: 1,
      maximumCodeInputAttempts: 2,
    });
    expect((await consumeInput(api, code, code.userInputCode)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('accepts a resent code on a device whose first code expired', async () => {
    const first = await createCode(api, { email: uniqueEmail() });
    await waitForExpiry();
    const second = await createCode(api, { deviceId: first.deviceId });
    expect((await consumeInput(api, second, second.userInputCode)).json.status).toBe('OK');
  });
});
