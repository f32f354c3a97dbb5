import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../lib/migrate/errors';
import type { MapOptions } from '../../lib/migrate/model';
import { assertReadableFile, contentId } from '../../lib/migrate/read';
import { convertKeycloakCredential, keycloakSource, mapKeycloakUser } from '../../lib/migrate/sources/keycloak';
import { verifyPassword } from '../../lib/password';
import { expectedSet, loginMethodView, MIGRATION_FIXTURES, plan, type ExpectedUser } from '../support/migration';
import { scratchDir } from '../support/scratch';

/**
 * The Keycloak source (SPEC §17b) against the fixture of a `kc.sh export` realm file: every user
 * planned as `expected.json` (written independently of the command) says, every password verified
 * by the service's own verifier against the converted hash; the three input layouts; every reason a
 * user is not imported; credentials the fixture does not hold (RH-SSO's 64-byte values, SHA-1,
 * Argon2i 1.0, legacy fields, unsupported algorithms, OTP), and files that are not an export.
 */
const KEYCLOAK = join(MIGRATION_FIXTURES, 'keycloak');
const REALM_FILE = join(KEYCLOAK, 'demo-realm.json');
const scratch = scratchDir('migrate-keycloak-');
const OPTS: MapOptions = { tenant: 'public', noHash: 'passwordless', includeDisabled: false };

type Obj = Record<string, any>;
const realm: Obj = JSON.parse(readFileSync(REALM_FILE, 'utf8'));
const written = (name: string, body: unknown): string => {
  const file = join(scratch, name);
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  return file;
};
const source = (path: string, opts: Partial<MapOptions> = {}) => keycloakSource(path, { opts: { ...OPTS, ...opts } });
/** `realmName` null: the realm's name was not read before its users. */
const map = (raw: Obj, opts: Partial<MapOptions> = {}, realmName: string | null = 'demo') =>
  mapKeycloakUser(raw, { opts: { ...OPTS, ...opts }, ...(realmName !== null ? { realm: realmName } : {}) }, 'users[0] of t.json');
const codes = (m: ReturnType<typeof map>) => m.warnings.map((w) => w.code);

/** A `password` credential as Keycloak exports it: both data fields JSON strings. */
const credential = (secret: Obj, data: Obj, type = 'password'): Obj => ({
  id: 'c-1',
  type,
  createdDate: 1_700_000_000_000,
  secretData: JSON.stringify({ ...secret, additionalParameters: {} }),
  credentialData: JSON.stringify({ additionalParameters: {}, ...data }),
});
const user = (fields: Obj): Obj => ({
  id: 'kc-user-1',
  createdTimestamp: 1_700_000_000_000,
  username: 'erin',
  enabled: true,
  emailVerified: false,
  email: 'Erin@KC-demo.example',
  credentials: [],
  realmRoles: ['default-roles-demo'],
  ...fields,
});

/*
 * Credentials the fixture does not hold, made outside this code base:
 * - RH-SSO pbkdf2-sha256 with a 64-byte value: `openssl kdf -keylen 64 -kdfopt digest:SHA256
 *   -kdfopt pass:rhsso-Keycloak-64 -kdfopt salt:keycloak-rhsso-1 -kdfopt iter:27500 PBKDF2`
 *   (Python's hashlib.pbkdf2_hmac gives the same bytes);
 * - `pbkdf2` (SHA-1), 64 bytes: hashlib.pbkdf2_hmac('sha1', b'legacy-Keycloak-sha1', b'keycloak-rhsso-1', 20000, 64);
 * - Argon2i version 1.0: `echo -n dave-Keycloak-Argon2i | argon2 keycloak-argon2-i -i -v 10 -k 1024 -t 2 -p 1 -l 32`
 *   (the reference implementation's CLI), whose encoded form is `ARGON2I_PHC`.
 */
