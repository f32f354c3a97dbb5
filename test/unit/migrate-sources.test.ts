import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { verifyPassword } from '../../lib/password';
import { parseHashConfig, readHashConfig } from '../../lib/migrate/hash-config';
import { standardBase64 } from '../../lib/migrate/mapping';
import type { MapOptions, NoHashMode, Source } from '../../lib/migrate/model';
import { auth0Source, HashIndex, mapAuth0User } from '../../lib/migrate/sources/auth0';
import { firebaseSource, mapFirebaseUser, type FirebaseRecord } from '../../lib/migrate/sources/firebase';
import { mapSupabaseUser, readIdentities, supabaseSource, type IdentityIndex } from '../../lib/migrate/sources/supabase';
import { timestampOf } from '../../lib/migrate/mapping';
import { supertokensSource } from '../../lib/migrate/sources/supertokens';
import { UsageError } from '../../lib/migrate/errors';
import { expectedSet, loginMethodView, MIGRATION_FIXTURES, plan, withoutCarriedFactors, type ExpectedUser } from '../support/migration';
import { psqlCsv } from '../support/psql-csv';
import { scratchDir } from '../support/scratch';

/**
 * The migration command's sources (SPEC §17) against the fixtures made with the real exporters:
 * every user of every file, under the default options and under each option that changes it,
 * must come out as `expected.json` says (written independently of the command); every password
 * must verify against the hash the mapping built.
 */
const FIREBASE = join(MIGRATION_FIXTURES, 'firebase');
const EMULATOR = join(MIGRATION_FIXTURES, '..', 'firebase-emulator');
const AUTH0 = join(MIGRATION_FIXTURES, 'auth0');
const scratch = scratchDir('migrate-sources-');

type Variant = { name: string; opts: Partial<MapOptions>; duplicates?: 'oldest' };
const VARIANTS: Variant[] = [
  { name: 'default', opts: {} },
  { name: '--include-disabled', opts: { includeDisabled: true } },
  { name: '--duplicates oldest', opts: {}, duplicates: 'oldest' },
  { name: '--no-hash migrate-on-signin', opts: { noHash: 'migrate-on-signin' as NoHashMode } },
  { name: '--no-hash skip', opts: { noHash: 'skip' as NoHashMode } },
  { name: '--mfa report', opts: { mfa: 'report' } },
];
const mapOptions = (v: Variant): MapOptions => ({ tenant: 'public', noHash: 'passwordless', includeDisabled: false, ...v.opts });

/** The expectation of one user under one variant: the default, overridden by `withOptions`. */
function expectationOf(given: ExpectedUser, variant: string, format: string): ExpectedUser {
  if (format === 'csv' && given.csvOutcome)
    return { ...given, outcome: given.csvOutcome, reasonCode: given.csvReasonCode, needsAction: true, password: undefined };
  // The CSV export has no column for second factors: carrying them over is reporting none.
  const user = variant === '--mfa report' || format === 'csv' ? withoutCarriedFactors(given) : given;
  const override = variant === 'default' || variant === '--mfa report' ? undefined : user.withOptions?.[variant];
  if (!override) return user;
  // An option's expectation replaces the outcome, its reason and what the service holds.
  const replaced = { ...user, reasonCode: undefined, needsAction: undefined, password: undefined, ...override };
  return override.outcome === 'imported' && override.password === undefined ? { ...replaced, password: user.password } : replaced;
}

async function checkSet(makeSource: (opts: MapOptions) => Source, expectedFolder: string, format: string): Promise<void> {
  const expected = expectedSet(expectedFolder);
  const signerKey = expected.service?.vendor_password_hashing_signer_key;
  for (const variant of VARIANTS) {
    const { users, index } = await plan(makeSource(mapOptions(variant)), variant.duplicates);
    expect(users.map((u) => u.mapped.sourceId).sort()).toEqual(expected.users.map((u) => u.sourceId).sort());
    for (const want of expected.users.map((u) => expectationOf(u, variant.name, format))) {
      const got = users.find((u) => u.mapped.sourceId === want.sourceId)!;
      const where = `${format} ${variant.name} ${want.label}`;
      expect([where, got.outcome, got.reasonCode]).toEqual([where, want.outcome, want.reasonCode]);
      if (want.outcome !== 'imported' && got.reasonCode === 'malformed-csv-row') continue;
      expect([where, got.mapped.createdAt]).toEqual([where, want.timeJoined]);
      if (want.outcome !== 'imported') continue;
      const methods = got.mapped.user!.loginMethods;
      expect([where, methods.map((lm) => loginMethodView(lm, methods.length > 1))]).toEqual([where, want.loginMethods]);
      for (const lm of methods) expect([where, lm.tenantIds, lm.timeJoinedInMSSinceEpoch]).toEqual([where, ['public'], want.timeJoined]);
      expect([where, got.mapped.user!.externalUserId]).toEqual([where, want.sourceId]);
      expect([where, got.mapped.user!.userMetadata]).toEqual([where, want.metadata]);
      expect([where, got.mapped.user!.userRoles?.map((r) => r.role)]).toEqual([where, want.roles]);
      // Passwords are checked once per file (scrypt is slow), and again where an option imports more.
      const newPassword = variant.name !== 'default' && want.withOptions?.[variant.name]?.password !== undefined;
      if (want.password !== undefined && (variant.name === 'default' || newPassword)) {
        const hashed = methods.find((lm) => lm.passwordHash !== undefined)!;
        expect([where, await verifyPassword(want.password, hashed.passwordHash!, { signerKey })]).toEqual([where, true]);
        expect(await verifyPassword(`${want.password}x`, hashed.passwordHash!, { signerKey })).toBe(false);
      }
      if (variant.name === 'default' || variant.name === '--mfa report') {
        const warnings = (want.warnings ?? []).filter((w) => !w.formats || w.formats.includes(format)).map((w) => w.code);
        expect([where, got.mapped.warnings.map((w) => w.code)]).toEqual([where, warnings]);
      }
    }
    if (variant.name === 'default') {
      const summary = { total: users.length, imported: 0, skipped: 0, failed: 0 };
      for (const u of users) summary[u.outcome]++;
      expect(summary).toEqual(format === 'csv' ? (expected.csvSummary ?? expected.summary) : expected.summary);
      expect(users.some((u) => u.needsAction) ? 1 : 0).toBe(format === 'csv' ? (expected.csvExitCode ?? expected.exitCode) : expected.exitCode);
      expect(index.collisions()).toEqual(expected.collisions);
    }
  }
}

