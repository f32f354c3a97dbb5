import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { main } from '../../lib/migrate/cli';
import { base32Of, normalisedBase32, planSecondFactors, withoutServiceHeldPhones, type SecondFactor } from '../../lib/migrate/mfa';
import type { BulkUserInput, MapOptions, MappedUser, MfaMode, Source } from '../../lib/migrate/model';
import { SOURCES } from '../../lib/migrate/sources';
import { mapAuth0User } from '../../lib/migrate/sources/auth0';
import { djangoSource, DumpIndex } from '../../lib/migrate/sources/django';
import { firebaseSource } from '../../lib/migrate/sources/firebase';
import { mapKeycloakUser } from '../../lib/migrate/sources/keycloak';
import { phpStringArray, wordpressFactors } from '../../lib/migrate/sources/wordpress-usermeta';
import { verifyPassword } from '../../lib/password';
import { devicesAsImported, expectedDevices, MFA_SOURCES, mfaSet, neverCarried, requiredOf, secretsOf, type MfaExpectedSet } from '../support/mfa-fixtures';
import { plan } from '../support/migration';
import { scratchDir } from '../support/scratch';

/**
 * Second factors carried over by the migration command (SPEC §20 "Carrying second factors over"),
 * source by source on the fixtures of `test/fixtures/mfa/` (each user's expectations read from its
 * `expected.json`): TOTP devices, SMS factors as linked phone login methods, the required factors
 * in metadata, the warnings; `--mfa report`; the companion files; phones another user holds;
 * device names; and no secret in the report, the ledger or the terminal.
 */
const scratch = scratchDir('migrate-mfa-');
const options = (mfa: MfaMode): MapOptions => ({ tenant: 'public', noHash: 'passwordless', includeDisabled: false, mfa });

/** The companion flags of the fixtures' arguments and the names the sources take them by. */
const COMPANIONS: Readonly<Record<string, string>> = {
  '--hash-config': 'hashConfig',
  '--identities': 'identities',
  '--mfa-factors': 'mfaFactors',
  '--usermeta': 'usermeta',
};

/** A fixture's source opened as the command opens it (the registry, its companions read). */
async function openFixture(dir: string, set: MfaExpectedSet, mfa: MfaMode): Promise<Source> {
  const [name, file, ...rest] = set.args;
  const companions: Record<string, string> = {};
  for (let i = 0; i < rest.length; i += 2) companions[COMPANIONS[rest[i]]] = join(dir, rest[i + 1]);
  return SOURCES.find((s) => s.name === name)!.open(join(dir, file), options(mfa), companions);
}

const loginView = (user: BulkUserInput) =>
  user.loginMethods.map((lm) => JSON.stringify({ recipeId: lm.recipeId, email: lm.email, phoneNumber: lm.phoneNumber, verified: lm.isVerified })).sort();