const SALT = 'a2V5Y2xvYWstcmhzc28tMQ==';
const RHSSO_64 = 'JyWl2IDHCSSK2DFm3psO7dMUzyhh8emA3/WwGIx2BpFV5nNCdUWF7+MCei15Z7BHG7QQRWSqTFMBfSXySYakXg==';
const SHA1_64 = '5w6ziAKEiYX+DmMj89+kizSXoiQRs7GWaO2MusESOKeHzZ97qkBiHap6YEOkBddTGYyrSjKLeMFJs/INjt5yew==';
const ARGON2I_PHC = '$argon2i$v=16$m=1024,t=2,p=1$a2V5Y2xvYWstYXJnb24yLWk$R4Lqlkem7+FytyKgTFy9ThruCGyrgJ2f8RVvZ6yz05o';
const argon2i = credential(
  { value: 'R4Lqlkem7+FytyKgTFy9ThruCGyrgJ2f8RVvZ6yz05o=', salt: 'a2V5Y2xvYWstYXJnb24yLWk=' },
  {
    hashIterations: 2,
    algorithm: 'argon2',
    additionalParameters: { hashLength: ['32'], memory: ['1024'], type: ['i'], version: ['1.0'], parallelism: ['1'] },
  },
);

describe('the Keycloak fixture (kc.sh export --users realm_file)', () => {
  const set = expectedSet(KEYCLOAK);
  /** Password users also name the form their converted hash is in (`pbkdf2-sha256`, `argon2id`). */
  const wanted = set.users as (ExpectedUser & { externalUserId: string; convertedHashForm: string; password: string })[];

  it('plans every user as expected.json says, and every password verifies against the converted hash', async () => {
    const { users, index } = await plan(source(REALM_FILE));
    expect(users.map((u) => u.mapped.sourceId)).toEqual(set.users.map((u) => u.sourceId));
    for (const want of wanted) {
      const got = users.find((u) => u.mapped.sourceId === want.sourceId)!;
      const where = want.label;
      expect([where, got.outcome, got.reasonCode, got.needsAction]).toEqual([where, want.outcome, want.reasonCode, false]);
      expect([where, got.mapped.createdAt]).toEqual([where, want.timeJoined]);
      expect([where, got.mapped.warnings]).toEqual([where, []]);
      if (want.outcome !== 'imported') continue;
      const bulk = got.mapped.user!;
      expect([where, bulk.externalUserId]).toEqual([where, want.externalUserId]);
      expect([where, bulk.loginMethods.map((lm) => loginMethodView(lm, bulk.loginMethods.length > 1))]).toEqual([
        where,
        want.loginMethods
          .map((lm: Obj) => (bulk.loginMethods.length > 1 ? { ...lm, isPrimary: lm.recipeId === 'emailpassword' } : lm))
          .map((lm: Obj) => ({
            ...lm,
            ...(lm.recipeId === 'emailpassword' ? { hashingAlgorithm: want.convertedHashForm.startsWith('argon2') ? 'argon2' : 'pbkdf2' } : {}),
          })),
      ]);
      for (const lm of bulk.loginMethods) expect([where, lm.tenantIds, lm.timeJoinedInMSSinceEpoch]).toEqual([where, ['public'], want.timeJoined]);
      // expected.json lists metadata keys that must hold these values; the username is always there.
      expect([where, bulk.userMetadata]).toEqual([
        where,
        expect.objectContaining({ username: realm.users.find((u: Obj) => u.id === want.sourceId).username, ...want.metadata }),
      ]);
      expect([where, bulk.userRoles?.map((r) => r.role)]).toEqual([where, want.roles]);
      const hashed = bulk.loginMethods.find((lm) => lm.passwordHash !== undefined)!;
      expect([where, hashed.passwordHash!.startsWith(`$${want.convertedHashForm}$`)]).toEqual([where, true]);
      expect([where, await verifyPassword(want.password, hashed.passwordHash!, {})]).toEqual([where, true]);
      expect([where, await verifyPassword(`${want.password}!`, hashed.passwordHash!, {})]).toEqual([where, false]);
    }
    const summary = { total: users.length, imported: 0, skipped: 0, failed: 0 };
    for (const u of users) summary[u.outcome]++;
    expect(summary).toEqual(set.summary);
    expect(index.collisions()).toEqual(set.collisions);
    expect([...new Set(users.flatMap((u) => u.mapped.user?.userRoles?.map((r) => r.role) ?? []))]).toEqual(set.rolesToCreate);
    expect(source(REALM_FILE).createsRoles).toBe(true);
  });

  it('the SPEC worked example: pbkdf2-sha256 becomes $pbkdf2-sha256$i=27500,l=32$<salt>$<value>, salt and value as Keycloak wrote them', () => {
    const alice = realm.users[0].credentials[0];
    const secret = JSON.parse(alice.secretData);
    expect(convertKeycloakCredential(alice)).toEqual({
      passwordHash: `$pbkdf2-sha256$i=27500,l=32$${secret.salt}$${secret.value}`,
      hashingAlgorithm: 'pbkdf2',
    });
  });

  it('--include-disabled imports the disabled user with userMetadata.disabled = true', async () => {
    const { users } = await plan(source(REALM_FILE, { includeDisabled: true }));
    const dave = users.find((u) => u.mapped.sourceId === set.users[3].sourceId)!;
    expect([dave.outcome, dave.mapped.user?.userMetadata]).toEqual(['imported', { username: 'dave', disabled: true }]);
  });
});