describe('the Firebase source against the fixtures of the real auth:export', () => {
  const hashConfig = readHashConfig(join(FIREBASE, 'hash-config.txt'));

  it.each([
    ['users.json', 'json'],
    ['users.csv', 'csv'],
    ['users.urlsafe.json', 'json'],
  ])('%s: every user, every option, every password', async (file, format) => {
    await checkSet((opts) => firebaseSource(join(FIREBASE, file), { opts, hashConfig }), FIREBASE, format);
  });

  it('reads a JSON export whose name says nothing, and a CSV export named .txt', async () => {
    const json = join(scratch, 'export-no-extension');
    const csv = join(scratch, 'export.txt');
    copyFileSync(join(FIREBASE, 'users.json'), json);
    copyFileSync(join(FIREBASE, 'users.csv'), csv);
    for (const file of [json, csv]) {
      const { users } = await plan(firebaseSource(file, { opts: mapOptions(VARIANTS[0]), hashConfig }));
      expect(users.filter((u) => u.outcome === 'imported')).toHaveLength(12);
    }
  });

  it('the console text and the JSON hash config are the same parameters', () => {
    expect(readHashConfig(join(FIREBASE, 'hash-config.json'))).toEqual(hashConfig);
    expect(hashConfig).toEqual({ signerKey: expect.stringMatching(/^jxspr8Ki/), saltSeparator: 'Bw==', rounds: 8, memCost: 14 });
    expect(parseHashConfig('{"hash_config":{"algorithm":"SCRYPT","base64_signer_key":"AAAA","base64_salt_separator":"Bw","rounds":8,"mem_cost":14}}')).toEqual({
      signerKey: 'AAAA',
      saltSeparator: 'Bw==',
      rounds: 8,
      memCost: 14,
    });
  });

  it.each([
    ['hash_config { algorithm: SCRYPT, base64_signer_key: AAAA, rounds: 8, mem_cost: 14 }', 'has no base64_salt_separator'],
    ['hash_config { algorithm: HMAC_SHA256, base64_signer_key: AAAA, base64_salt_separator: Bw==, rounds: 8, mem_cost: 14 }', 'says algorithm HMAC_SHA256'],
    [
      'hash_config { algorithm: SCRYPT, base64_signer_key: A*AA, base64_salt_separator: Bw==, rounds: 8, mem_cost: 14 }',
      'base64_signer_key in cfg is not base64',
    ],
    [
      'hash_config { algorithm: SCRYPT, base64_signer_key: AAAA, base64_salt_separator: Bw==, rounds: 9, mem_cost: 14 }',
      'rounds in cfg must be an integer from 1 to 8',
    ],
    [
      'hash_config { algorithm: SCRYPT, base64_signer_key: AAAA, base64_salt_separator: Bw==, rounds: 8, mem_cost: 15 }',
      'mem_cost in cfg must be an integer from 1 to 14',
    ],
    ['{"algorithm": "SCRYPT",', 'cfg is not valid JSON'],
  ])('a hash config that is not one is a usage error: %s', (text, message) => {
    expect(() => parseHashConfig(text, 'cfg')).toThrow(UsageError);
    expect(() => parseHashConfig(text, 'cfg')).toThrow(message);
  });

  it('a password hash without --hash-config is a usage error, raised while reading (before anything is written)', async () => {
    await expect(plan(firebaseSource(join(FIREBASE, 'users.json'), { opts: mapOptions(VARIANTS[0]) }))).rejects.toThrow('--hash-config <file> is required');
  });

  describe('records the fixtures do not hold', () => {
    const hashConfig2 = { signerKey: 'AAAA', saltSeparator: 'Bw==', rounds: 8, memCost: 14 };
    const base: FirebaseRecord = {
      localId: 'u1',
      email: 'A@Example.com',
      emailVerified: true,
      createdAt: '1600000000000',
      disabled: false,
      providers: [],
      mfaInfo: [],
    };
    const map = (rec: Partial<FirebaseRecord>, opts: Partial<MapOptions> = {}) =>
      mapFirebaseUser({ ...base, ...rec }, { opts: { ...mapOptions(VARIANTS[0]), ...opts }, hashConfig: hashConfig2 });

    it('a hash that is base64 in neither alphabet fails the user (it would import and never sign in)', () => {
      for (const passwordHash of ['abc$def', 'ab+c_d==', 'abcde', 'ab=c']) {
        expect(map({ passwordHash, salt: 'c2FsdA==' }).notImported).toMatchObject({ outcome: 'failed', code: 'bad-password-hash', needsAction: true });
      }
      expect(map({ passwordHash: 'aGFzaA==', salt: 'sa*t' }).notImported?.reason).toBe('salt is not base64 (standard or url-safe)');
      expect(map({ passwordHash: 'aGFzaA==' }).notImported?.reason).toBe('passwordHash has no salt');
    });

    it('url-safe base64 without padding becomes standard base64 with padding', () => {
      expect(standardBase64('-_8')).toBe('+/8=');
      expect(standardBase64('+/8=')).toBe('+/8=');
      expect(standardBase64('+/8==')).toBeUndefined();
      expect(map({ passwordHash: 'a-_b', salt: 'c2Fsd_' }).user?.loginMethods[0].passwordHash).toBe('$f_scrypt$a+/b$c2Fsd/==$m=14$r=8$s=Bw==');
    });

    it('custom claims that are not a JSON object fail the user: the claims would be lost', () => {
      expect(map({ customAttributes: '{"a":1' }).notImported).toMatchObject({ outcome: 'failed', code: 'bad-custom-claims' });
      expect(map({ customAttributes: '[1]' }).notImported).toMatchObject({ outcome: 'failed', code: 'bad-custom-claims' });
    });

    it('an OIDC-only user is reported, an OIDC identity beside a password is dropped with a warning', () => {
      const oidcOnly = map({ email: undefined, providers: [{ providerId: 'oidc.acme', rawId: 'x1', email: 'a@example.com' }] });
      expect(oidcOnly.notImported).toMatchObject({ outcome: 'skipped', code: 'unsupported-provider' });
      const both = map({ passwordHash: 'aGFzaA==', salt: 'c2FsdA==', providers: [{ providerId: 'saml.corp', rawId: 'x1' }] });
      expect(both.user?.loginMethods.map((m) => m.recipeId)).toEqual(['emailpassword']);
      expect(both.warnings.map((w) => w.code)).toEqual(['unsupported-provider']);
    });

    it('a social identity with no email anywhere is dropped with a warning; the other login methods stay', () => {
      const m = map({ email: undefined, phoneNumber: '+1 650-555-0142', providers: [{ providerId: 'github.com', rawId: '42' }] });
      expect(m.user?.loginMethods).toEqual([expect.objectContaining({ recipeId: 'passwordless', phoneNumber: '+16505550142' })]);
      expect(m.warnings.map((w) => w.code)).toEqual(['identity-without-email']);
    });

    it('the password and phone entries of providerUserInfo (Admin SDK dumps) are not social identities', () => {
      const m = map({
        passwordHash: 'aGFzaA==',
        salt: 'c2FsdA==',
        providers: [
          { providerId: 'password', rawId: 'a@example.com' },
          { providerId: 'phone', rawId: '+16505550142' },
        ],
      });
      expect(m.user?.loginMethods.map((lm) => lm.recipeId)).toEqual(['emailpassword']);
    });

    it('an email and a phone with no password: one passwordless login method holds both', () => {
      const m = map({ phoneNumber: '+16505550142' });
      expect(m.user?.loginMethods).toEqual([
        expect.objectContaining({ recipeId: 'passwordless', email: 'a@example.com', phoneNumber: '+16505550142', isVerified: true }),
      ]);
    });

    it('a createdAt that is not ms is a warning, and timeJoined is left to the service', () => {
      const m = map({ createdAt: 'yesterday' });
      expect(m.createdAt).toBeUndefined();
      expect(m.user?.loginMethods[0].timeJoinedInMSSinceEpoch).toBeUndefined();
      expect(m.warnings.map((w) => w.code)).toEqual(['bad-created-at', 'no-password-hash']);
    });
  });

  it('a CSV record of the wrong width fails alone, by its localId; a file with no readable record is not an export', async () => {
    const file = join(scratch, 'short.csv');
    const lines = readFileSync(join(FIREBASE, 'users.csv'), 'utf8').split('\n');
    writeFileSync(file, [lines[0], 'abc,def,true,,,', lines[1], ''].join('\n'));
    const { users } = await plan(firebaseSource(file, { opts: mapOptions(VARIANTS[0]), hashConfig }));
    expect(users.map((u) => [u.mapped.sourceId, u.outcome, u.reasonCode])).toEqual([
      ['0VlyvQ5dpqPlowVt9VkZaaVhoYz2', 'imported', undefined],
      ['abc', 'failed', 'malformed-csv-row'],
      ['7jp1aHJzJBlYWqKr589grIQOHYFT', 'imported', undefined],
    ]);
    const garbage = join(scratch, 'garbage.csv');
    writeFileSync(garbage, 'name,email\nann,ann@example.com\n');
    await expect(plan(firebaseSource(garbage, { opts: mapOptions(VARIANTS[0]), hashConfig }))).rejects.toThrow('is not an auth:export CSV file');
  });

  it('reads CSV with a byte-order mark and CRLF line ends, and the 28-cell records of older firebase-tools', async () => {
    const lines = readFileSync(join(FIREBASE, 'users.csv'), 'utf8').trimEnd().split('\n');
    const crlf = join(scratch, 'crlf.csv');
    writeFileSync(crlf, '\ufeff' + lines.join('\r\n') + '\r\n');
    const { users } = await plan(firebaseSource(crlf, { opts: mapOptions(VARIANTS[0]), hashConfig }));
    expect(users.filter((u) => u.outcome === 'imported')).toHaveLength(12);
    expect(users[0].mapped.sourceId).toBe('0VlyvQ5dpqPlowVt9VkZaaVhoYz2');
    // Before apple.com and the rest had columns, a record was 28 cells and the trailing comma.
    const old = join(scratch, 'old.csv');
    writeFileSync(
      old,
      lines
        .map((l) => l.split(',').slice(0, 28).join(',') + ',')
        .filter((l) => !l.includes('"'))
        .join('\n') + '\n',
    );
    const oldUsers = (await plan(firebaseSource(old, { opts: mapOptions(VARIANTS[0]), hashConfig }))).users;
    expect(oldUsers.length).toBeGreaterThan(10);
    expect(oldUsers.every((u) => u.reasonCode !== 'malformed-csv-row')).toBe(true);
    expect(oldUsers.find((u) => u.mapped.sourceId === '0VlyvQ5dpqPlowVt9VkZaaVhoYz2')?.mapped.user?.loginMethods[0]).toMatchObject({ thirdPartyId: 'google' });
  });

  it('a JSON file that is not an export is a usage error', async () => {
    const file = join(scratch, 'broken.json');
    writeFileSync(file, '{"users": [{"localId": "a"},');
    await expect(plan(firebaseSource(file, { opts: mapOptions(VARIANTS[0]), hashConfig }))).rejects.toThrow(UsageError);
  });

  it.each([
    ['{}', 'it has no top-level "users" array (no key at all).'],
    ['[{"localId":"a"}]', 'it is a JSON array, not {"users":[…]}.'],
    ['"users"', 'it is not a JSON object, not {"users":[…]}.'],
    ['{"users":{"localId":"a"}}', 'its "users" is not an array.'],
    ['{"kind":"x","a":1,"b":2,"c":3,"d":4,"e":5}', 'it has no top-level "users" array (only kind, a, b, c, d, …).'],
    [
      JSON.stringify({ hash_config: { algorithm: 'SCRYPT' } }),
      'it has no top-level "users" array (only hash_config): that is the password hash config, give it with --hash-config.',
    ],
  ])('%s is no auth:export file, said in one sentence', async (json, sentence) => {
    const file = join(scratch, 'not-an-export.json');
    writeFileSync(file, json);
    await expect(plan(firebaseSource(file, { opts: mapOptions(VARIANTS[0]), hashConfig }))).rejects.toThrow(
      new UsageError(`${file} is not an auth:export JSON file: ${sentence}`),
    );
  });

  it('an export with no users, and users after other keys, are read', async () => {
    const file = join(scratch, 'keys-first.json');
    writeFileSync(file, JSON.stringify({ kind: 'x', meta: { users: 1 }, users: [] }));
    expect((await plan(firebaseSource(file, { opts: mapOptions(VARIANTS[0]), hashConfig }))).users).toEqual([]);
    writeFileSync(file, JSON.stringify({ meta: [1, { a: 2 }], users: [{ localId: 'u1', email: 'a@example.com', emailVerified: true }] }));
    expect((await plan(firebaseSource(file, { opts: mapOptions(VARIANTS[0]), hashConfig }))).users.map((u) => u.mapped.sourceId)).toEqual(['u1']);
  });
});