describe.each(MFA_SOURCES)('the %s fixture', (source) => {
  const { dir, set } = mfaSet(source);

  it('carries every user over as expected.json says: devices, linked phones, required factors, warnings, the password', async () => {
    const { users } = await plan(await openFixture(dir, set, 'carry'));
    expect(users.map((u) => u.mapped.sourceId).sort()).toEqual(set.users.map((u) => u.sourceId).sort());
    for (const want of set.users) {
      const got = users.find((u) => u.mapped.sourceId === want.sourceId)!;
      const where = want.label;
      expect([where, got.outcome, got.mapped.createdAt]).toEqual([where, want.outcome, want.timeJoined]);
      const user = got.mapped.user!;
      const wanted = want.loginMethods
        .map((lm) => JSON.stringify({ recipeId: lm.recipeId, email: lm.email, phoneNumber: lm.phoneNumber, verified: lm.verified }))
        .sort();
      expect([where, loginView(user)]).toEqual([where, wanted]);
      // Several login methods are one primary user: the SMS factor's phone is linked to it.
      expect([where, user.loginMethods.filter((lm) => lm.isPrimary === true).length]).toEqual([where, want.loginMethods.length > 1 ? 1 : 0]);
      expect([where, user.externalUserId, devicesAsImported(user.totpDevices)]).toEqual([where, want.externalUserId, expectedDevices(want)]);
      expect([where, requiredOf(user)]).toEqual([where, want.mfa.requiredSecondaryFactors]);
      expect([where, user.userMetadata ?? {}]).toEqual([where, expect.objectContaining(want.metadata ?? {})]);
      expect([where, got.mapped.warnings.map((w) => w.code)]).toEqual([where, want.mfa.warnings]);
      const sent = JSON.stringify(user);
      for (const secret of [...neverCarried(want), ...want.mfa.devices.flatMap((d) => (d.raw ? [d.raw] : []))]) {
        expect([where, sent.includes(secret)]).toEqual([where, false]);
      }
      const hashed = user.loginMethods.find((lm) => lm.passwordHash !== undefined);
      if (want.password !== undefined) {
        expect([where, await verifyPassword(want.password, hashed!.passwordHash!, { signerKey: set.signerKey })]).toEqual([where, true]);
      }
    }
    const summary = { total: users.length, imported: 0, skipped: 0, failed: 0 };
    for (const u of users) summary[u.outcome]++;
    expect(summary).toEqual(set.summary);
  });

  it('--mfa report: the same users with warnings only (no device, no linked phone, no required factor, no secret)', async () => {
    const carried = new Map((await plan(await openFixture(dir, set, 'carry'))).users.map((u) => [u.mapped.sourceId, u.mapped]));
    const { users } = await plan(await openFixture(dir, set, 'report'));
    for (const want of set.users) {
      const { mapped } = users.find((u) => u.mapped.sourceId === want.sourceId)!;
      const where = want.label;
      const carry = carried.get(want.sourceId)!;
      const added = carry.smsFactors?.phones ?? [];
      expect([where, mapped.user!.totpDevices, requiredOf(mapped.user), mapped.smsFactors]).toEqual([where, undefined, [], undefined]);
      expect([where, mapped.user!.loginMethods.map((lm) => lm.phoneNumber).filter((p) => p !== undefined && added.includes(p))]).toEqual([where, []]);
      expect([where, mapped.user!.loginMethods.length]).toEqual([where, carry.user!.loginMethods.length - added.length]);
      // Every factor the user had is reported: one warning at least per user with one.
      const had = want.mfa.devices.length > 0 || want.mfa.requiredSecondaryFactors.length > 0;
      const reported = mapped.warnings.filter((w) => w.code === 'mfa-not-migrated').length;
      expect([where, had ? reported > 0 : reported === 0]).toEqual([where, true]);
      expect([where, mapped.warnings.filter((w) => w.code === 'recovery-codes-not-migrated').length]).toEqual([
        where,
        want.mfa.warnings.filter((w) => w === 'recovery-codes-not-migrated').length,
      ]);
      for (const secret of secretsOf(set)) expect([where, JSON.stringify(mapped).includes(secret)]).toEqual([where, false]);
    }
  });

  it.each(['carry', 'report'] as const)('a dry run with --mfa %s shows no secret in the report, on stdout or on stderr', async (mfa) => {
    const run = await runCli([...set.args, '--mfa', mfa, '--dry-run', '--offline'], dir);
    expect([run.code, run.report?.summary]).toEqual([set.exitCode, set.summary]);
    const everything = run.out + run.err + run.reportText;
    const secrets = secretsOf(set);
    // Firebase exports no TOTP secret: its fixture has none to look for.
    expect(secrets.length > 0).toBe(source !== 'firebase');
    for (const secret of secrets) expect([secret, everything.includes(secret)]).toEqual([secret, false]);
  });
});

/** `main` in this process, its output and the report it wrote. */
async function runCli(args: string[], cwd: string): Promise<{ code: number; out: string; err: string; report: any; reportText: string; reportFile: string }> {
  const reportFile = join(scratch, `report-${Math.random().toString(16).slice(2)}.json`);
  let out = '';
  let err = '';
  const code = await main([...args, '--report', reportFile], {
    env: {},
    out: (t) => (out += t),
    err: (t) => (err += t),
    cwd,
    tty: false,
    signal: new AbortController().signal,
  });
  const reportText = existsSync(reportFile) ? readFileSync(reportFile, 'utf8') : '';
  return { code, out, err, report: reportText ? JSON.parse(reportText) : undefined, reportText, reportFile };
}