describe('the three input layouts of kc.sh export', () => {
  const { users: allUsers, ...realmOnly } = realm;
  const withoutUsers = { ...realmOnly, users: undefined };
  const planned = async (path: string) =>
    (await plan(source(path))).users.map((u) => [u.mapped.sourceId, u.outcome, u.reasonCode, JSON.stringify(u.mapped.user ?? null)]);

  it('a realm file, <realm>-users-<n>.json files, and the export folder give the same users', async () => {
    const fromRealmFile = await planned(REALM_FILE);
    const usersFile = written('demo-users-0.json', { realm: 'demo', users: allUsers });
    expect(await planned(usersFile)).toEqual(fromRealmFile);

    // --users different_files --users-per-file 2: the realm file without users, and two users files.
    const dir = join(scratch, 'export');
    mkdirSync(dir);
    writeFileSync(join(dir, 'demo-realm.json'), JSON.stringify(withoutUsers));
    writeFileSync(join(dir, 'demo-users-1.json'), JSON.stringify({ realm: 'demo', users: allUsers.slice(2) }));
    writeFileSync(join(dir, 'demo-users-0.json'), JSON.stringify({ realm: 'demo', users: allUsers.slice(0, 2) }));
    writeFileSync(join(dir, 'notes.txt'), 'not an export file: ignored');
    expect(await planned(dir)).toEqual(fromRealmFile);
  });

  it('the folder is accepted where a file is expected only when asked (keycloak), and it has one content id', async () => {
    const dir = join(scratch, 'export');
    expect(() => assertReadableFile(dir, 'the export', { directory: true })).not.toThrow();
    expect(() => assertReadableFile(dir, 'the export')).toThrow(new UsageError(`cannot read the export ${dir}: EISDIR.`));
    const renamed = join(scratch, 'export-renamed');
    mkdirSync(renamed);
    writeFileSync(join(renamed, 'a.json'), readFileSync(join(dir, 'demo-users-0.json')));
    writeFileSync(join(renamed, 'b.json'), readFileSync(join(dir, 'demo-users-1.json')));
    writeFileSync(join(renamed, 'c.json'), readFileSync(join(dir, 'demo-realm.json')));
    expect(await contentId(renamed)).toBe(await contentId(dir));
    writeFileSync(join(renamed, 'b.json'), '{"realm":"demo","users":[]}');
    expect(await contentId(renamed)).not.toBe(await contentId(dir));
  });

  it('a realm without users (alone, or in a folder with no users file) is a usage error: no users', async () => {
    const alone = written('demo-realm-only.json', withoutUsers);
    await expect(plan(source(alone))).rejects.toBeInstanceOf(UsageError);
    await expect(plan(source(alone))).rejects.toThrow(`${alone} has no users: the realm was exported without them`);
    const dir = join(scratch, 'realm-only');
    mkdirSync(dir);
    writeFileSync(join(dir, 'demo-realm.json'), JSON.stringify(withoutUsers));
    await expect(plan(source(dir))).rejects.toThrow(`${dir} has no users`);
    const empty = join(scratch, 'empty');
    mkdirSync(empty);
    await expect(plan(source(empty))).rejects.toThrow(`${empty} has no *.json file`);
    // An empty realm exported with its users is an export of zero users, not an error.
    expect((await plan(source(written('empty-realm.json', { ...realmOnly, users: [] })))).users).toEqual([]);
  });
});

