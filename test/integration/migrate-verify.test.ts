import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { mfaSet, secretsOf } from '../support/mfa-fixtures';
import { linkingClient } from '../support/linking';
import { countingForwarder, migrate, withoutProgress, type CountingForwarder, type Run } from '../support/migrate-e2e';
import { expectedSet, MIGRATION_FIXTURES, type ExpectedSet } from '../support/migration';
import { scratchDir } from '../support/scratch';

/**
 * `migrate verify` end to end (SPEC §17c): each fixture imported by the real command into the
 * local service (one service for the file, one tenant per fixture so that `--extra` sees one
 * fixture's users), then verified through a forwarder that counts every request: only GETs.
 * Then the service is changed through its API — a verified flag, a metadata key, a role, a
 * device, a removed user, a skipped user that exists, a user the export never had — and verify
 * reports each as it should, with its exit code; no secret of the fixtures in any report or on
 * the terminal.
 */
const FIREBASE = join(MIGRATION_FIXTURES, 'firebase');
const AUTH0 = join(MIGRATION_FIXTURES, 'auth0');
const SUPABASE = join(MIGRATION_FIXTURES, 'supabase');
const MFA = mfaSet('supabase');
/** An API key the service refuses: it must not be echoed either. */
const WRONG_KEY = 'not-the-key-0123456789';
const SIGNER_KEY = expectedSet(FIREBASE).service!.vendor_password_hashing_signer_key;

let api: TestApi;
let proxy: CountingForwarder;
const dir = scratchDir('migrate-verify-e2e-');
/** Every verify run of the file: the secret scan reads them all. */
const runs: Run[] = [];

