import { hashSync } from 'bcryptjs';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { countingForwarder, migrate, rerunSummary, type CountingForwarder, type Run } from '../support/migrate-e2e';
import { expectedSet, MIGRATION_FIXTURES } from '../support/migration';
import { scratchDir } from '../support/scratch';

/**
 * Running the import again on a newer export (SPEC §17c), end to end: the Auth0 fixture imported
 * by the real command into the local service, every run through a forwarder that counts the
 * requests (the ledger is found by source, service URL and tenant: the forwarder's URL for
 * every run of this file). Newer exports are the fixture's files with lines changed.
 */
const AUTH0 = join(MIGRATION_FIXTURES, 'auth0');
const set = expectedSet(AUTH0);

let api: TestApi;
let proxy: CountingForwarder;
const dir = scratchDir('migrate-sync-e2e-');
/** Every run of the file: the secret scan reads them all. */
const runs: Run[] = [];

beforeAll(async () => {
  api = await startApi({ ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1', BULK_WORKER: 'on' });
  proxy = await countingForwarder(api);
});
afterAll(async () => {
  await proxy?.close();
  await api?.stop();
});

/** An export of the fixture: its two files, each line passed through `edit` (by Auth0 user id / hash `_id`). */
function exportOf(name: string, edit: { users?: (u: any) => any; hashes?: (h: any) => any; added?: any[] } = {}): string[] {
  const lines = (file: string, f?: (x: any) => any) =>
    readFileSync(join(AUTH0, file), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
      .map((x) => (f ? f(x) : x))
      .filter((x) => x !== undefined)
      .map((x) => JSON.stringify(x))
      .join('\n');
  const users = join(dir, `${name}-users.ndjson`);
  const hashes = join(dir, `${name}-hashes.ndjson`);
  writeFileSync(users, `${[lines('users.ndjson', edit.users), ...(edit.added ?? []).map((u) => JSON.stringify(u))].join('\n')}\n`);
  writeFileSync(hashes, `${lines('password-hashes.ndjson', edit.hashes)}\n`);
  return ['auth0', users, '--hashes', hashes];
}

/** Runs the command through the counting forwarder; the counts start at zero for each run. */
async function run(args: string[]): Promise<Run> {
  proxy.reset();
  const r = await migrate(proxy.api, dir, args);
  runs.push(r);
  return r;
}

const ledgerFile = () => readdirSync(dir).filter((f) => f.startsWith('migration-ledger-'));
const ledgerLines = () =>
  readFileSync(join(dir, ledgerFile()[0]), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('the first import', () => {
  it('keeps in the ledger, per imported user, what was sent: the mapped fields and a digest of the hash', async () => {
    const first = await run(exportOf('v1'));
    expect([first.code, first.report.summary]).toEqual([set.exitCode, set.summary]);
    expect(ledgerFile()).toHaveLength(1);
    const lines = ledgerLines();
    expect(lines.map((l) => l.sourceId).sort()).toEqual(
      set.users
        .filter((u) => u.outcome === 'imported')
        .map((u) => u.sourceId)
        .sort(),
    );
    const olivier = lines.find((l) => l.sourceId === 'auth0|5ffd6c27736a68c4b34232da');
    expect(olivier.sent.loginMethods).toEqual([
      {
        email: 'olivier@shop.example',
        hashingAlgorithm: 'BCRYPT',
        isVerified: true,
        passwordHashDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        recipeId: 'emailpassword',
        tenantIds: ['public'],
        timeJoinedInMSSinceEpoch: 1610443815120,
      },
    ]);
    const ugo = lines.find((l) => l.sourceId === 'auth0|6156c000210c255acb4247e3');
    expect([ugo.sent.userMetadata, ugo.sent.userRoles]).toEqual([
      { theme: 'dark', locale: 'it-IT', plan: 'team' },
      [{ role: 'editor', tenantIds: ['public'] }],
    ]);
  });
});

describe('a re-run on an unchanged export', () => {
  it('sends no request at all: every imported user is answered by the ledger, counted unchanged', async () => {
    // The same export written again under other names: the ledger knows it by source, not by file.
    const again = await run(exportOf('v1-again'));
    expect(Object.fromEntries(proxy.counts)).toEqual({});
    expect([again.code, again.report.summary]).toEqual([set.exitCode, rerunSummary(set.summary)]);
    const imported = again.report.users.filter((u: any) => u.outcome === 'imported');
    expect([imported.length, imported.every((u: any) => u.fromLedger === true)]).toEqual([set.summary.imported, true]);
    expect(again.stdout).toContain(`${set.summary.imported} imported by an earlier run (the ledger): nothing sent for them`);
  });

  it('checks the service at its first request: a wrong API key with a changed user is exit 2, nothing written', async () => {
    const changed = exportOf('v1-key', { users: (u) => (u.user_id === 'auth0|601aef2c7f1723bf76e412ca' ? { ...u, email_verified: true } : u) });
    proxy.reset();
    const wrong = await migrate(undefined, dir, [...changed, '--url', proxy.api.baseUrl, '--api-key', 'not-the-key-0123456789']);
    runs.push(wrong);
    expect([wrong.code, wrong.report, wrong.stderr]).toEqual([2, undefined, expect.stringMatching(/^error: .*refused the API key/m)]);
    expect(Object.fromEntries(proxy.counts)).toEqual({ 'GET /recipe/multitenancy/tenant/list/v2': 1 });
  });
});

const OLIVIER = 'auth0|5ffd6c27736a68c4b34232da';
const PAULA = 'auth0|601aef2c7f1723bf76e412ca';
const UGO = 'auth0|6156c000210c255acb4247e3';
const NEW_PASSWORD = 'Olivier-2026-new!';
const NEW_HASH = hashSync(NEW_PASSWORD, 10);
/** The newer export of step 3: Olivier's password changed, Paula verified her email, Ugo's plan, locale and roles. */
const v2 = {
  users: (u: any) => {
    if (u.user_id === PAULA) return { ...u, email_verified: true };
    if (u.user_id === UGO) {
      const { locale: _dropped, ...userMetadata } = u.user_metadata;
      return { ...u, user_metadata: userMetadata, app_metadata: { ...u.app_metadata, plan: 'pro', roles: ['editor', 'admin'] } };
    }
    return u;
  },
  hashes: (h: any) => (`auth0|${h._id.$oid}` === OLIVIER ? { ...h, passwordHash: NEW_HASH } : h),
};
const byId = (r: Run) => Object.fromEntries(r.report.users.map((u: any) => [u.sourceId, u]));

describe('a newer export: the service still holds what was sent', () => {
  let synced: Run;
  beforeAll(async () => {
    synced = await run(exportOf('v2', v2));
  });

  it('reads only the changed users and brings each field in line: updated, with the fields it changed', async () => {
    expect(synced.code).toBe(set.exitCode);
    expect(synced.report.summary).toEqual({
      ...rerunSummary(set.summary),
      imported: set.summary.imported - 3,
      unchanged: set.summary.imported - 3,
      updated: 3,
    });
    const users = byId(synced);
    expect([users[OLIVIER].outcome, users[OLIVIER].changed]).toEqual(['updated', ['loginMethods[emailpassword:olivier@shop.example].password']]);
    expect([users[PAULA].outcome, users[PAULA].changed]).toEqual(['updated', ['loginMethods[emailpassword:paula@shop.example].verified']]);
    expect([users[UGO].outcome, users[UGO].changed]).toEqual(['updated', ['metadata.locale', 'metadata.plan', 'roles.admin']]);
    expect(synced.stdout).toContain(`since the last run: ${set.summary.imported - 3} unchanged, 3 updated, 0 conflict, 0 gone from the source, 0 removed`);
    // One read per changed user (metadata and roles only for Ugo), then the writes; nothing for the others.
    expect(Object.fromEntries(proxy.counts)).toEqual({
      'GET /recipe/multitenancy/tenant/list/v2': 1,
      'GET /recipe/roles': 1,
      'PUT /recipe/role': 1,
      'GET /user/id': 3,
      'GET /recipe/user/metadata': 1,
      'GET /public/recipe/user/roles': 1,
      'POST /public/recipe/user/passwordhash/import': 1,
      'POST /public/recipe/user/email/verify/token': 1,
      'POST /public/recipe/user/email/verify': 1,
      'PUT /recipe/user/metadata': 1,
      'PUT /public/recipe/user/role': 1,
    });
  });

  it('the new password signs in and the old one is refused', async () => {
    const old = JSON.parse(readFileSync(join(AUTH0, 'known-passwords.json'), 'utf8')).users.find((u: any) => u.userId === OLIVIER).password;
    const signin = await api.post('/recipe/signin', { email: 'olivier@shop.example', password: NEW_PASSWORD });
    expect([signin.json.status, signin.json.user?.id]).toEqual(['OK', OLIVIER]);
    expect((await api.post('/recipe/signin', { email: 'olivier@shop.example', password: old })).json.status).toBe('WRONG_CREDENTIALS_ERROR');
  });

  it("Paula's email is verified; Ugo's plan changed, his locale dropped, his theme kept, the role added", async () => {
    expect((await api.get(`/user/id?userId=${encodeURIComponent(PAULA)}`)).json.user.loginMethods[0].verified).toBe(true);
    expect((await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(UGO)}`)).json.metadata).toEqual({ theme: 'dark', plan: 'pro' });
    expect((await api.get(`/recipe/user/roles?userId=${encodeURIComponent(UGO)}`)).json.roles.sort()).toEqual(['admin', 'editor']);
  });

  it('the same newer export again is a no-op: no request', async () => {
    const again = await run(exportOf('v2-again', v2));
    expect(Object.fromEntries(proxy.counts)).toEqual({});
    expect([again.code, again.report.summary]).toEqual([set.exitCode, rerunSummary(set.summary)]);
  });
});

const RAHEL = 'auth0|6097d19cf9bf0c28da27bfa5';
/** v2, then Ugo's theme and plan, and Rahel's metadata, changed in the export. */
const v3 = (theme: string, vip: string) => ({
  ...v2,
  users: (u: any) => {
    const w = v2.users(u);
    if (u.user_id === UGO) return { ...w, user_metadata: { ...w.user_metadata, theme }, app_metadata: { ...w.app_metadata, plan: 'business' } };
    if (u.user_id === RAHEL) return { ...w, user_metadata: { vip } };
    return w;
  },
});

describe('a newer export where the app changed the same fields', () => {
  let conflicted: Run;
  beforeAll(async () => {
    // The app changed Ugo's theme, and removed Rahel.
    expect((await api.put('/recipe/user/metadata', { userId: UGO, metadataUpdate: { theme: 'solar' } })).json.status).toBe('OK');
    expect((await api.post('/user/remove', { userId: RAHEL })).json.status).toBe('OK');
    conflicted = await run(exportOf('v3', v3('light', 'silver')));
  });

  it('leaves each such field as the service has it, reported conflict with the three values: exit 1', async () => {
    expect(conflicted.code).toBe(1);
    const users = byId(conflicted);
    expect(users[UGO]).toMatchObject({
      outcome: 'conflict',
      changed: ['metadata.plan'],
      conflicts: [{ field: 'metadata.theme', ledger: 'dark', export: 'light', service: 'solar' }],
      needsAction: true,
    });
    expect(users[RAHEL]).toMatchObject({ outcome: 'conflict', conflicts: [{ field: 'user', ledger: RAHEL, export: RAHEL, service: null }] });
    expect(conflicted.stdout).toContain(
      `  conflict          ${UGO}  metadata.theme: ledger "dark", export "light", service "solar" (kept as the service has it)\n`,
    );
    expect(conflicted.stdout).toContain(
      `  conflict          ${RAHEL}  user: ledger "${RAHEL}", export "${RAHEL}", service null (kept as the service has it)\n`,
    );
    expect(conflicted.report.summary).toEqual({
      ...rerunSummary(set.summary),
      imported: set.summary.imported - 2,
      unchanged: set.summary.imported - 2,
      conflict: 2,
    });
    expect((await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(UGO)}`)).json.metadata).toEqual({ theme: 'solar', plan: 'business' });
    expect((await api.get(`/user/id?userId=${encodeURIComponent(RAHEL)}`)).json.status).toBe('UNKNOWN_USER_ID_ERROR');
    // Nothing written for the conflicts: the one write is Ugo's plan.
    expect(Object.entries(Object.fromEntries(proxy.counts)).filter(([k]) => !k.startsWith('GET '))).toEqual([['PUT /recipe/user/metadata', 1]]);
  });

  it('--prefer export writes the export’s value over the app’s, and imports a user the app removed again', async () => {
    const preferred = await run([...exportOf('v4', v3('sepia', 'gold')), '--prefer', 'export']);
    expect(preferred.code).toBe(set.exitCode);
    const users = byId(preferred);
    expect(users[UGO]).toMatchObject({ outcome: 'updated', changed: ['metadata.theme'] });
    expect(users[RAHEL]).toMatchObject({ outcome: 'imported', userId: RAHEL });
    expect((await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(UGO)}`)).json.metadata).toEqual({ theme: 'sepia', plan: 'business' });
    expect((await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(RAHEL)}`)).json.metadata).toEqual({ vip: 'gold' });
    const signin = await api.post('/recipe/signin', { email: 'rahel@shop.example', password: 'rahel-Pa55' });
    expect([signin.json.status, signin.json.user?.id]).toEqual(['OK', RAHEL]);
    // The ledger now holds what this run sent: the same export again is a no-op.
    const again = await run([...exportOf('v4-again', v3('sepia', 'gold')), '--prefer', 'export']);
    expect([Object.fromEntries(proxy.counts), again.report.summary.unchanged]).toEqual([{}, set.summary.imported]);
  });
});