describe('the Firebase source against our own export of the Firebase Auth emulator (test/fixtures/firebase-emulator)', () => {
  const hashConfig = readHashConfig(join(EMULATOR, 'hash-config.txt'));

  it.each([
    ['users.json', 'json'],
    ['users.csv', 'csv'],
    ['users.urlsafe.json', 'json'],
  ])('%s: every user, every option, every password; a malformed CSV row fails alone', async (file, format) => {
    await checkSet((opts) => firebaseSource(join(EMULATOR, file), { opts, hashConfig }), EMULATOR, format);
  });
});

describe('the Auth0 source against the fixtures of its documented formats', () => {
  let hashes: HashIndex;
  beforeAll(async () => {
    hashes = await HashIndex.read(join(AUTH0, 'password-hashes.ndjson'));
  });

  it('users.ndjson joined to password-hashes.ndjson: every user, every option, every password', async () => {
    await checkSet((opts) => auth0Source(join(AUTH0, 'users.ndjson'), { opts, hashes }), AUTH0, 'json');
    expect(auth0Source(join(AUTH0, 'users.ndjson'), { opts: mapOptions(VARIANTS[0]), hashes }).notes()).toEqual({
      orphanHashLines: [],
      unreadableHashLines: [],
    });
  });

  it('the same export gzipped, as Auth0 delivers it', async () => {
    const gz = join(scratch, 'users.json.gz');
    writeFileSync(gz, gzipSync(readFileSync(join(AUTH0, 'users.ndjson'))));
    await checkSet((opts) => auth0Source(gz, { opts, hashes }), AUTH0, 'json');
  });

  it('joins on the database identity, not on the email: a hash line with another email still joins; an unknown id is an orphan', async () => {
    const file = join(scratch, 'hashes.ndjson');
    const lines = readFileSync(join(AUTH0, 'password-hashes.ndjson'), 'utf8').trim().split('\n');
    const moved = lines.map((l) => JSON.parse(l));
    moved[0].email = 'someone.else@example.com';
    moved.push({ _id: { $oid: '000000000000000000000000' }, passwordHash: '$2b$10$' + 'a'.repeat(53), connection: 'Username-Password-Authentication' });
    writeFileSync(file, moved.map((o) => JSON.stringify(o)).join('\n') + '\nnot json\n');
    const index = await HashIndex.read(file);
    const source = auth0Source(join(AUTH0, 'users.ndjson'), { opts: mapOptions(VARIANTS[0]), hashes: index });
    const { users } = await plan(source);
    const owner = users.find((u) => u.mapped.user?.loginMethods.some((lm) => lm.passwordHash === moved[0].passwordHash));
    expect(owner?.mapped.user?.loginMethods.find((lm) => lm.recipeId === 'emailpassword')?.email).not.toBe('someone.else@example.com');
    expect(source.notes()).toEqual({
      orphanHashLines: [{ id: '000000000000000000000000', connection: 'Username-Password-Authentication' }],
      unreadableHashLines: [{ line: lines.length + 2, reason: 'not JSON' }],
    });
  });

  it('without the hash file every database user is a no-hash user (passwordless by default), never a failure', async () => {
    const { users } = await plan(auth0Source(join(AUTH0, 'users.ndjson'), { opts: mapOptions(VARIANTS[0]) }));
    const database = users.filter((u) => u.mapped.warnings.some((w) => w.code === 'no-password-hash'));
    expect(database.length).toBeGreaterThanOrEqual(9);
    expect(users.some((u) => u.mapped.user?.loginMethods.some((lm) => lm.recipeId === 'emailpassword'))).toBe(false);
  });

  describe('records the fixture does not hold', () => {
    const map = (raw: Record<string, unknown>, opts: Partial<MapOptions> = {}) => mapAuth0User(raw, { opts: { ...mapOptions(VARIANTS[0]), ...opts }, hashes });
    const base = { user_id: 'x|1', email: 'Ann@Example.com', email_verified: true, created_at: '2020-01-02T03:04:05.678Z' };

    it('an enterprise-only user is skipped (SAML: enterprise-connection, SPEC §22; others unsupported); beside a social identity it is dropped with a warning', () => {
      const only = map({ ...base, identities: [{ provider: 'samlp', user_id: 's1', connection: 'corp', isSocial: false }] });
      expect([only.notImported?.code, only.warnings.map((w) => w.code)]).toEqual(['enterprise-connection', ['enterprise-connection']]);
      const oidc = map({ ...base, identities: [{ provider: 'oidc', user_id: 'o1', connection: 'corp-oidc', isSocial: false }] });
      expect(oidc.notImported).toMatchObject({ outcome: 'skipped', code: 'unsupported-provider' });
      const both = map({
        ...base,
        identities: [
          { provider: 'waad', user_id: 'w1', isSocial: false },
          { provider: 'github', user_id: '7', isSocial: true, profileData: { email: 'ann@example.com', email_verified: true } },
        ],
      });
      expect(both.user?.loginMethods).toEqual([
        expect.objectContaining({ recipeId: 'thirdparty', thirdPartyId: 'github', thirdPartyUserId: '7', email: 'ann@example.com', isVerified: true }),
      ]);
      expect(both.warnings.map((w) => w.code)).toEqual(['unsupported-provider']);
    });

    it('a user with no identities is reported; a numeric provider user id becomes text; created_at becomes ms', () => {
      expect(map({ ...base, identities: [] }).notImported).toMatchObject({ outcome: 'skipped', code: 'no-login-method' });
      const m = map({ ...base, identities: [{ provider: 'facebook', user_id: 10158765, isSocial: true }] });
      expect(m.user?.loginMethods[0]).toMatchObject({
        thirdPartyId: 'facebook',
        thirdPartyUserId: '10158765',
        email: 'ann@example.com',
        timeJoinedInMSSinceEpoch: Date.parse(base.created_at),
      });
    });

    it("a linked social identity without an email of its own takes the user's, unverified", () => {
      const m = map({
        ...base,
        identities: [
          { provider: 'email', user_id: 'e1' },
          { provider: 'github', user_id: '9', isSocial: true },
        ],
      });
      expect(m.user?.loginMethods.map((lm) => [lm.recipeId, lm.email, lm.isVerified, lm.isPrimary])).toEqual([
        ['passwordless', 'ann@example.com', true, true],
        ['thirdparty', 'ann@example.com', false, false],
      ]);
    });

    it('app_metadata that is not an object, and roles that are not a list, are kept as metadata', () => {
      const m = map({ ...base, identities: [{ provider: 'email', user_id: 'e1' }], app_metadata: { roles: 'admin', tier: 1 }, user_metadata: 'x' });
      expect(m.user?.userMetadata).toEqual({ roles: 'admin', tier: 1 });
      expect(m.user?.userRoles).toBeUndefined();
    });
  });

  it.each([
    [
      'a pretty-printed document',
      '{\n  "user_id": "auth0|1"\n}\n',
      'line 1 is not JSON (a pretty-printed JSON document? the export job writes one user per line).',
    ],
    ['a JSON array', '[{"user_id":"auth0|1"}]\n', 'line 1 is a JSON array, not a user object.'],
    ['a number', '42\n', 'line 1 is not a user object.'],
    ['an object without user_id', '{"email":"a@example.com"}\n', 'line 1 has no user_id (export the user_id field).'],
  ])('%s is no Auth0 user export, said in one sentence', async (_name, text, sentence) => {
    const file = join(scratch, 'not-auth0.ndjson');
    writeFileSync(file, text);
    await expect(plan(auth0Source(file, { opts: mapOptions(VARIANTS[0]), hashes }))).rejects.toThrow(
      new UsageError(`${file} is not an Auth0 user export (NDJSON, one user object per line): ${sentence}`),
    );
  });

  it('a line that is not JSON fails that line only', async () => {
    const file = join(scratch, 'users-broken.ndjson');
    writeFileSync(file, readFileSync(join(AUTH0, 'users.ndjson'), 'utf8') + '{"user_id": "auth0|x",\n');
    const { users } = await plan(auth0Source(file, { opts: mapOptions(VARIANTS[0]), hashes }));
    expect(users).toHaveLength(16);
    expect(users.find((u) => u.mapped.sourceId === '#line-16')).toMatchObject({ outcome: 'failed', reasonCode: 'not-an-account' });
  });
});