beforeAll(async () => {
  api = await startApi({ VENDOR_PASSWORD_HASHING_SIGNER_KEY: SIGNER_KEY, ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1', BULK_WORKER: 'on' });
  for (const tenantId of ['shop', 'sb', 'mfa']) expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
  proxy = await countingForwarder(api);
});
afterAll(async () => {
  await proxy?.close();
  await api?.stop();
});

/** Runs verify through the counting forwarder; the counts start at zero for each run. */
async function verify(args: string[]): Promise<Run> {
  proxy.reset();
  const run = await migrate(proxy.api, dir, ['verify', ...args]);
  runs.push(run);
  return run;
}

/** Imports a fixture with the real command; every user ends as its expected outcome. */
async function imported(args: string[], summary: ExpectedSet['summary']): Promise<void> {
  const run = await migrate(api, dir, args);
  expect(run.report.summary).toEqual(summary);
}

const byId = (run: Run) => Object.fromEntries(run.report.users.map((u: any) => [u.sourceId ?? u.userId, u]));
const outcomesOf = (run: Run) => Object.fromEntries(run.report.users.map((u: any) => [u.sourceId ?? u.userId, u.outcome]));
const ok = async (res: Promise<{ json: any }>) => expect((await res).json.status).toBe('OK');

describe('the Firebase fixture', () => {
  const set = expectedSet(FIREBASE);
  const args = ['firebase', join(FIREBASE, 'users.json'), '--hash-config', join(FIREBASE, 'hash-config.txt')];
  const planned = Object.fromEntries(set.users.map((u) => [u.sourceId, u.outcome === 'imported' ? 'match' : 'absent-as-planned']));
  const withMetadata = set.users.filter((u) => u.outcome === 'imported' && u.metadata).length;

  beforeAll(async () => {
    await imported(args, set.summary);
  });

  it('right after the import every user is match or absent-as-planned: exit 0, and only GETs were sent', async () => {
    const run = await verify(args);
    expect([run.code, withoutProgress(run.stderr)]).toEqual([0, '']);
    expect(run.report.summary).toEqual({ total: 16, match: 12, different: 0, missing: 0, absentAsPlanned: 4, unexpected: 0, extra: 0 });
    expect(outcomesOf(run)).toEqual(planned);
    // Checked eight at a time, reported in the order the import decides them: the export's, with
    // the users that share an identity (decided once the whole export is read) last.
    const shared = set.collisions.flatMap((c) => c.sourceIds);
    const order = JSON.parse(readFileSync(join(FIREBASE, 'users.json'), 'utf8')).users.map((u: any) => u.localId) as string[];
    expect(run.report.users.map((u: any) => u.sourceId)).toEqual([...order.filter((id) => !shared.includes(id)), ...order.filter((id) => shared.includes(id))]);
    expect(byId(run).YiVSlKKdRmlUWjs095yqgahefOJF).toMatchObject({ reasonCode: 'disabled' });
    expect(run.stdout).toContain('verify: 16 users: 12 match, 0 different, 0 missing, 4 absent as planned, 0 unexpected\n');
    // Reads only: the tenant check, one user read per source user, the metadata of the two users
    // that have some, and the phone of the one carried SMS factor (as the import asks it).
    expect(proxy.byMethod()).toEqual({ GET: 1 + 16 + withMetadata + 1 });
    expect(Object.fromEntries(proxy.counts)).toEqual({
      'GET /recipe/multitenancy/tenant/list/v2': 1,
      'GET /user/id': 16,
      'GET /recipe/user/metadata': withMetadata,
      'GET /public/users/by-accountinfo': 1,
    });
  });

  it('reports a flag, a metadata key, a removed user and a skipped user that exists, each as it should: exit 1', async () => {
    const uma = JSON.parse(readFileSync(join(FIREBASE, 'users.json'), 'utf8')).users.find((u: any) => u.localId === 'YiVSlKKdRmlUWjs095yqgahefOJF');
    await ok(api.post('/recipe/user/email/verify/remove', { userId: '7jp1aHJzJBlYWqKr589grIQOHYFT', email: 'lukasz@example.net' }));
    await ok(api.put('/recipe/user/metadata', { userId: 'fKE5drXUJI3k9e60HxNNsUhR8jN5', metadataUpdate: { plan: 'free', seats: 3 } }));
    await ok(api.post('/user/remove', { userId: 'eFemPvppbuQy2YRIz7k69rWuBQmV' }));
    const signup = (await api.post('/recipe/signup', { email: uma.email, password: 'a-new-password-1' })).json;
    await ok(api.post('/recipe/userid/map', { superTokensUserId: signup.user.id, externalUserId: uma.localId }));

    const run = await verify(args);
    expect(run.code).toBe(1);
    expect(run.report.summary).toEqual({ total: 16, match: 9, different: 2, missing: 1, absentAsPlanned: 3, unexpected: 1, extra: 0 });
    const users = byId(run);
    expect(users['7jp1aHJzJBlYWqKr589grIQOHYFT'].differences).toEqual([
      { field: 'loginMethods[emailpassword:lukasz@example.net].verified', export: true, service: false },
    ]);
    // A key the app added (`seats`) is no difference; the mapped one it changed is.
    expect(users.fKE5drXUJI3k9e60HxNNsUhR8jN5.differences).toEqual([{ field: 'metadata.plan', export: 'pro', service: 'free' }]);
    expect(users.eFemPvppbuQy2YRIz7k69rWuBQmV).toEqual({ sourceId: 'eFemPvppbuQy2YRIz7k69rWuBQmV', outcome: 'missing' });
    expect(users.YiVSlKKdRmlUWjs095yqgahefOJF).toMatchObject({ outcome: 'unexpected', userId: 'YiVSlKKdRmlUWjs095yqgahefOJF', reasonCode: 'disabled' });
    expect(run.stdout).toContain('verify: 16 users: 9 match, 2 different, 1 missing, 3 absent as planned, 1 unexpected\n');
    expect(run.stdout).toContain(
      'different   7jp1aHJzJBlYWqKr589grIQOHYFT  loginMethods[emailpassword:lukasz@example.net].verified: export true, service false\n',
    );
    expect(run.stdout).toContain('different   fKE5drXUJI3k9e60HxNNsUhR8jN5  metadata.plan: export "pro", service "free"\n');
    expect(run.stdout).toContain('missing     eFemPvppbuQy2YRIz7k69rWuBQmV  not in the service\n');
    expect(run.stdout).toContain(
      'unexpected  YiVSlKKdRmlUWjs095yqgahefOJF  in the service as YiVSlKKdRmlUWjs095yqgahefOJF, but the import skips it: disabled\n',
    );
    expect(Object.keys(proxy.byMethod())).toEqual(['GET']);
  });

  it('--extra lists a user created directly in the tenant, by its own id: exit 1', async () => {
    const direct = (await api.post('/recipe/signup', { email: 'walk-in@example.org', password: 'walk-in-password-1' })).json.user;
    const run = await verify([...args, '--extra']);
    expect(run.code).toBe(1);
    expect(run.report.summary).toMatchObject({ total: 16, extra: 1 });
    expect(byId(run)[direct.id]).toEqual({ userId: direct.id, outcome: 'extra', loginMethods: ['emailpassword:walk-in@example.org'] });
    expect(run.stdout).toContain(`extra       ${direct.id.padEnd(28)}  in the service, not in the export (emailpassword:walk-in@example.org)\n`);
    expect(proxy.counts.get('GET /public/users')).toBe(1);
    expect(Object.keys(proxy.byMethod())).toEqual(['GET']);
  });

  it('a usage error is exit 2 with no report', async () => {
    const noConfig = await verify(['firebase', join(FIREBASE, 'users.json')]);
    expect([noConfig.code, noConfig.stderr, noConfig.report]).toEqual([2, expect.stringContaining('--hash-config <file> is required'), undefined]);
    const importOnly = await verify([...args, '--dry-run']);
    expect([importOnly.code, importOnly.stderr]).toEqual([2, expect.stringContaining("unknown option '--dry-run'")]);
    const tenant = await verify([...args, '--tenant', 'nope']);
    expect([tenant.code, tenant.stderr]).toEqual([2, expect.stringContaining('tenant nope does not exist')]);
  });
});

describe('the Auth0 fixture (tenant shop)', () => {
  const set = expectedSet(AUTH0);
  const args = ['auth0', join(AUTH0, 'users.ndjson'), '--hashes', join(AUTH0, 'password-hashes.ndjson'), '--tenant', 'shop'];

  it('matches after the import; a role the app took away is a roles difference', async () => {
    await imported(args, set.summary);
    const before = await verify(args);
    expect([before.code, before.report.summary]).toEqual([0, { total: 15, match: 12, different: 0, missing: 0, absentAsPlanned: 3, unexpected: 0, extra: 0 }]);
    // The one user with roles is also the one with metadata: its roles are read in its tenant.
    expect([proxy.counts.get('GET /shop/recipe/user/roles'), proxy.counts.get('GET /recipe/user/metadata')]).toEqual([1, 1]);

    const ugo = 'auth0|6156c000210c255acb4247e3';
    await ok(api.post('/shop/recipe/user/role/remove', { userId: ugo, role: 'editor' }));
    const after = await verify(args);
    expect(after.code).toBe(1);
    expect(byId(after)[ugo].differences).toEqual([{ field: 'roles', export: ['editor'], service: [] }]);
    expect(after.stdout).toContain(`different   ${ugo}  roles: export ["editor"], service []\n`);
    expect(Object.keys(proxy.byMethod())).toEqual(['GET']);
  });

  it('a Google identity the app linked to an imported user is a loginMethods difference listing both sides', async () => {
    const one = set.users.find((u) => u.outcome === 'imported' && u.loginMethods.length === 1 && u.loginMethods[0].recipeId === 'emailpassword' && !u.roles)!;
    const own = `emailpassword:${one.loginMethods[0].email}`;
    const linking = linkingClient(api);
    const google = await linking.thirdParty(one.loginMethods[0].email, 'shop', { thirdPartyId: 'google', thirdPartyUserId: 'g-linked-1' });
    await linking.group(one.sourceId, google);
    const run = await verify(args);
    expect(run.code).toBe(1);
    expect(byId(run)[one.sourceId]).toEqual({
      sourceId: one.sourceId,
      outcome: 'different',
      userId: one.sourceId,
      differences: [{ field: 'loginMethods', export: [own], service: [own, 'thirdparty:google:g-linked-1'].sort() }],
    });
    expect(Object.keys(proxy.byMethod())).toEqual(['GET']);
  });

  it('the service unreachable or a wrong API key is exit 2 before any user is read', async () => {
    const wrongKey = await migrate(undefined, dir, ['verify', ...args, '--url', proxy.api.baseUrl, '--api-key', WRONG_KEY]);
    expect([wrongKey.code, wrongKey.report]).toEqual([2, undefined]);
    expect(wrongKey.stderr).toMatch(/^error: .*API key/m);
    const down = await migrate(undefined, dir, ['verify', ...args, '--url', 'http://127.0.0.1:9', '--api-key', TEST_API_KEY]);
    expect([down.code, down.report]).toEqual([2, undefined]);
    expect(down.stderr).toMatch(/^error: /m);
    runs.push(wrongKey, down);
  });
});

describe('the Supabase fixture with identities (tenant sb)', () => {
  const set = expectedSet(SUPABASE);
  const args = ['supabase', join(SUPABASE, 'users.ndjson'), '--identities', join(SUPABASE, 'identities.ndjson'), '--tenant', 'sb'];

  it("matches after the import; a Google identity's flag changed is named by its provider and user id", async () => {
    await imported(args, set.summary);
    const before = await verify(args);
    expect([before.code, before.report.summary]).toEqual([0, { total: 4, match: 3, different: 0, missing: 0, absentAsPlanned: 1, unexpected: 0, extra: 0 }]);

    const ben = set.users.find((u) => u.loginMethods.some((lm) => lm.recipeId === 'thirdparty'))!;
    const google = ben.loginMethods[0];
    const held = (await api.get(`/user/id?userId=${ben.sourceId}`)).json.user;
    await ok(api.post('/recipe/user/email/verify/remove', { userId: held.loginMethods[0].recipeUserId, email: google.email }));
    const after = await verify(args);
    expect(after.code).toBe(1);
    expect(byId(after)[ben.sourceId].differences).toEqual([
      { field: `loginMethods[thirdparty:google:${google.thirdPartyUserId}].verified`, export: true, service: false },
    ]);
  });
});

describe('the Supabase second-factor fixture (tenant mfa)', () => {
  const { dir: fixture, set } = MFA;
  const [name, file, ...companions] = set.args;
  const args = [name, join(fixture, file), ...companions.map((a, i) => (i % 2 === 1 ? join(fixture, a) : a)), '--tenant', 'mfa'];

  it('compares the carried TOTP devices by name, period, skew and verified, never reading a secret', async () => {
    await imported(args, set.summary);
    const before = await verify(args);
    expect([before.code, before.report.summary]).toEqual([0, { total: 5, match: 5, different: 0, missing: 0, absentAsPlanned: 0, unexpected: 0, extra: 0 }]);
    const withDevices = set.users.filter((u) => u.mfa.devices.length > 0).length;
    expect(proxy.counts.get('GET /recipe/totp/device/list')).toBe(withDevices);

    const noor = set.users.find((u) => u.mfa.devices.some((d) => d.name === 'iPhone'))!;
    await ok(api.put('/recipe/totp/device', { userId: noor.sourceId, existingDeviceName: 'iPhone', newDeviceName: 'Old iPhone' }));
    const after = await verify(args);
    expect(after.code).toBe(1);
    expect(byId(after)[noor.sourceId].differences).toEqual([{ field: 'totpDevices', export: ['iPhone'], service: ['Old iPhone'] }]);
    expect(Object.keys(proxy.byMethod())).toEqual(['GET']);
  });
});

describe('secrets', () => {
  it('no hash, salt, password, TOTP secret, signer key or API key in any report or on the terminal', () => {
    expect(runs.length).toBeGreaterThanOrEqual(8);
    const firebase = JSON.parse(readFileSync(join(FIREBASE, 'known-passwords.json'), 'utf8')).users as {
      password: string;
      passwordHash: string;
      salt: string;
    }[];
    const auth0 = readFileSync(join(AUTH0, 'password-hashes.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).passwordHash as string);
    const supabase = readFileSync(join(SUPABASE, 'users.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).encrypted_password as string);
    const mfaHashes = readFileSync(join(MFA.dir, 'users.csv'), 'utf8').match(/\$2a\$10\$[./A-Za-z0-9]{53}/g) ?? [];
    const secrets = [
      ...firebase.flatMap((k) => [k.password, k.passwordHash, k.salt]),
      ...auth0,
      ...supabase,
      ...mfaHashes,
      ...secretsOf(MFA.set),
      SIGNER_KEY,
      TEST_API_KEY,
      WRONG_KEY,
    ].filter((s) => typeof s === 'string' && s.length >= 8);
    expect(secrets.length).toBeGreaterThan(30);
    const everything = runs.map((run) => JSON.stringify(run.report ?? {}) + run.stdout + run.stderr).join('\n');
    for (const secret of secrets) expect([secret, everything.includes(secret)]).toEqual([secret, false]);
  });
});