const YOSEF = 'github|9081726';
const ZELDA = 'email|62735b01965f9192de96f8e9';
/** The export of step 4, without Yosef, and with Zelda blocked. */
const v5 = () => {
  const base = v3('sepia', 'gold');
  return { ...base, users: (u: any) => (u.user_id === YOSEF ? undefined : u.user_id === ZELDA ? { ...base.users(u), blocked: true } : base.users(u)) };
};

/** A user new in the export of step 5 on. */
const NOVA = 'auth0|new-in-v5b';
const newcomer = () => {
  const first = JSON.parse(readFileSync(join(AUTH0, 'users.ndjson'), 'utf8').split('\n')[0]);
  return { ...first, user_id: NOVA, email: 'nova@shop.example', identities: [{ ...first.identities[0], user_id: 'new-in-v5b' }] };
};

describe('users gone from the export', () => {
  it('are reported gone-from-source and left in the service, with no request: exit 1', async () => {
    const gone = await run(exportOf('v5', v5()));
    expect(Object.fromEntries(proxy.counts)).toEqual({});
    expect(gone.code).toBe(1);
    const users = byId(gone);
    expect(users[YOSEF]).toEqual({
      sourceId: YOSEF,
      userId: YOSEF,
      outcome: 'gone-from-source',
      reason: 'not in the export; left in the service (--remove-gone removes it)',
      needsAction: true,
    });
    expect(users[ZELDA]).toMatchObject({ outcome: 'gone-from-source', reason: expect.stringMatching(/^the export now skips it: .*; left in the service/) });
    expect(gone.report.summary).toEqual({
      ...rerunSummary(set.summary),
      imported: set.summary.imported - 2,
      unchanged: set.summary.imported - 2,
      goneFromSource: 2,
    });
    expect(gone.stdout).toContain(`  gone-from-source  ${YOSEF}  not in the export; left in the service (--remove-gone removes it)\n`);
    for (const id of [YOSEF, ZELDA]) expect((await api.get(`/user/id?userId=${encodeURIComponent(id)}`)).json.status).toBe('OK');
  });

  it('--remove-gone removes them (POST /user/remove each) and the ledger forgets them', async () => {
    const removed = await run([...exportOf('v5-remove', v5()), '--remove-gone']);
    expect(removed.code).toBe(set.exitCode);
    expect(Object.fromEntries(proxy.counts)).toEqual({ 'GET /recipe/multitenancy/tenant/list/v2': 1, 'POST /user/remove': 2 });
    const users = byId(removed);
    expect([users[YOSEF].outcome, users[ZELDA].outcome]).toEqual(['removed', 'removed']);
    expect(removed.report.summary).toMatchObject({ removed: 2, goneFromSource: 0 });
    for (const id of [YOSEF, ZELDA]) expect((await api.get(`/user/id?userId=${encodeURIComponent(id)}`)).json.status).toBe('UNKNOWN_USER_ID_ERROR');
    const again = await run(exportOf('v5-again', v5()));
    expect([Object.fromEntries(proxy.counts), again.report.summary.goneFromSource, byId(again)[ZELDA].outcome]).toEqual([{}, 0, 'skipped']);
    expect(
      ledgerLines()
        .filter((l) => l.removed === true)
        .map((l) => l.sourceId)
        .sort(),
    ).toEqual([YOSEF, ZELDA].sort());
  });

  it('a user new in the export is imported, and is not gone from it', async () => {
    const added = await run(exportOf('v5b', { ...v5(), added: [newcomer()] }));
    expect([byId(added)[NOVA].outcome, byId(added)[NOVA].fromLedger, added.report.summary.goneFromSource]).toEqual(['imported', undefined, 0]);
    expect((await api.get(`/user/id?userId=${encodeURIComponent(NOVA)}`)).json.user.loginMethods.map((lm: any) => lm.recipeId)).toEqual(['passwordless']);
    const after = await run(exportOf('v5b-again', { ...v5(), added: [newcomer()] }));
    expect([Object.fromEntries(proxy.counts), after.report.summary.goneFromSource, byId(after)[NOVA].fromLedger]).toEqual([{}, 0, true]);
  });
});

