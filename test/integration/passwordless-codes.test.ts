import { startApi, type TestApi } from '../support/api';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';
import { dumpTable, testDocClient } from '../support/table';
import { consumeInput, consumeLink, createCode, passwordlessSignIn, tenantPath, uniqueEmail, uniquePhone } from '../support/flows';

/**
 * SPEC §18b "Passwordless devices and codes": listing a tenant's pending devices and codes
 * (`GET /recipe/signinup/codes`, what the SDK reads before every resend and consume) and removing
 * codes (`POST /recipe/signinup/code/remove`, `/codes/remove`: the SDK's `revokeCode` and
 * `revokeAllCodes`), as the core answers them.
 */
let api: TestApi;
/** Every secret a test saw: none may be in an answer it does not belong to, nor in the server's log. */
const secrets: string[] = [];
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.stop());

type Code = Awaited<ReturnType<typeof createCode>>;

/** Creates a code, remembering its secrets. */
async function issue(body: Record<string, unknown>, tenantId?: string): Promise<Code> {
  const code = await createCode(api, body, tenantId);
  secrets.push(code.deviceId, code.linkCode, code.deviceId.replace(/=+$/, ''));
  return code;
}

/** A resend on a code's device (a new code there). */
async function resend(code: Code, tenantId?: string): Promise<Code> {
  return issue({ deviceId: code.deviceId }, tenantId);
}

/** `GET [/<t>]/recipe/signinup/codes?<query>`, checked to leak no secret of its devices. */
async function list(query: Record<string, string>, tenantId?: string) {
  const res = await api.get(tenantPath(tenantId, `/recipe/signinup/codes?${new URLSearchParams(query).toString()}`));
  expect(res.status).toBe(200);
  for (const secret of secrets) expect(res.text).not.toContain(secret);
  return res.json as { status: string; devices: { preAuthSessionId: string; codes: { codeId: string }[] }[] };
}

/** A device's item as stored. */
async function storedDevice(preAuthSessionId: string): Promise<Record<string, unknown> | undefined> {
  const doc = testDocClient();
  try {
    return (await doc.send(new GetCommand({ TableName: api.tableName, Key: keys.device(preAuthSessionId), ConsistentRead: true }))).Item;
  } finally {
    doc.destroy();
  }
}

const removeCode = (body: unknown, tenantId?: string) => api.post(tenantPath(tenantId, '/recipe/signinup/code/remove'), body);
const removeCodes = (body: unknown, tenantId?: string) => api.post(tenantPath(tenantId, '/recipe/signinup/codes/remove'), body);

/** A device as listed, from the codes issued on it (oldest first). */
const listed = (identity: { email: string } | { phoneNumber: string }, ...codes: Code[]) => ({
  preAuthSessionId: codes[0].preAuthSessionId,
  failedCodeInputAttemptCount: 0,
  ...identity,
  codes: codes.map((c) => ({ codeId: c.codeId, timeCreated: c.timeCreated, codeLifetime: 900_000 })),
});