describe('collisions', () => {
  it('the same record twice (a concatenated export) is reported as colliding with itself, not with nobody', async () => {
    const file = join(scratch, 'twice.ndjson');
    const line = readFileSync(join(AUTH0, 'users.ndjson'), 'utf8').split('\n')[0];
    writeFileSync(file, `${line}\n${line}\n`);
    const { users } = await plan(auth0Source(file, { opts: mapOptions(VARIANTS[0]) }));
    expect(users.map((u) => u.reasonCode)).toEqual(['duplicate', 'duplicate']);
    expect(users[0].mapped.sourceId).toBe(users[1].mapped.sourceId);
  });

  it('5,000 distinct users: no collision is reported', async () => {
    const file = join(scratch, 'many.json');
    const many = Array.from({ length: 5000 }, (_, i) => ({
      localId: `u${i}`,
      email: `u${i}@example.com`,
      emailVerified: true,
      createdAt: '1',
      providerUserInfo: [],
    }));
    writeFileSync(file, JSON.stringify({ users: many }));
    const { users, index } = await plan(firebaseSource(file, { opts: mapOptions(VARIANTS[0]) }));
    expect(users.every((u) => u.outcome === 'imported')).toBe(true);
    expect(index.collisions()).toEqual([]);
  });
});

describe('a SuperTokens bulk file', () => {
  it('goes through unchanged; its collisions are still found before writing', async () => {
    const file = join(scratch, 'bulk.json');
    const users = [
      {
        externalUserId: 'a',
        loginMethods: [{ recipeId: 'emailpassword', email: 'A@x.com', passwordHash: 'h', hashingAlgorithm: 'bcrypt', timeJoinedInMSSinceEpoch: 5 }],
      },
      { loginMethods: [{ recipeId: 'emailpassword', email: 'a@x.com ', plainTextPassword: 'p' }], anything: { kept: true } },
      { externalUserId: 'c', loginMethods: [{ recipeId: 'passwordless', phoneNumber: '+16505550142' }] },
      'not a user',
    ];
    writeFileSync(file, JSON.stringify({ users }));
    const { users: planned, index } = await plan(supertokensSource(file));
    // Users that may collide are decided last, once the whole file has been read.
    expect(planned.map((p) => [p.mapped.sourceId, p.outcome, p.reasonCode])).toEqual([
      ['c', 'imported', undefined],
      ['#3', 'failed', 'not-a-user'],
      ['a', 'failed', 'duplicate'],
      ['#1', 'failed', 'duplicate'],
    ]);
    expect(planned[3].mapped.user).toEqual(users[1]);
    expect(planned[2].mapped.createdAt).toBe(5);
    expect(index.collisions()).toEqual([{ tenant: 'public', key: 'emailpassword email a@x.com', sourceIds: ['a', '#1'] }]);
  });
});