describe('the companion files', () => {
  const supabase = mfaSet('supabase').dir;
  const wordpress = mfaSet('wordpress').dir;

  it.each([
    [
      'clerk',
      ['clerk', join(mfaSet('clerk').dir, 'clerk-users.csv'), '--mfa-factors', join(supabase, 'mfa_factors.csv')],
      '--mfa-factors does not apply to clerk: it is for supabase.',
    ],
    [
      'supabase',
      ['supabase', join(supabase, 'users.csv'), '--usermeta', join(wordpress, 'wp_usermeta.csv')],
      '--usermeta does not apply to supabase: it is for wordpress.',
    ],
    [
      'keycloak',
      ['keycloak', join(mfaSet('keycloak').dir, 'realm-export'), '--usermeta', join(wordpress, 'wp_usermeta.csv')],
      '--usermeta does not apply to keycloak: it is for wordpress.',
    ],
  ])('with another source (%s): exit 2, one sentence, nothing written', async (_source, args, message) => {
    const run = await runCli([...args, '--dry-run', '--offline'], scratch);
    expect([run.code, run.err, run.out, run.reportText]).toEqual([2, `error: ${message}\n`, '', '']);
  });

  it.each([
    ['supabase', 'users.csv', '--mfa-factors', 'missing.csv', (f: string) => `cannot read --mfa-factors ${f}: ENOENT.`],
    ['wordpress', 'wp_users.csv', '--usermeta', 'missing.csv', (f: string) => `cannot read --usermeta ${f}: ENOENT.`],
    [
      'supabase',
      'users.csv',
      '--mfa-factors',
      'users.csv',
      (f: string) =>
        `${f} is not an auth.mfa_factors export (psql CSV with header, a json_agg array or row_to_json lines): its header row has no column user_id, friendly_name, factor_type, status, secret (export it with "csv header").`,
    ],
    [
      'wordpress',
      'wp_users.csv',
      '--usermeta',
      'wp_users.csv',
      (f: string) =>
        `${f} is not a wp_usermeta export (CSV with a header row: umeta_id,user_id,meta_key,meta_value): its header row has no column user_id, meta_key, meta_value (export it with "csv header").`,
    ],
  ])('%s %s %s %s, unreadable or of the wrong shape: exit 2 naming the file, with --dry-run too', async (source, file, flag, companion, message) => {
    const { dir } = mfaSet(source);
    for (const dry of [
      ['--dry-run', '--offline'],
      ['--url', 'http://127.0.0.1:9'],
    ]) {
      // A relative path is the operator's: from where the command runs.
      const run = await runCli([source, file, flag, companion, ...dry], dir);
      expect([run.code, run.err, run.reportText]).toEqual([2, `error: ${message(join(dir, companion))}\n`, '']);
    }
  });

  it('a users file with --mfa-factors and one without, --mfa carry or report: one ledger, found by source, service and tenant', async () => {
    const { dir, set } = mfaSet('supabase');
    const ledgers = new Set<string>();
    for (const extra of [[], ['--mfa', 'report']]) {
      for (const args of [set.args, set.args.slice(0, 4)]) {
        const run = await runCli([...args, ...extra, '--dry-run', '--offline'], dir);
        ledgers.add(run.report.ledger);
      }
    }
    expect(ledgers.size).toBe(1);
  });
});