describe('GET /recipe/signinup/codes', () => {
  it("lists an email's devices with their codes, oldest first, and exactly the core's fields", async () => {
    const email = uniqueEmail('list');
    const first = await issue({ email });
    const again = await resend(first);
    const second = await issue({ email });
    const answer = await list({ email: `  ${email.toUpperCase()} ` });
    expect(answer).toEqual({ status: 'OK', devices: [listed({ email }, first, again), listed({ email }, second)] });
    const other = await list({ email: uniqueEmail('nobody') });
    expect(other).toEqual({ status: 'OK', devices: [] });
  });

  it('lists a phone number given in any international form, by its E.164 form', async () => {
    const phoneNumber = uniquePhone();
    const code = await issue({ phoneNumber });
    const spaced = `${phoneNumber.slice(0, 2)} ${phoneNumber.slice(2, 5)}-${phoneNumber.slice(5, 8)}-${phoneNumber.slice(8)}`;
    expect(await list({ phoneNumber: spaced })).toEqual({ status: 'OK', devices: [listed({ phoneNumber }, code)] });
  });

  it('lists one device by deviceId or preAuthSessionId, with its failed attempts; an unknown one is no device', async () => {
    const email = uniqueEmail('one');
    const code = await issue({ email });
    await issue({ email });
    expect((await consumeInput(api, code, 'wrong')).json.status).toBe('INCORRECT_USER_INPUT_CODE_ERROR');
    const device = { ...listed({ email }, code), failedCodeInputAttemptCount: 1 };
    expect(await list({ deviceId: code.deviceId })).toEqual({ status: 'OK', devices: [device] });
    expect(await list({ preAuthSessionId: code.preAuthSessionId })).toEqual({ status: 'OK', devices: [device] });
    // Valid base64 of another device id, unpadded, or of another length: no device (as the core).
    for (const deviceId of [Buffer.alloc(32, 9).toString('base64'), code.deviceId.replace(/=$/, 'x'), 'AAAA', '']) {
      expect([deviceId, await list({ deviceId })]).toEqual([deviceId, { status: 'OK', devices: [] }]);
    }
    for (const preAuthSessionId of ['A'.repeat(43), 'not#a/key', '']) {
      expect([preAuthSessionId, await list({ preAuthSessionId })]).toEqual([preAuthSessionId, { status: 'OK', devices: [] }]);
    }
  });

  it('no longer lists the devices a consume of their email ended, nor the one it consumed', async () => {
    const email = uniqueEmail('ended');
    const older = await issue({ email });
    const used = await issue({ email });
    expect((await consumeLink(api, used)).json.status).toBe('OK');
    expect(await list({ email })).toEqual({ status: 'OK', devices: [] });
    expect(await list({ preAuthSessionId: older.preAuthSessionId })).toEqual({ status: 'OK', devices: [] });
    expect(await list({ deviceId: used.deviceId })).toEqual({ status: 'OK', devices: [] });
    // A device made after the consume is listed.
    const later = await issue({ email });
    expect(await list({ email })).toEqual({ status: 'OK', devices: [listed({ email }, later)] });
  });

  it.each([
    ['', 'Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId'],
    ['email=a@b.c&phoneNumber=%2B14155552671', 'Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId'],
    ['deviceId=AAAA&preAuthSessionId=x', 'Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId'],
    ['email=&deviceId=AAAA', 'Please provide exactly one of email, phoneNumber, deviceId or preAuthSessionId'],
    ['deviceId=not%20base64!', 'Input encoding error in deviceId'],
    ['deviceId=AAAAA', 'Input encoding error in deviceId'],
    ['deviceId=AA%3D%3D%3D', 'Input encoding error in deviceId'],
    ['deviceId=ab-_', 'Input encoding error in deviceId'],
    ['phoneNumber=6505551234', 'phoneNumber must be in international format, for example +14155552671'],
    [`preAuthSessionId=${'p'.repeat(129)}`, "Field name 'preAuthSessionId' is too long: the maximum is 128 characters"],
  ])('refuses ?%s with a 400 naming the field', async (query, message) => {
    const res = await api.get(`/recipe/signinup/codes?${query}`);
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([400, 'text/plain; charset=utf-8', message]);
  });
});