describe('the Supabase source against the fixtures of psql exports of auth.users and auth.identities', () => {
  const SUPABASE = join(MIGRATION_FIXTURES, 'supabase');
  const rowsOf = (file: string): Record<string, unknown>[] =>
    readFileSync(join(SUPABASE, file), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  const written = (name: string, body: string): string => {
    const file = join(scratch, name);
    writeFileSync(file, body);
    return file;
  };
  const source = (users: string, identities: IdentityIndex | undefined, opts: Partial<MapOptions> = {}) =>
    supabaseSource(users, { opts: { ...mapOptions(VARIANTS[0]), ...opts }, ...(identities ? { identities } : {}) });

  it('row_to_json lines with --identities: every user, every option, the password', async () => {
    const identities = await readIdentities(join(SUPABASE, 'identities.ndjson'));
    await checkSet((opts) => supabaseSource(join(SUPABASE, 'users.ndjson'), { opts, identities }), SUPABASE, 'json');
    expect(source(join(SUPABASE, 'users.ndjson'), identities).notes()).toEqual({
      orphanIdentityRows: 0,
      unreadableIdentityRows: [],
      mfa: expect.stringContaining('--mfa-factors'),
    });
  });

  it('the same tables as json_agg arrays', async () => {
    const users = written('sb-users.json', JSON.stringify(rowsOf('users.ndjson'), null, 2));
    const identities = await readIdentities(written('sb-identities.json', JSON.stringify(rowsOf('identities.ndjson'))));
    await checkSet((opts) => supabaseSource(users, { opts, identities }), SUPABASE, 'json');
  });

  it('the same tables as psql CSV with header (t/f, empty = NULL, jsonb cells, "+00" times with µs)', async () => {
    const usersCsv = psqlCsv(rowsOf('users.ndjson'));
    expect(usersCsv).toContain(',"{""name"": ""Amy""}",');
    expect(usersCsv).toContain(',2023-01-02 03:04:05.678901+00,');
    const users = written('sb-users.csv', usersCsv);
    const identities = await readIdentities(written('sb-identities.csv', psqlCsv(rowsOf('identities.ndjson'))));
    await checkSet((opts) => supabaseSource(users, { opts, identities }), SUPABASE, 'csv');
  });

  it('a line as `copy … to stdout` escapes it (every backslash doubled) reads as the JSON it holds', async () => {
    const row = { ...rowsOf('users.ndjson')[0], raw_user_meta_data: { name: 'Amy "A" \\o/' } };
    const copied = JSON.stringify(row).replace(/\\/g, '\\\\');
    const { users } = await plan(source(written('sb-copied.ndjson', `${copied}\n`), undefined));
    expect(users[0].mapped.user?.userMetadata).toEqual({ name: 'Amy "A" \\o/' });
  });

  it('timestamps: psql and JSON forms, µs truncated (never rounded), offsets, no zone = UTC', () => {
    expect(timestampOf('2023-05-01 10:20:30.5+00')).toBe(Date.UTC(2023, 4, 1, 10, 20, 30, 500));
    expect(timestampOf('2023-05-01T10:20:30.123999+00:00')).toBe(Date.UTC(2023, 4, 1, 10, 20, 30, 123));
    expect(timestampOf('2023-05-01 12:20:30+02')).toBe(Date.UTC(2023, 4, 1, 10, 20, 30));
    expect(timestampOf('2023-05-01 05:50:30-04:30')).toBe(Date.UTC(2023, 4, 1, 10, 20, 30));
    expect(timestampOf('2023-05-01 10:20:30')).toBe(Date.UTC(2023, 4, 1, 10, 20, 30));
    expect(timestampOf('yesterday')).toBeUndefined();
  });

  describe('rows the fixture does not hold', () => {
    const now = Date.UTC(2025, 0, 1);
    const map = (
      raw: Record<string, unknown>,
      identities?: { provider: string; providerId: string; data: Record<string, unknown> }[],
      opts: Partial<MapOptions> = {},
    ) => mapSupabaseUser(raw, { opts: { ...mapOptions(VARIANTS[0]), ...opts }, now, ...(identities ? { identities } : {}) }, 'row 2');
    const base = {
      id: 'b2000000-0000-4000-8000-0000000000aa',
      email: 'Zed@SB-demo.example ',
      encrypted_password: '',
      email_confirmed_at: '2023-01-02 03:05:00+00',
      created_at: '2023-01-02 03:04:05.678901+00',
      raw_app_meta_data: '{"provider": "email", "providers": ["email"]}',
      raw_user_meta_data: '{}',
      phone: null,
      phone_confirmed_at: null,
    };
    const methods = (m: ReturnType<typeof map>) =>
      m.user?.loginMethods.map((lm) => [lm.recipeId, lm.email ?? lm.phoneNumber, lm.isVerified, lm.hashingAlgorithm]);
    const codes = (m: ReturnType<typeof map>) => m.warnings.map((w) => w.code);

    it('an argon2 hash goes through as argon2; $fbscrypt$ is hash-unsupported and the user gets the --no-hash mode', () => {
      const argon = '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA';
      expect(methods(map({ ...base, encrypted_password: argon }))).toEqual([['emailpassword', 'zed@sb-demo.example', true, 'argon2']]);
      const fb = map({ ...base, encrypted_password: '$fbscrypt$v=1,n=14,r=8,p=1,ss=Bw==,sk=a2V5$c2FsdA==$aGFzaA==' });
      expect(methods(fb)).toEqual([['passwordless', 'zed@sb-demo.example', true, undefined]]);
      expect(codes(fb)).toEqual(['hash-unsupported', 'no-password-hash']);
      const onSignIn = map({ ...base, encrypted_password: '$fbscrypt$x' }, undefined, { noHash: 'migrate-on-signin' });
      expect(onSignIn.user?.loginMethods[0]).toMatchObject({ recipeId: 'emailpassword', migratePasswordOnSignIn: true });
      expect(JSON.stringify(fb)).not.toContain('c2FsdA==');
    });

    it('a magic-link user is passwordless (or skipped with --no-hash skip); with a phone, one passwordless method holds both', () => {
      expect(methods(map(base))).toEqual([['passwordless', 'zed@sb-demo.example', true, undefined]]);
      expect(map(base, undefined, { noHash: 'skip' }).notImported).toMatchObject({ outcome: 'skipped', code: 'no-password-hash' });
      const both = map({ ...base, phone: '14155550199', phone_confirmed_at: '2023-01-02 03:06:00+00' });
      expect(both.user?.loginMethods).toEqual([
        expect.objectContaining({ recipeId: 'passwordless', email: 'zed@sb-demo.example', phoneNumber: '+14155550199' }),
      ]);
    });

    it('a phone-password user keeps its phone, not its password', () => {
      const m = map({
        ...base,
        email: null,
        email_confirmed_at: null,
        encrypted_password: rowsOf('users.ndjson')[0].encrypted_password,
        phone: '14155550198',
        phone_confirmed_at: null,
      });
      expect(methods(m)).toEqual([['passwordless', '+14155550198', false, undefined]]);
      expect(codes(m)).toEqual(['password-not-migrated']);
    });

    it('deleted, SSO and anonymous users are skipped by their reason; a ban in the future is disabled, a past one imported', () => {
      expect(map({ ...base, deleted_at: '2024-01-01 00:00:00+00' }).notImported).toMatchObject({ outcome: 'skipped', code: 'deleted' });
      expect(map({ ...base, is_sso_user: 't' }).notImported).toMatchObject({ outcome: 'skipped', code: 'sso' });
      expect(map({ ...base, is_anonymous: true }).notImported).toMatchObject({ outcome: 'skipped', code: 'anonymous' });
      expect(map({ ...base, banned_until: '2025-06-01 00:00:00+00' }).notImported).toMatchObject({ outcome: 'skipped', code: 'disabled', needsAction: false });
      expect(map({ ...base, banned_until: '2024-06-01 00:00:00+00' }).user).toBeDefined();
      const included = map({ ...base, banned_until: 'infinity' }, undefined, { includeDisabled: true });
      expect(included.user?.userMetadata).toEqual({ disabled: true });
    });

    it('metadata: raw_user_meta_data, then raw_app_meta_data without provider(s), the app winning with a warning', () => {
      const m = map({
        ...base,
        raw_user_meta_data: '{"name": "Zed", "plan": "free", "tier": 1}',
        raw_app_meta_data: '{"provider": "email", "providers": ["email"], "plan": "pro", "tier": 1}',
      });
      expect(m.user?.userMetadata).toEqual({ name: 'Zed', plan: 'pro', tier: 1 });
      expect(codes(m)).toContain('metadata-key-clash');
      expect(map({ ...base, raw_user_meta_data: '{"name": ' })).toMatchObject({
        notImported: { outcome: 'failed', code: 'row-unreadable', reason: 'row 2: raw_user_meta_data is not a JSON object' },
      });
    });

    it('third-party identities: verified as identity_data says, else as the email; without --identities an OAuth-only user needs action', () => {
      const google = { ...base, raw_app_meta_data: { provider: 'google', providers: ['google', 'github'] } };
      const m = map(google, [
        { provider: 'google', providerId: 'g-1', data: { email: 'zed@gmail.example', email_verified: false } },
        { provider: 'github', providerId: '42', data: {} },
      ]);
      expect(m.user?.loginMethods.map((lm) => [lm.thirdPartyId, lm.thirdPartyUserId, lm.email, lm.isVerified])).toEqual([
        ['google', 'g-1', 'zed@gmail.example', false],
        ['github', '42', 'zed@sb-demo.example', true],
      ]);
      expect(map(google).notImported).toMatchObject({ outcome: 'skipped', code: 'no-login-method', needsAction: true });
      const withPassword = map({ ...google, encrypted_password: rowsOf('users.ndjson')[0].encrypted_password });
      expect(methods(withPassword)).toEqual([['emailpassword', 'zed@sb-demo.example', true, 'bcrypt']]);
      expect(codes(withPassword)).toEqual(['identity-not-migrated']);
    });
  });

  describe('files that are not this source export: refused in one sentence naming the file', () => {
    const users = join(SUPABASE, 'users.ndjson');
    const header = Object.keys(rowsOf('users.ndjson')[0]).join(',');
    it.each([
      [
        'Firebase\'s {"users":[…]} on one line',
        '{"users":[]}\n',
        'is not an auth.users export (psql CSV with header, a json_agg array or row_to_json lines): line 1 has no id, email, encrypted_password',
      ],
      ['a pretty-printed document', '{\n  "id": "x"\n}\n', 'line 1 is not JSON (a pretty-printed JSON document?'],
      ['a json_agg array cut short', `[${readFileSync(users, 'utf8').split('\n')[0]}, {"id": "b2`, 'it is not readable JSON'],
      ['a CSV without its header row', 'b2000000-0000-4000-8000-000000000001,amy@sb-demo.example\n', 'its header row has no column id, email'],
      ['a CSV cut short inside a quoted cell', `${header}\nb2,"{""name`, 'it is cut short (a quoted cell never ends)'],
      ['an empty file', '', 'it is empty'],
    ])('%s', async (_name, body, sentence) => {
      const file = written('sb-wrong.txt', body);
      await expect(plan(source(file, undefined))).rejects.toThrow(UsageError);
      await expect(plan(source(file, undefined))).rejects.toThrow(`${file} is not an auth.users export`);
      await expect(plan(source(file, undefined))).rejects.toThrow(sentence);
    });

    it('a broken line stops the run without quoting it (it may hold a hash)', async () => {
      const line = readFileSync(users, 'utf8').split('\n')[0];
      const file = written('sb-broken-line.ndjson', `${line}\n${line.slice(0, 200)}\n`);
      const err = await plan(source(file, undefined)).catch((e: Error) => e);
      expect(err).toEqual(
        new UsageError(`${file} is not an auth.users export (psql CSV with header, a json_agg array or row_to_json lines): line 2 is not JSON.`),
      );
    });

    it('the users file given as --identities', async () => {
      await expect(readIdentities(users)).rejects.toThrow(
        `${users} is not an auth.identities export (psql CSV with header, a json_agg array or row_to_json lines): line 1 has no user_id, provider, identity_data.`,
      );
    });

    it('inside a well-formed CSV, a row of another width fails alone, by its first cell', async () => {
      const rows = rowsOf('users.ndjson');
      const csv = psqlCsv(rows).split('\n');
      csv[2] = 'b2000000-0000-4000-8000-000000000002,ben@sb-demo.example,x';
      const { users: planned } = await plan(source(written('sb-short-row.csv', csv.join('\n')), undefined));
      expect(planned.map((u) => [u.mapped.sourceId, u.outcome, u.reasonCode])).toEqual([
        ['b2000000-0000-4000-8000-000000000001', 'imported', undefined],
        ['b2000000-0000-4000-8000-000000000002', 'failed', 'row-unreadable'],
        ['b2000000-0000-4000-8000-000000000003', 'imported', undefined],
        ['b2000000-0000-4000-8000-000000000004', 'skipped', 'anonymous'],
      ]);
      expect(planned[1].mapped.notImported?.reason).toBe(`row 3: 3 columns, expected ${Object.keys(rows[0]).length}`);
    });
  });
});