describe('a login method new in the export', () => {
  it('a social identity is added and linked to the user: it signs in as that user, and so does the password', async () => {
    const google = {
      provider: 'google-oauth2',
      user_id: 'g-olivier-1',
      connection: 'google-oauth2',
      isSocial: true,
      profileData: { email: 'olivier@shop.example', email_verified: true },
    };
    const base = v5();
    const v6 = { ...base, users: (u: any) => (u?.user_id === OLIVIER ? { ...base.users(u), identities: [...u.identities, google] } : base.users(u)) };
    const linked = await run(exportOf('v6', { ...v6, added: [newcomer()] }));
    expect(linked.code).toBe(set.exitCode);
    expect(byId(linked)[OLIVIER]).toMatchObject({ outcome: 'updated', changed: ['loginMethods[thirdparty:google:g-olivier-1]'] });
    expect(Object.entries(Object.fromEntries(proxy.counts)).filter(([k]) => !k.startsWith('GET '))).toEqual([
      ['POST /public/recipe/signinup', 1],
      ['POST /recipe/accountlinking/user/primary', 1],
      ['POST /recipe/accountlinking/user/link', 1],
    ]);
    const user = (await api.get(`/user/id?userId=${encodeURIComponent(OLIVIER)}`)).json.user;
    expect([user.isPrimaryUser, user.loginMethods.map((lm: any) => lm.recipeId).sort()]).toEqual([true, ['emailpassword', 'thirdparty']]);
    const social = await api.post('/recipe/signinup', {
      thirdPartyId: 'google',
      thirdPartyUserId: 'g-olivier-1',
      email: { id: 'olivier@shop.example', isVerified: true },
    });
    expect([social.json.status, social.json.createdNewUser, social.json.user?.id]).toEqual(['OK', false, OLIVIER]);
    const signin = await api.post('/recipe/signin', { email: 'olivier@shop.example', password: NEW_PASSWORD });
    expect([signin.json.status, signin.json.user?.id]).toEqual(['OK', OLIVIER]);
    // And the same export again: nothing to do.
    const again = await run(exportOf('v6-again', { ...v6, added: [newcomer()] }));
    expect([Object.fromEntries(proxy.counts), again.report.summary.unchanged]).toEqual([{}, again.report.summary.imported]);
  });
});

describe('secrets', () => {
  it('no hash, password or API key in the ledger, any report or on the terminal', () => {
    const hashes = readFileSync(join(AUTH0, 'password-hashes.ndjson'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).passwordHash as string);
    const passwords = JSON.parse(readFileSync(join(AUTH0, 'known-passwords.json'), 'utf8')).users.map((u: { password: string }) => u.password);
    const secrets = [...hashes, ...passwords, NEW_HASH, NEW_PASSWORD, TEST_API_KEY];
    expect(secrets.length).toBeGreaterThan(10);
    const everything = [readFileSync(join(dir, ledgerFile()[0]), 'utf8'), ...runs.map((r) => JSON.stringify(r.report ?? {}) + r.stdout + r.stderr)].join('\n');
    for (const secret of secrets) expect([secret, everything.includes(secret)]).toEqual([secret, false]);
  });
});