describe('phones other users hold', () => {
  const account = (localId: string, fields: Record<string, unknown>) => ({ localId, createdAt: '1600000000000', emailVerified: true, ...fields });
  const sms = (phone: string, displayName = 'phone') => ({ mfaEnrollmentId: `e${phone}`, displayName, phoneInfo: phone, enrolledAt: '2021-01-01T00:00:00Z' });

  it("an SMS factor on another user's sign-in phone, or on another user's factor, is not carried: mfa-not-migrated naming that user; every user is imported", async () => {
    const file = join(scratch, 'phones.json');
    writeFileSync(
      file,
      JSON.stringify({
        users: [
          account('ann', { email: 'ann@ph.example', mfaInfo: [sms('+14155550100')] }),
          account('bob', { phoneNumber: '+14155550100' }),
          account('cat', { email: 'cat@ph.example', mfaInfo: [sms('+14155550111'), sms('+14155550122')] }),
          account('dan', { email: 'dan@ph.example', mfaInfo: [sms('+14155550111')] }),
        ],
      }),
    );
    const { users, index } = await plan(firebaseSource(file, { opts: options('carry') }));
    const by = new Map(users.map((u) => [u.mapped.sourceId, u]));
    const view = (id: string) => {
      const { outcome, mapped } = by.get(id)!;
      const mfa = mapped.warnings.filter((w) => w.code === 'mfa-not-migrated').map((w) => w.text);
      return [outcome, mapped.user!.loginMethods.map((lm) => lm.email ?? lm.phoneNumber), requiredOf(mapped.user), mfa];
    };
    const lost = (phone: string, who: string) => `the SMS second factor ${phone} is not migrated: that phone number belongs to ${who} of the export`;
    expect(view('ann')).toEqual(['imported', ['ann@ph.example'], [], [lost('+14155550100', 'user bob')]]);
    expect(view('bob')).toEqual(['imported', ['+14155550100'], [], []]);
    expect(view('cat')).toEqual(['imported', ['cat@ph.example', '+14155550122'], ['otp-phone'], [lost('+14155550111', 'user dan')]]);
    expect(view('dan')).toEqual(['imported', ['dan@ph.example'], [], [lost('+14155550111', 'user cat')]]);
    // A single login method left is no primary user; the phones are no collision.
    expect(by.get('ann')!.mapped.user!.loginMethods[0].isPrimary).toBeUndefined();
    expect(index.collisions()).toEqual([]);
  });

  it('a phone a user of the service holds is not carried; one the same user holds (a re-run) is', async () => {
    const file = join(scratch, 'one.json');
    writeFileSync(file, JSON.stringify({ users: [account('eve', { email: 'eve@ph.example', mfaInfo: [sms('+14155550133'), sms('+14155550144')] })] }));
    const { users } = await plan(firebaseSource(file, { opts: options('carry') }));
    const holders: Record<string, string[]> = { '+14155550133': ['svc-7'], '+14155550144': ['eve'] };
    const settled: MappedUser = await withoutServiceHeldPhones(users[0].mapped, async (phone) => holders[phone] ?? []);
    expect(settled.user!.loginMethods.map((lm) => lm.email ?? lm.phoneNumber)).toEqual(['eve@ph.example', '+14155550144']);
    expect([requiredOf(settled.user), settled.warnings.filter((w) => w.code === 'mfa-not-migrated').map((w) => w.text)]).toEqual([
      ['otp-phone'],
      ['the SMS second factor +14155550133 is not migrated: that phone number belongs to user svc-7 of the service'],
    ]);
  });
});

describe('sources without a fixture of their own', () => {
  it('auth0: a multifactor enrolment exports no secret: mfa-not-migrated naming it, totp required; --mfa report only warns', () => {
    const raw = {
      user_id: 'email|1',
      email: 'al@a0.example',
      identities: [{ provider: 'email', user_id: '1' }],
      multifactor: ['guardian', 'google-authenticator'],
    };
    const m = mapAuth0User(raw, { opts: options('carry') });
    expect([m.warnings.map((w) => w.code), requiredOf(m.user)]).toEqual([['mfa-not-migrated'], ['totp']]);
    expect(m.warnings[0].text).toBe(
      'the Auth0 MFA (multifactor "guardian", "google-authenticator") is not migrated: Auth0 exports no MFA secret; the user sets up an authenticator app again at the next sign-in (totp stays required)',
    );
    const reported = mapAuth0User(raw, { opts: options('report') });
    expect([reported.warnings.map((w) => w.code), requiredOf(reported.user)]).toEqual([['mfa-not-migrated'], []]);
    expect(mapAuth0User({ ...raw, multifactor: [] }, { opts: options('carry') }).warnings).toEqual([]);
  });
});