describe('POST /recipe/signinup/code/remove', () => {
  it('removes one code by its id: the device keeps its other codes, the removed one answers RESTART_FLOW_ERROR', async () => {
    const email = uniqueEmail('rm-one');
    const first = await issue({ email });
    const second = await resend(first);
    const before = await storedDevice(first.preAuthSessionId);
    const res = await removeCode({ codeId: first.codeId });
    expect([res.status, res.json]).toEqual([200, { status: 'OK' }]);
    // The removal counts the device's change counter up: a consume that read the code before
    // the removal fails its transaction (conditional on the counter) and reads the device again.
    expect((await storedDevice(first.preAuthSessionId))?.codeCount).toBe((before?.codeCount as number) + 1);
    expect(await list({ email })).toEqual({ status: 'OK', devices: [listed({ email }, second)] });
    expect((await consumeLink(api, first)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consumeInput(api, first, first.userInputCode)).json.status).toBe('INCORRECT_USER_INPUT_CODE_ERROR');
    expect((await consumeLink(api, second)).json).toMatchObject({ status: 'OK', createdNewUser: true });
  });

  it("removes a device's last code with its device: no consume, no resend, not listed", async () => {
    const email = uniqueEmail('rm-last');
    const code = await issue({ email });
    expect((await removeCode({ codeId: code.codeId })).json).toEqual({ status: 'OK' });
    expect(await list({ email })).toEqual({ status: 'OK', devices: [] });
    expect((await consumeInput(api, code, code.userInputCode)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await consumeLink(api, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await api.post('/recipe/signinup/code', { deviceId: code.deviceId })).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('removes a whole device by its preAuthSessionId, every code of it', async () => {
    const phoneNumber = uniquePhone();
    const first = await issue({ phoneNumber });
    const second = await resend(first);
    const kept = await issue({ phoneNumber });
    expect((await removeCode({ preAuthSessionId: first.preAuthSessionId })).json).toEqual({ status: 'OK' });
    expect(await list({ phoneNumber })).toEqual({ status: 'OK', devices: [listed({ phoneNumber }, kept)] });
    for (const code of [first, second]) expect((await consumeLink(api, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect((await api.post('/recipe/signinup/code/check', { preAuthSessionId: kept.preAuthSessionId, linkCode: kept.linkCode })).json.status).toBe('OK');
  });

  it('answers OK for a code or device it does not know, and for one already removed', async () => {
    const code = await issue({ email: uniqueEmail('rm-unknown') });
    for (const body of [
      { codeId: '00000000-0000-4000-8000-000000000000' },
      { codeId: 'not-a-code-id' },
      { codeId: 'x'.repeat(1000) },
      { codeId: code.codeId.toUpperCase() },
      { preAuthSessionId: 'A'.repeat(43) },
      { preAuthSessionId: 'PLDEV#x' },
      { codeId: code.codeId },
      { codeId: code.codeId },
    ]) {
      const res = await removeCode(body);
      expect([body, res.status, res.json]).toEqual([body, 200, { status: 'OK' }]);
    }
  });

  it('removes concurrently every code of a device, and resends racing the removals lose none of theirs', async () => {
    const email = uniqueEmail('rm-race');
    const first = await issue({ email });
    const codes = [first, ...(await Promise.all(Array.from({ length: 3 }, () => resend(first))))];
    const [removed, resent] = await Promise.all([
      Promise.all(codes.map((c) => removeCode({ codeId: c.codeId }))),
      Promise.all(Array.from({ length: 2 }, () => api.post('/recipe/signinup/code', { deviceId: first.deviceId }))),
    ]);
    expect(removed.map((r) => r.json)).toEqual(Array(codes.length).fill({ status: 'OK' }));
    // A resend lands before the device's last code goes (its code is listed) or after (the device is gone).
    const kept = resent.filter((r) => r.json.status === 'OK').map((r) => r.json as Code);
    for (const r of resent) expect(['OK', 'RESTART_FLOW_ERROR']).toContain(r.json.status);
    secrets.push(...kept.flatMap((c) => [c.linkCode]));
    const devices = (await list({ email })).devices;
    expect(devices.flatMap((d) => d.codes.map((c) => c.codeId)).sort()).toEqual(kept.map((c) => c.codeId).sort());
    for (const code of codes) expect((await consumeLink(api, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it('lets a consume and a removal of one code race: the code signs in at most once, and never after the removal answered', async () => {
    for (let i = 0; i < 5; i++) {
      const email = uniqueEmail('rm-consume');
      const code = await issue({ email });
      const other = await resend(code);
      const [consumed] = await Promise.all([consumeLink(api, code), removeCode({ codeId: code.codeId })]);
      expect(['OK', 'RESTART_FLOW_ERROR']).toContain(consumed.json.status);
      // After the removal answered, the code never signs in.
      expect((await consumeLink(api, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
      expect((await consumeLink(api, other)).json.status).toBe(consumed.json.status === 'OK' ? 'RESTART_FLOW_ERROR' : 'OK');
    }
  });

  it.each([
    [{}, "Please provide either 'codeId' or 'preAuthSessionId'"],
    [{ codeId: null }, "Please provide either 'codeId' or 'preAuthSessionId'"],
    [{ codeId: 'c', preAuthSessionId: 'p' }, "Please provide only one of 'codeId' or 'preAuthSessionId'"],
    [{ codeId: 7 }, "Field name 'codeId' is invalid in JSON input"],
    [{ preAuthSessionId: ['p'] }, "Field name 'preAuthSessionId' is invalid in JSON input"],
    [{ preAuthSessionId: 'p'.repeat(129) }, "Field name 'preAuthSessionId' is too long: the maximum is 128 characters"],
    [[], 'Invalid Json Input'],
  ])('refuses %j with a 400', async (body, message) => {
    const res = await removeCode(body);
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([400, 'text/plain; charset=utf-8', message]);
  });
});

describe('POST /recipe/signinup/codes/remove', () => {
  it('removes every device of an email (any case), and leaves other identities alone', async () => {
    const email = uniqueEmail('rm-all');
    const a = await issue({ email });
    const b = await resend(a);
    const c = await issue({ email });
    const otherEmail = uniqueEmail('rm-all-other');
    const other = await issue({ email: otherEmail });
    const res = await removeCodes({ email: ` ${email.toUpperCase()}` });
    expect([res.status, res.json]).toEqual([200, { status: 'OK' }]);
    expect(await list({ email })).toEqual({ status: 'OK', devices: [] });
    for (const code of [a, b, c]) expect((await consumeLink(api, code)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    expect(await list({ email: otherEmail })).toEqual({ status: 'OK', devices: [listed({ email: otherEmail }, other)] });
    expect((await removeCodes({ email })).json).toEqual({ status: 'OK' });
  });

  it('removes every device of a phone number, given in any international form', async () => {
    const phoneNumber = uniquePhone();
    const code = await issue({ phoneNumber });
    const spaced = `${phoneNumber.slice(0, 2)} (${phoneNumber.slice(2, 5)}) ${phoneNumber.slice(5)}`;
    expect((await removeCodes({ phoneNumber: spaced })).json).toEqual({ status: 'OK' });
    expect(await list({ phoneNumber })).toEqual({ status: 'OK', devices: [] });
    expect((await consumeInput(api, code, code.userInputCode)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it.each([
    [{}, 'Please provide exactly one of email or phoneNumber'],
    [{ email: 'a@b.c', phoneNumber: '+14155552671' }, 'Please provide exactly one of email or phoneNumber'],
    [{ email: 42 }, "Field name 'email' is invalid in JSON input"],
    [{ email: 'no-at-sign' }, "Field name 'email' is not an email address: it has no '@'"],
    [{ phoneNumber: '6505551234' }, 'phoneNumber must be in international format, for example +14155552671'],
    [{ phoneNumber: '\ud800' }, "Field name 'phoneNumber' is not valid Unicode: it holds a lone surrogate"],
  ])('refuses %j with a 400', async (body, message) => {
    const res = await removeCodes(body);
    expect([res.status, res.headers.get('content-type'), res.text]).toEqual([400, 'text/plain; charset=utf-8', message]);
  });
});

describe('only the tenant’s own devices', () => {
  it('lists and removes in the tenant of the path only', async () => {
    const tenant = `codes-${Date.now().toString(36)}`;
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: tenant })).json.status).toBe('OK');
    const email = uniqueEmail('tenants');
    const there = await issue({ email }, tenant);
    const thereToo = await resend(there, tenant);
    const here = await issue({ email });

    expect(await list({ email }, tenant)).toEqual({ status: 'OK', devices: [listed({ email }, there, thereToo)] });
    expect(await list({ email })).toEqual({ status: 'OK', devices: [listed({ email }, here)] });
    expect(await list({ deviceId: there.deviceId })).toEqual({ status: 'OK', devices: [] });
    expect(await list({ preAuthSessionId: there.preAuthSessionId })).toEqual({ status: 'OK', devices: [] });
    expect(await list({ preAuthSessionId: there.preAuthSessionId }, `appid-public/${tenant}`)).toEqual({
      status: 'OK',
      devices: [listed({ email }, there, thereToo)],
    });

    // Removals in public touch nothing of the other tenant.
    expect((await removeCode({ codeId: there.codeId })).json).toEqual({ status: 'OK' });
    expect((await removeCode({ preAuthSessionId: there.preAuthSessionId })).json).toEqual({ status: 'OK' });
    expect((await removeCodes({ email })).json).toEqual({ status: 'OK' });
    expect(await list({ email }, tenant)).toEqual({ status: 'OK', devices: [listed({ email }, there, thereToo)] });
    expect((await consumeLink(api, here)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });

    // And the other tenant's removals work there.
    expect((await removeCode({ codeId: there.codeId }, tenant)).json).toEqual({ status: 'OK' });
    expect(await list({ email }, tenant)).toEqual({ status: 'OK', devices: [listed({ email }, thereToo)] });
    expect((await removeCodes({ email }, tenant)).json).toEqual({ status: 'OK' });
    expect(await list({ email }, tenant)).toEqual({ status: 'OK', devices: [] });
    expect((await consumeLink(api, thereToo, tenant)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
  });

  it("answers 400 for a tenant that does not exist, as every tenant's endpoint", async () => {
    for (const res of [
      await api.get('/nope-codes/recipe/signinup/codes?email=a@b.c'),
      await removeCode({ codeId: '00000000-0000-4000-8000-000000000000' }, 'nope-codes'),
      await removeCodes({ email: 'a@b.c' }, 'nope-codes'),
    ]) {
      expect([res.status, res.text]).toEqual([400, 'AppId or tenantId not found']);
    }
  });
});

describe('secrets', () => {
  it('never lists a device id, link code, user input code or hash, and stores no code id secret', async () => {
    const email = uniqueEmail('secret');
    const code = await issue({ email, userInputCode: 'secret-code-4242' });
    const res = await api.get(`/recipe/signinup/codes?email=${encodeURIComponent(email)}`);
    expect(res.text).not.toContain('secret-code-4242');
    expect(Object.keys(res.json.devices[0]).sort()).toEqual(['codes', 'email', 'failedCodeInputAttemptCount', 'preAuthSessionId']);
    expect(Object.keys(res.json.devices[0].codes[0]).sort()).toEqual(['codeId', 'codeLifetime', 'timeCreated']);
    // The code id item holds the id and its device's public handle, nothing more.
    const table = await dumpTable(api.tableName);
    expect(table).not.toContain(code.linkCode);
    expect(table).not.toContain(code.deviceId);
    expect(table).not.toContain('secret-code-4242');
    await passwordlessSignIn(api, { email });
  });

  it('writes none of the secrets these tests saw to the server log', async () => {
    // The request lines of the last requests arrive through a pipe, a moment after their answers.
    await api.logLine((line) => line.includes('passwordless-consume-code'));
    const logs = api.logs.join('\n');
    expect(secrets.length).toBeGreaterThan(20);
    for (const secret of secrets) expect([secret, logs.includes(secret)]).toEqual([secret, false]);
  });
});