describe('users the fixture does not hold', () => {
  it('skip reasons: service account, no email (with or without a password), disabled first', () => {
    const service = map(user({ username: 'service-account-api', email: undefined, serviceAccountClientId: 'api' }));
    expect(service.notImported).toMatchObject({ outcome: 'skipped', code: 'service-account', needsAction: false });
    const pw = credential({ value: RHSSO_64, salt: SALT }, { hashIterations: 27500, algorithm: 'pbkdf2-sha256' });
    const noEmail = map(user({ email: undefined, credentials: [pw] }));
    expect(noEmail.notImported).toEqual({
      outcome: 'skipped',
      code: 'no-email',
      reason: 'a password but no email, which the login method needs',
      needsAction: false,
    });
    expect(map(user({ email: '' })).notImported).toMatchObject({ outcome: 'skipped', code: 'no-email' });
    expect(map(user({ email: undefined, enabled: false })).notImported).toMatchObject({ code: 'disabled' });
    expect(JSON.stringify(noEmail)).not.toContain(RHSSO_64);
  });

  it('federated identities become third-party login methods with the user email; without an email they are dropped', () => {
    const m = map(
      user({
        emailVerified: true,
        federatedIdentities: [
          { identityProvider: 'github', userId: '4242', userName: 'erin-gh' },
          { identityProvider: 'corp-oidc', userId: 'e-17', userName: 'erin' },
        ],
      }),
    );
    // No password: the identities sign the user in, no passwordless method is added.
    expect(m.user?.loginMethods.map((lm) => [lm.recipeId, lm.thirdPartyId, lm.thirdPartyUserId, lm.email, lm.isVerified, lm.isPrimary])).toEqual([
      ['thirdparty', 'github', '4242', 'erin@kc-demo.example', true, true],
      ['thirdparty', 'corp-oidc', 'e-17', 'erin@kc-demo.example', true, false],
    ]);
    expect(codes(m)).toEqual([]);
    const noEmail = map(user({ email: undefined, federatedIdentities: [{ identityProvider: 'google', userId: '1' }] }));
    expect([noEmail.notImported?.code, codes(noEmail)]).toEqual(['no-email', ['identity-without-email']]);
  });

  it('no password credential: the --no-hash mode', () => {
    expect(map(user({})).user?.loginMethods.map((lm) => [lm.recipeId, lm.email])).toEqual([['passwordless', 'erin@kc-demo.example']]);
    expect(codes(map(user({})))).toEqual(['no-password-hash']);
    expect(map(user({}), { noHash: 'migrate-on-signin' }).user?.loginMethods[0]).toMatchObject({ recipeId: 'emailpassword', migratePasswordOnSignIn: true });
    expect(map(user({}), { noHash: 'skip' }).notImported).toMatchObject({ outcome: 'skipped', code: 'no-password-hash' });
    expect(map(user({ enabled: false }), { noHash: 'skip' }).notImported).toMatchObject({ code: 'disabled' });
    expect(map(user({ federationLink: 'ldap-1' })).warnings[0].text).toContain('user federation');
  });

  it('RH-SSO 64-byte pbkdf2-sha256 values become l=64; pbkdf2 is SHA-1; both verify with the service verifier', async () => {
    const rhsso = map(user({ credentials: [credential({ value: RHSSO_64, salt: SALT }, { hashIterations: 27500, algorithm: 'pbkdf2-sha256' })] }));
    const hash = rhsso.user!.loginMethods[0].passwordHash!;
    expect([hash, rhsso.user!.loginMethods[0].hashingAlgorithm]).toEqual([`$pbkdf2-sha256$i=27500,l=64$${SALT}$${RHSSO_64}`, 'pbkdf2']);
    expect(await verifyPassword('rhsso-Keycloak-64', hash, {})).toBe(true);
    expect(await verifyPassword('rhsso-Keycloak-6', hash, {})).toBe(false);
    const sha1 = convertKeycloakCredential(credential({ value: SHA1_64, salt: SALT }, { hashIterations: 20000, algorithm: 'pbkdf2' }));
    expect(sha1).toEqual({ passwordHash: `$pbkdf2-sha1$i=20000,l=64$${SALT}$${SHA1_64}`, hashingAlgorithm: 'pbkdf2' });
    expect(await verifyPassword('legacy-Keycloak-sha1', (sha1 as { passwordHash: string }).passwordHash, {})).toBe(true);
  });

  it('Argon2i version 1.0 becomes the reference CLI string, unpadded, and verifies', async () => {
    const converted = convertKeycloakCredential(argon2i);
    expect(converted).toEqual({ passwordHash: ARGON2I_PHC, hashingAlgorithm: 'argon2' });
    expect(await verifyPassword('dave-Keycloak-Argon2i', ARGON2I_PHC, {})).toBe(true);
  });

  it('legacy credentials (hashedSaltedValue, salt, hashIterations, algorithm on the credential) are read too', () => {
    const legacy = { type: 'password', hashedSaltedValue: RHSSO_64, salt: SALT, hashIterations: 27500, algorithm: 'pbkdf2-sha256' };
    expect(convertKeycloakCredential(legacy)).toEqual({ passwordHash: `$pbkdf2-sha256$i=27500,l=64$${SALT}$${RHSSO_64}`, hashingAlgorithm: 'pbkdf2' });
  });

  it.each([
    [
      'another algorithm',
      credential({ value: RHSSO_64, salt: SALT }, { hashIterations: 1, algorithm: 'bcrypt' }),
      'its algorithm "bcrypt" is none the service checks',
    ],
    ['a value that is not base64', credential({ value: 'not base64!', salt: SALT }, { hashIterations: 1, algorithm: 'pbkdf2-sha256' }), 'value is not base64'],
    ['a salt the PHC form refuses', credential({ value: RHSSO_64, salt: '%%' }, { hashIterations: 1, algorithm: 'pbkdf2-sha512' }), 'is not a PBKDF2 hash'],
    ['no iterations', credential({ value: RHSSO_64, salt: SALT }, { algorithm: 'pbkdf2-sha256' }), 'has no value, salt or hashIterations'],
    ['argon2 without its parameters', credential({ value: RHSSO_64, salt: SALT }, { hashIterations: 3, algorithm: 'argon2' }), 'lacks a known type'],
    ['secretData that is not JSON', { ...argon2i, secretData: '{"value":' }, 'is not a JSON object'],
  ])('%s: hash-unsupported, the --no-hash mode, no secret in the warning', (_name, cred, why) => {
    const m = map(user({ credentials: [cred] }));
    expect(codes(m)).toEqual(['hash-unsupported', 'no-password-hash']);
    expect(m.warnings[0].text).toContain(why);
    expect(m.user?.loginMethods.map((lm) => lm.recipeId)).toEqual(['passwordless']);
    expect(JSON.stringify(m)).not.toContain(RHSSO_64);
    expect(JSON.stringify(m)).not.toContain(SALT);
  });

  it('an otp credential becomes a device whose key is the base32 of the raw secret; --mfa report only warns, the secret going nowhere', () => {
    const otp = credential({ value: 'JBSWY3DPEHPK3PXP' }, { subType: 'totp', digits: 6, period: 30, algorithm: 'HmacSHA1' }, 'otp');
    const m = map(user({ totp: true, credentials: [argon2i, otp] }));
    expect(codes(m)).toEqual([]);
    // Keycloak keys HMAC with the secret's UTF-8 bytes unless secretEncoding says BASE32.
    expect(m.user?.totpDevices).toEqual([{ secretKey: 'JJBFGV2ZGNCFARKIKBFTGUCYKA', period: 30, skew: 1 }]);
    expect(m.user?.loginMethods.map((lm) => lm.hashingAlgorithm)).toEqual(['argon2']);
    const reported = map(user({ totp: true, credentials: [argon2i, otp] }), { mfa: 'report' });
    expect([codes(reported), reported.user?.totpDevices]).toEqual([['mfa-not-migrated'], undefined]);
    expect(JSON.stringify(reported)).not.toContain('JBSWY3DPEHPK3PXP');
  });

  it("realm roles less Keycloak's own (default-roles-<realm> lower-cased); client roles are not mapped", () => {
    const raw = user({
      realmRoles: ['default-roles-demo', 'offline_access', 'uma_authorization', 'editor', 'default-roles-other'],
      clientRoles: { account: ['manage-account'] },
    });
    expect(map(raw, {}, 'Demo').user?.userRoles?.map((r) => r.role)).toEqual(['editor', 'default-roles-other']);
    // The realm's name unknown (written after its users): every default-roles-* is Keycloak's.
    expect(map(raw, {}, null).user?.userRoles?.map((r) => r.role)).toEqual(['editor']);
    expect(map(user({ realmRoles: ['default-roles-demo'] })).user?.userRoles).toBeUndefined();
  });

  it('metadata: username, firstName, lastName, then each attribute (one value a string, several an array)', () => {
    const m = map(user({ firstName: 'Erin', lastName: '', attributes: { locale: ['fr'], team: ['a', 'b'], none: [], username: ['other'] } }));
    expect(m.user?.userMetadata).toEqual({ username: 'erin', firstName: 'Erin', locale: 'fr', team: ['a', 'b'] });
    expect(codes(m)).toEqual(['no-password-hash', 'metadata-key-clash']);
  });
});