describe('django devices the fixture does not hold', () => {
  it('t0 ≠ 0, HOTP and voice-call devices are reported; a device named by username (--natural-foreign) is joined too', async () => {
    const user = (pk: number, username: string) => ({
      model: 'auth.user',
      pk,
      fields: { username, password: '', email: `${username}@dj.example`, is_active: true, date_joined: '2022-01-01T00:00:00Z', groups: [] },
    });
    const device = (model: string, owner: unknown, fields: Record<string, unknown>) => ({
      model,
      pk: 1,
      fields: { user: owner, name: 'd', confirmed: true, ...fields },
    });
    const totp = { key: '3132333435363738393031323334353637383930', step: 30, t0: 0, digits: 6, tolerance: 1, drift: 0 };
    const dump = join(scratch, 'otp.json');
    writeFileSync(
      dump,
      JSON.stringify([
        user(1, 'ada'),
        user(2, 'bea'),
        user(3, 'cy'),
        device('otp_totp.totpdevice', 1, { ...totp, t0: 60 }),
        device('otp_hotp.hotpdevice', 2, { key: totp.key, digits: 6, counter: 3 }),
        device('two_factor.phonedevice', 2, { number: '+14155550170', method: 'call', key: totp.key }),
        device('otp_totp.totpdevice', ['cy'], totp),
        device('otp_email.emaildevice', 3, { email: null }),
      ]),
    );
    const index = await DumpIndex.read(dump);
    const { users } = await plan(djangoSource(dump, { opts: options('carry'), index }));
    const view = (pk: string) => {
      const m = users.find((u) => u.mapped.sourceId === pk)!.mapped;
      return [m.user!.totpDevices ?? [], requiredOf(m.user), m.warnings.filter((w) => w.code === 'mfa-not-migrated').map((w) => w.text.split(':')[1])];
    };
    expect(view('1')).toEqual([
      [],
      ['totp'],
      [' its t0 is not 0, and the service counts time steps from 0; the user sets up an authenticator app again at the next sign-in (totp stays required)'],
    ]);
    expect(view('2')).toEqual([
      [],
      ['totp'],
      [
        ' it is counter-based, and the service checks time-based codes only; the user sets up an authenticator app again at the next sign-in (totp stays required)',
        ' only SMS phone devices are carried',
      ],
    ]);
    // RFC 6238's SHA-1 seed, as django-otp keeps it (hex).
    expect(view('3')).toEqual([[{ secretKey: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', deviceName: 'd', period: 30, skew: 1 }], ['totp'], []]);
    expect(index.ignored).toEqual(new Map([['otp_email.emaildevice', 1]]));
  });
});

describe("WordPress's Two Factor meta", () => {
  it('reads a PHP-serialized list of provider names by its byte counts, and nothing else', () => {
    expect(phpStringArray('a:2:{i:0;s:15:"Two_Factor_Totp";i:1;s:16:"Two_Factor_Email";}')).toEqual(['Two_Factor_Totp', 'Two_Factor_Email']);
    expect(phpStringArray('a:1:{s:3:"key";s:5:"Ünï";}')).toEqual(['Ünï']);
    expect(phpStringArray('a:0:{}')).toEqual([]);
    for (const bad of [
      'a:2:{i:0;s:15:"Two_Factor_Totp";}',
      'a:1:{i:0;s:14:"Two_Factor_Totp";}',
      'a:1:{i:0;i:5;}',
      's:3:"abc";',
      'Two_Factor_Totp',
      'a:1:{i:0;s:15:"Two_Factor_Totp";}x',
    ]) {
      expect([bad, phpStringArray(bad)]).toEqual([bad, undefined]);
    }
  });

  it('a provider list that cannot be read is mfa-not-migrated; U2F is reported; the Dummy provider is no factor', () => {
    expect(wordpressFactors({ totpKey: 'JBSWY3DPEHPK3PXP', providers: null }).map((f) => f.kind)).toEqual(['lost']);
    expect(wordpressFactors({ providers: ['Two_Factor_FIDO_U2F', 'Two_Factor_Dummy', 'Two_Factor_Totp'] })).toEqual([
      { kind: 'lost', what: 'the Two Factor provider Two_Factor_FIDO_U2F', why: 'only Two_Factor_Totp and Two_Factor_Email are carried' },
      { kind: 'lost', what: 'the Two Factor provider Two_Factor_Totp', why: 'the user has no _two_factor_totp_key', authenticator: true },
    ]);
    expect(wordpressFactors({ totpKey: 'JBSWY3DPEHPK3PXP' })).toEqual([]);
  });
});

describe('device names and secrets', () => {
  const totp = (name: string | undefined, secret = 'JBSWY3DPEHPK3PXP'): SecondFactor => ({
    kind: 'totp',
    what: 'a device',
    ...(name !== undefined ? { name } : {}),
    secret,
    period: 30,
    skew: 1,
  });

  it('keeps the source name, trimmed, made unique per user with (2), (3)…; a blank name is left to the service', () => {
    const plan = planSecondFactors(
      [totp('Phone'), totp(' Phone '), totp('Phone (2)'), totp('  '), totp('Phone'), totp(undefined)],
      options('carry'),
      new Set(),
    );
    expect(plan.totpDevices.map((d) => d.deviceName)).toEqual(['Phone', 'Phone (2)', 'Phone (2) (2)', undefined, 'Phone (3)', undefined]);
    expect(plan.required).toEqual(['totp']);
    const long = planSecondFactors([totp('x'.repeat(300)), totp('x'.repeat(300))], options('carry'), new Set());
    expect(long.totpDevices.map((d) => [d.deviceName!.length, d.deviceName!.slice(-4)])).toEqual([
      [256, 'xxxx'],
      [256, ' (2)'],
    ]);
  });

  it('two Keycloak credentials of one label become two devices', () => {
    const otp = (value: string) => ({
      type: 'otp',
      userLabel: 'iPhone',
      secretData: JSON.stringify({ value }),
      credentialData: JSON.stringify({ subType: 'totp', digits: 6, period: 30, algorithm: 'HmacSHA1' }),
    });
    const m = mapKeycloakUser(
      { id: 'k', email: 'k@kc.example', credentials: [otp('aaaaaaaaaaaaaaaaaaaa'), otp('bbbbbbbbbbbbbbbbbbbb')] },
      { opts: options('carry') },
      'users[0]',
    );
    expect(m.user!.totpDevices!.map((d) => [d.deviceName, d.secretKey])).toEqual([
      ['iPhone', base32Of(Buffer.from('aaaaaaaaaaaaaaaaaaaa'))],
      ['iPhone (2)', base32Of(Buffer.from('bbbbbbbbbbbbbbbbbbbb'))],
    ]);
  });

  it('base32 is RFC 4648 (its vectors), upper-case and unpadded; normalising drops spaces and = and refuses what no bytes make', () => {
    const vectors = ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar'].map((t) => base32Of(Buffer.from(t)));
    expect(vectors).toEqual(['', 'MY', 'MZXQ', 'MZXW6', 'MZXW6YQ', 'MZXW6YTB', 'MZXW6YTBOI']);
    expect(base32Of(Buffer.from('12345678901234567890'))).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(['mzxw 6ytb oi======', 'MZXW6YTBOI', 'mzxw6']).toEqual(['mzxw 6ytb oi======', 'MZXW6YTBOI', 'mzxw6'].map((s) => (normalisedBase32(s) ? s : '')));
    expect(['mzxw 6ytb oi======', 'mzxw6'].map(normalisedBase32)).toEqual(['MZXW6YTBOI', 'MZXW6']);
    expect(['MZXW1', 'M', 'MZX', 'MZXW6Y', '', 'MZ-XW'].map(normalisedBase32)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });
});

/**
 * A stand-in for the service's HTTP interface, enough for a real run (the service itself takes no
 * `totpDevices` yet): it stages what it is sent, imports it at once, and answers the look-ups the
 * command makes. It keeps every body it received.
 */
async function fakeService(opts: { users: number; phoneHolders: Record<string, string[]> }) {
  const staged: BulkUserInput[][] = [];
  const lookups: string[] = [];
  const body = async (req: IncomingMessage) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    return text === '' ? undefined : JSON.parse(text);
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    const json = (value: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /recipe/multitenancy/tenant/list/v2') return json({ status: 'OK', tenants: [{ tenantId: 'public' }] });
    if (route === 'GET /recipe/roles') return json({ status: 'OK', roles: [] });
    if (route === 'GET /public/users/count') return json({ status: 'OK', count: opts.users });
    if (route === 'GET /public/users/by-accountinfo') {
      const phone = url.searchParams.get('phoneNumber')!;
      lookups.push(phone);
      return json({ status: 'OK', users: (opts.phoneHolders[phone] ?? []).map((id) => ({ id })) });
    }
    if (route === 'GET /bulk-import/users/count') return json({ status: 'OK', count: 0 });
    if (route === 'GET /bulk-import/users') return json({ status: 'OK', users: [] });
    if (route === 'POST /bulk-import/users') {
      const { users } = (await body(req)) as { users: BulkUserInput[] };
      staged.push(users);
      return json({
        status: 'OK',
        users: users.map((u) => ({ userId: u.externalUserId, loginMethods: u.loginMethods.map((_, i) => ({ userId: `${u.externalUserId}-${i}` })) })),
      });
    }
    res.writeHead(404);
    res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return { url, staged, lookups, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('a real run', () => {
  it('the devices go to the service and nowhere else: the report, the ledger, stdout and stderr hold no secret (every fixture with one)', async () => {
    // One run per fixture, side by side: each waits a poll of the staged rows.
    const service = await fakeService({ users: 0, phoneHolders: {} });
    try {
      await Promise.all(
        MFA_SOURCES.filter((s) => s !== 'firebase').map(async (source) => {
          const { dir, set } = mfaSet(source);
          const run = await runCli([...set.args, '--url', service.url, '--api-key', 'k'], dir);
          expect([source, run.code, run.report.summary]).toEqual([source, set.exitCode, set.summary]);
          const sent = new Map(service.staged.flat().map((u) => [u.externalUserId, u]));
          for (const want of set.users)
            expect([want.label, devicesAsImported(sent.get(want.sourceId)!.totpDevices)]).toEqual([want.label, expectedDevices(want)]);
          const ledger = readFileSync(run.report.ledger as string, 'utf8');
          expect([source, ledger.trim().split('\n').length]).toEqual([source, set.users.length]);
          const everything = [run.out, run.err, run.reportText, ledger].join('\n');
          for (const secret of secretsOf(set)) expect([source, secret, everything.includes(secret)]).toEqual([source, secret, false]);
        }),
      );
      // An empty service: no phone is looked up.
      expect(service.lookups).toEqual([]);
    } finally {
      await service.close();
    }
  });

  it("a phone a user of the service holds stays that user's: mfa-not-migrated naming it", async () => {
    const { dir, set } = mfaSet('firebase');
    const f1 = set.users.find((u) => u.label === 'f1')!;
    const phone = f1.loginMethods.find((lm) => lm.phoneNumber !== undefined)!.phoneNumber!;
    const service = await fakeService({ users: 3, phoneHolders: { [phone]: ['someone-else'] } });
    try {
      const run = await runCli([...set.args, '--url', service.url, '--api-key', 'k'], dir);
      expect([run.code, run.report.summary]).toEqual([set.exitCode, set.summary]);
      // The service held users when the run began: every SMS factor's phone was looked up.
      const added = set.users.flatMap((u) => (u.label === 'f4' ? [] : u.loginMethods.flatMap((lm) => (lm.phoneNumber ? [lm.phoneNumber] : []))));
      expect(service.lookups.sort()).toEqual(added.sort());
      const sent = service.staged.flat().find((u) => u.externalUserId === f1.sourceId)!;
      expect([sent.loginMethods.map((lm) => lm.phoneNumber ?? lm.email), sent.userMetadata]).toEqual([[f1.loginMethods[0].email], undefined]);
      expect(run.report.users.find((u: any) => u.sourceId === f1.sourceId).warnings).toEqual([
        { code: 'mfa-not-migrated', text: `the SMS second factor ${phone} is not migrated: that phone number belongs to user someone-else of the service` },
      ]);
    } finally {
      await service.close();
    }
  });
});
