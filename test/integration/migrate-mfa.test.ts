import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApi, type TestApi } from '../support/api';
import { migrate } from '../support/migrate-e2e';
import { MFA_SOURCES, mfaSet, secretsOf, type MfaExpectedUser } from '../support/mfa-fixtures';
import { scratchDir } from '../support/scratch';
import { totpCode } from '../support/totp';

/**
 * Second factors carried over end to end (SPEC §20): the built command with `--mfa carry` (the
 * default) on each source's fixture of `test/fixtures/mfa/`, against the local service and its
 * bulk worker. A user whose SMS factor was carried holds a verified passwordless phone login
 * method linked to its primary user; every user whose MFA was on requires its factors in its
 * metadata; a carried authenticator app is a verified TOTP device under the user's external id,
 * listed with its name, period and skew, and the code an app shows for its secret now verifies;
 * no secret reaches the report, the ledger, the terminal or the service's log.
 */
const SIGNER_KEY = mfaSet('firebase').set.signerKey!;

let api: TestApi;
const dir = scratchDir('migrate-mfa-e2e-');
beforeAll(async () => {
  api = await startApi({ VENDOR_PASSWORD_HASHING_SIGNER_KEY: SIGNER_KEY, ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1', BULK_WORKER: 'on' });
});
afterAll(async () => {
  await api?.stop();
});

/** What the service holds for a user: its login methods (the phone linked), its required factors, its password, its TOTP devices. */
async function checkCarried(want: MfaExpectedUser): Promise<void> {
  const where = want.label;
  const got = await api.get(`/user/id?userId=${encodeURIComponent(want.sourceId)}`);
  expect([where, got.json.status]).toEqual([where, 'OK']);
  const user = got.json.user;
  const view = (lm: { recipeId: string; email?: string; phoneNumber?: string; verified: boolean }) =>
    JSON.stringify({ recipeId: lm.recipeId, email: lm.email, phoneNumber: lm.phoneNumber, verified: lm.verified });
  expect([where, user.loginMethods.map(view).sort()]).toEqual([where, want.loginMethods.map(view).sort()]);
  expect([where, user.isPrimaryUser, user.timeJoined]).toEqual([where, want.loginMethods.length > 1, want.timeJoined]);

  const { metadata } = (await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(want.sourceId)}`)).json;
  expect([where, metadata]).toEqual([where, expect.objectContaining(want.metadata ?? {})]);
  expect([where, metadata._supertokens?.requiredSecondaryFactors ?? []]).toEqual([where, want.mfa.requiredSecondaryFactors]);

  for (const lm of want.loginMethods) {
    if (lm.recipeId === 'emailpassword' && want.password !== undefined) {
      const signin = await api.post('/recipe/signin', { email: lm.email, password: want.password });
      expect([where, signin.json.status, signin.json.user?.id]).toEqual([where, 'OK', want.sourceId]);
    }
    if (lm.recipeId === 'passwordless' && lm.phoneNumber) {
      // The SMS factor's phone finds the same (primary) user.
      const found = await api.get(`/users/by-accountinfo?phoneNumber=${encodeURIComponent(lm.phoneNumber)}`);
      expect([where, found.json.users.map((u: { id: string }) => u.id)]).toEqual([where, [want.sourceId]]);
    }
  }

  // The devices, by the external id the SDK passes (the source's id): listed verified, and each
  // secret's current code accepted (once: a code is one use).
  const userId = encodeURIComponent(want.sourceId);
  const listed = (await api.get(`/recipe/totp/device/list?userId=${userId}`)).json;
  const devices = want.mfa.devices.map((d) => ({ name: d.name, period: d.period, skew: d.skew, verified: true }));
  expect([where, listed]).toEqual([where, { status: 'OK', devices: expect.arrayContaining(devices) }]);
  expect([where, listed.devices.length]).toEqual([where, devices.length]);
  for (const device of want.mfa.devices) {
    const verify = await api.post('/recipe/totp/verify', { userId: want.sourceId, totp: totpCode(device.secret, 0, device.period) });
    expect([where, device.name, verify.json.status]).toEqual([where, device.name, 'OK']);
  }
}

describe.each(MFA_SOURCES)('migrating the %s second-factor fixture', (source) => {
  const { dir: fixture, set } = mfaSet(source);

  it('carries TOTP devices, SMS factors and required factors over; no secret anywhere', async () => {
    // The fixture's paths made absolute: the report and the ledger go to the scratch folder.
    const [name, file, ...companions] = set.args;
    const run = await migrate(api, dir, [name, join(fixture, file), ...companions.map((a, i) => (i % 2 === 1 ? join(fixture, a) : a))]);
    expect([run.report.summary, [set.exitCode, ...(set.exitCodeAlso ?? [])].includes(run.code ?? -1)]).toEqual([set.summary, true]);
    expect(set.users.some((u) => u.mfa.devices.length > 0) || source === 'firebase').toBe(true);
    for (const want of set.users) {
      const entry = run.report.users.find((u: { sourceId: string }) => u.sourceId === want.sourceId);
      expect([want.label, entry.outcome, (entry.warnings ?? []).map((w: { code: string }) => w.code)]).toEqual([want.label, 'imported', want.mfa.warnings]);
      await checkCarried(want);
    }
    const ledger = readFileSync(run.report.ledger, 'utf8');
    expect(ledger.trim().split('\n')).toHaveLength(set.summary.imported);
    const everything = [run.stdout, run.stderr, JSON.stringify(run.report), ledger, api.logs.join('\n')].join('\n');
    for (const secret of secretsOf(set)) expect([secret, everything.includes(secret)]).toEqual([secret, false]);
  });
});