describe('files that are not a Keycloak export: refused in one sentence naming the file', () => {
  const django = [{ model: 'auth.user', pk: 1, fields: { username: 'amy', password: 'pbkdf2_sha256$1$a$b', email: 'amy@example.com' } }];
  it.each([
    ['a Django dumpdata file', JSON.stringify(django), 'it is a JSON array'],
    ['a Firebase auth:export file', '{"users":[{"localId":"x","email":"a@example.com"}]}', 'it has no top-level "realm" (only users)'],
    ['users that are not an array', '{"realm":"demo","users":{}}', 'its "users" is not an array'],
    ['a realm file cut short', readFileSync(REALM_FILE, 'utf8').slice(0, 1500), 'it is not readable JSON'],
    ['an empty file', '', 'it is not readable JSON'],
  ])('%s', async (_name, body, sentence) => {
    const file = written('wrong.json', body);
    const err = await plan(source(file)).catch((e: Error) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toContain(
      `${file} is not a Keycloak export (kc.sh export: a realm file with users, a <realm>-users-<n>.json file, or their folder): ${sentence}`,
    );
    expect((err as Error).message).not.toContain('EUII+oGlCzRGWsxycCbdjKdreC2uTo2lk');
  });

  it('a folder with one file that is not an export is refused by that file', async () => {
    const dir = join(scratch, 'mixed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'demo-users-0.json'), JSON.stringify({ realm: 'demo', users: realm.users }));
    writeFileSync(join(dir, 'package.json'), '{"name":"x"}');
    await expect(plan(source(dir))).rejects.toThrow(`${join(dir, 'package.json')} is not a Keycloak export`);
  });
});
