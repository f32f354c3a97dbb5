import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DEFAULT_PASSWORD_LIMITS, validateImportedHash, verifyPassword } from '../../lib/password';
import { UsageError } from '../../lib/migrate/errors';
import type { Companions, MapOptions, MappedUser, Source } from '../../lib/migrate/model';
import { SOURCES } from '../../lib/migrate/sources';
import { FAMILY_VECTORS } from '../fixtures/hash-family-vectors';
import { expectedSet, loginMethodView, MIGRATION_FIXTURES, plan, type Planned } from '../support/migration';
import { scratchDir } from '../support/scratch';

/**
 * The Django source (SPEC §17b) against the dump Django itself wrote (`manage.py dumpdata
 * auth.group auth.user`, test/fixtures/migration/django): every user as expected.json says, each
 * Django hasher (vectors Django 5.2 made), `--groups` and `--natural-foreign` group names,
 * `--assume-verified`, every skip reason, and files that are no dump (exit 2 before any write).
 */
const DJANGO = join(MIGRATION_FIXTURES, 'django');
const DUMP = join(DJANGO, 'auth.json');
const SET = expectedSet(DJANGO);
const RECORDS: { model: string; pk?: number; fields: Record<string, unknown> }[] = JSON.parse(readFileSync(DUMP, 'utf8'));
const scratch = scratchDir('migrate-django-');
const DEFAULTS: MapOptions = { tenant: 'public', noHash: 'passwordless', includeDisabled: false };
const VALIDATION = { limits: DEFAULT_PASSWORD_LIMITS, signerKeyConfigured: false };
/** expected.json's `hashFamily` (Django's hasher) → the `hashingAlgorithm` SPEC §7b gives its family. */
const ALGORITHM_OF: Record<string, string> = { pbkdf2_sha256: 'pbkdf2', argon2: 'argon2', bcrypt_sha256: 'bcrypt_sha256' };

const django = SOURCES.find((s) => s.name === 'django')!;
const open = (file: string, opts: Partial<MapOptions> = {}, companions: Companions = {}): Promise<Source> =>
  django.open(file, { ...DEFAULTS, ...opts }, companions);
const written = (name: string, body: string | Buffer): string => {
  const file = join(scratch, name);
  writeFileSync(file, body);
  return file;
};
const dumpOf = (name: string, records: unknown[]): string => written(name, JSON.stringify(records, null, 2));
const planned = async (file: string, opts: Partial<MapOptions> = {}, companions: Companions = {}): Promise<Planned[]> =>
  (await plan(await open(file, opts, companions))).users;
const byId = (users: Planned[], sourceId: string): Planned => users.find((u) => u.mapped.sourceId === sourceId)!;

/** One auth.user record as dumpdata writes it; `fields` overrides. */
const userRecord = (pk: number, fields: Record<string, unknown> = {}) => ({
  model: 'auth.user',
  pk,
  fields: {
    password: '',
    last_login: null,
    is_superuser: false,
    username: `u${pk}`,
    first_name: '',
    last_name: '',
    email: `u${pk}@dj-test.example`,
    is_staff: false,
    is_active: true,
    date_joined: '2024-01-02T03:04:05Z',
    groups: [],
    user_permissions: [],
    ...fields,
  },
});
const mapOne = async (fields: Record<string, unknown>, opts: Partial<MapOptions> = {}): Promise<Planned> =>
  (await planned(dumpOf(`one-${Math.random().toString(16).slice(2)}.json`, [userRecord(7, fields)]), opts))[0];
const passwordMethod = (m: MappedUser) => m.user!.loginMethods.find((lm) => lm.passwordHash !== undefined)!;

describe('the fixture (manage.py dumpdata auth.group auth.user, Django 3.2)', () => {
  it('plans every user as expected.json says; each password verifies against the hash sent, which the import accepts', async () => {
    const source = await open(DUMP);
    expect(source.createsRoles).toBe(true);
    const users = (await plan(source)).users;
    expect(users.map((u) => u.mapped.sourceId).sort()).toEqual(SET.users.map((u) => u.sourceId).sort());
    const summary = { total: users.length, imported: 0, skipped: 0, failed: 0 };
    for (const u of users) summary[u.outcome]++;
    expect(summary).toEqual(SET.summary);
    for (const want of SET.users as ((typeof SET.users)[number] & { hashFamily?: string; warnings?: unknown[] })[]) {
      const got = byId(users, want.sourceId);
      const where = want.label;
      expect([where, got.outcome, got.reasonCode, got.mapped.createdAt]).toEqual([where, want.outcome, want.reasonCode, want.timeJoined]);
      const warnings = (want.warnings ?? []).map((w) => (typeof w === 'string' ? w : (w as { code: string }).code));
      expect([where, got.mapped.warnings.map((w) => w.code)]).toEqual([where, warnings]);
      if (want.outcome !== 'imported') continue;
      const user = got.mapped.user!;
      const methods = user.loginMethods;
      const views = methods.map((lm) => {
        const { hashingAlgorithm: _, ...view } = loginMethodView(lm, methods.length > 1);
        return view;
      });
      expect([where, views]).toEqual([where, want.loginMethods]);
      for (const lm of methods) expect([where, lm.tenantIds, lm.timeJoinedInMSSinceEpoch]).toEqual([where, ['public'], want.timeJoined]);
      expect([where, user.externalUserId, user.userMetadata, user.userRoles?.map((r) => r.role)]).toEqual([where, want.sourceId, want.metadata, want.roles]);
      if (want.password === undefined) {
        expect([where, methods.some((lm) => lm.passwordHash !== undefined)]).toEqual([where, false]);
        continue;
      }
      const lm = passwordMethod(got.mapped);
      expect([where, lm.hashingAlgorithm]).toEqual([where, ALGORITHM_OF[want.hashFamily!]]);
      expect([where, validateImportedHash(lm.passwordHash!, lm.hashingAlgorithm, VALIDATION)]).toEqual([
        where,
        { ok: true, algorithm: lm.hashingAlgorithm, stored: lm.passwordHash },
      ]);
      expect([where, await verifyPassword(want.password, lm.passwordHash!, {})]).toEqual([where, true]);
      expect([where, await verifyPassword(`${want.password}x`, lm.passwordHash!, {})]).toEqual([where, false]);
    }
    const roles = new Set(users.flatMap((u) => u.mapped.user?.userRoles?.map((r) => r.role) ?? []));
    expect([...roles]).toEqual(SET.rolesToCreate);
  });

  it('--assume-verified marks every email verified; without it none is', async () => {
    const flags = async (companions: Companions) =>
      (await planned(DUMP, {}, companions)).flatMap((u) => u.mapped.user?.loginMethods.map((lm) => lm.isVerified) ?? []);
    expect(await flags({})).toEqual([false, false, false, false]);
    expect(await flags({ assumeVerified: true })).toEqual([true, true, true, true]);
  });

  it('the options that change a user: --include-disabled, --no-hash skip, --no-hash migrate-on-signin', async () => {
    const included = byId(await planned(DUMP, { includeDisabled: true }), '5');
    expect(included.outcome).toBe('imported');
    expect(included.mapped.user?.userMetadata).toEqual({ username: 'erin', disabled: true });
    expect(passwordMethod(included.mapped)).toMatchObject({ email: 'erin@dj-demo.example', hashingAlgorithm: 'pbkdf2' });

    const skipped = byId(await planned(DUMP, { noHash: 'skip' }), '4');
    expect([skipped.outcome, skipped.reasonCode, skipped.needsAction]).toEqual(['skipped', 'no-password-hash', false]);

    const onSignIn = byId(await planned(DUMP, { noHash: 'migrate-on-signin' }), '4');
    expect(onSignIn.mapped.user?.loginMethods).toEqual([expect.objectContaining({ recipeId: 'emailpassword', migratePasswordOnSignIn: true })]);
  });

  it('reads the same users from dumpdata --format jsonl, and from a gzipped dump (-o auth.json.gz)', async () => {
    const rolesOf = (users: Planned[]) => users.map((u) => [u.mapped.sourceId, u.outcome, u.mapped.user?.userRoles?.map((r) => r.role)]);
    const want = rolesOf(await planned(DUMP));
    const jsonl = written('auth.jsonl', RECORDS.map((r) => JSON.stringify(r)).join('\n') + '\n');
    expect(rolesOf(await planned(jsonl))).toEqual(want);
    expect(rolesOf(await planned(written('auth.json.gz', gzipSync(readFileSync(DUMP)))))).toEqual(want);
  });
});

describe('groups → roles', () => {
  const groups = RECORDS.filter((r) => r.model === 'auth.group');
  const users = RECORDS.filter((r) => r.model === 'auth.user');
  const rolesOfAlice = async (file: string, companions: Companions = {}) => byId(await planned(file, {}, companions), '1').mapped.user?.userRoles;

  it('auth.group records after the users in the dump', async () => {
    expect(await rolesOfAlice(dumpOf('groups-last.json', [...users, ...groups]))).toEqual([{ role: 'staff-team', tenantIds: ['public'] }]);
  });

  it('a dumpdata auth.group file given with --groups, the users dumped alone', async () => {
    const usersOnly = dumpOf('users-only.json', users);
    const groupsFile = dumpOf('groups.json', groups);
    expect(await rolesOfAlice(usersOnly, { groups: groupsFile })).toEqual([{ role: 'staff-team', tenantIds: ['public'] }]);
    // Renamed in Django between the two dumps: the same id with two names is refused.
    const renamed = dumpOf('groups-renamed.json', [{ ...groups[0], fields: { ...groups[0].fields, name: 'staff' } }]);
    await expect(open(DUMP, {}, { groups: renamed })).rejects.toThrow(/group 1 is named both "staff" and "staff-team"/);
  });

  it('a user in a group no file names: exit 2 before anything is read as users', async () => {
    const usersOnly = dumpOf('users-alone.json', users);
    await expect(open(usersOnly)).rejects.toThrow(UsageError);
    await expect(open(usersOnly)).rejects.toThrow(`${usersOnly}: user 1 is in group 1 but the dump holds no auth.group record of that id`);
  });

  it('--natural-foreign: groups named by their natural key ["<name>"], no auth.group record needed', async () => {
    const natural = dumpOf('natural.json', [userRecord(8, { groups: [['editors'], ['staff-team']] })]);
    expect((await planned(natural))[0].mapped.user?.userRoles?.map((r) => r.role)).toEqual(['editors', 'staff-team']);
  });

  it('--groups must hold auth.group records; --natural-primary users (no pk) are refused', async () => {
    const notGroups = dumpOf('not-groups.json', users);
    await expect(open(DUMP, {}, { groups: notGroups })).rejects.toThrow(`--groups ${notGroups} holds no auth.group record (only auth.user)`);
    const { pk: _, ...noPk } = userRecord(9);
    const naturalPrimary = dumpOf('natural-primary.json', [noPk]);
    await expect(open(naturalPrimary)).rejects.toThrow(/record 1 \(auth\.user\) has no pk.*--natural-primary/);
  });
});

describe('each Django hasher', () => {
  const vectors = FAMILY_VECTORS.filter((v) => v.form.startsWith('django_'));

  it.each(vectors.map((v) => [v.form, v] as const))('%s: sent in its §7b form with its family; the password verifies', async (_format, v) => {
    const got = await mapOne({ password: v.hash });
    const lm = passwordMethod(got.mapped);
    const algorithm = v.family ?? (v.hash.startsWith('argon2$') ? 'argon2' : 'bcrypt');
    expect(lm.hashingAlgorithm).toBe(algorithm);
    // The tag Django puts before a standard hash goes; the rest is sent as Django wrote it.
    expect(lm.passwordHash).toBe(v.family === null ? /\$(?:argon2id|2b)\$.*$/.exec(v.hash)![0] : v.hash);
    expect(validateImportedHash(lm.passwordHash!, algorithm, VALIDATION)).toMatchObject({ ok: true });
    expect(await verifyPassword(v.password, lm.passwordHash!, {})).toBe(true);
  });

  it('bcrypt$2a$… (one $ after the tag) is the same bcrypt hash', async () => {
    const v = vectors.find((x) => x.form === 'django_bcrypt_prefixed')!;
    const lm = passwordMethod((await mapOne({ password: v.hash.replace('bcrypt$$', 'bcrypt$') })).mapped);
    expect([lm.hashingAlgorithm, lm.passwordHash]).toEqual(['bcrypt', v.hash.slice('bcrypt$'.length)]);
    expect(await verifyPassword(v.password, lm.passwordHash!, {})).toBe(true);
  });

  it('the vectors cover pbkdf2_sha256, pbkdf2_sha1, scrypt, bcrypt_sha256, argon2 and bcrypt', () => {
    const hashers = new Set(vectors.map((v) => v.hash.slice(0, v.hash.indexOf('$'))));
    expect([...hashers].sort()).toEqual(['argon2', 'bcrypt', 'bcrypt_sha256', 'pbkdf2_sha1', 'pbkdf2_sha256', 'scrypt']);
  });

  it.each([
    ['md5', 'md5$c2FsdA$5f4dcc3b5aa765d61d8327deb882cf99'],
    ['sha1', 'sha1$c2FsdA$5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8'],
    ['unsalted_md5', '5f4dcc3b5aa765d61d8327deb882cf99'],
    ['unsalted_md5', 'md5$$5f4dcc3b5aa765d61d8327deb882cf99'],
    ['unsalted_sha1', 'sha1$$5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8'],
    ['crypt', 'crypt$$abN0lc0k.JAfw'],
    ['my_hasher', 'my_hasher$1$c2FsdA$aGFzaA'],
  ])('%s: hash-unsupported, never sent; the user gets the --no-hash mode', async (hasher, hash) => {
    const got = await mapOne({ password: hash });
    expect(got.mapped.warnings.map((w) => w.code)).toEqual(['hash-unsupported', 'no-password-hash']);
    expect(got.mapped.warnings[0].text).toContain(`Django's ${hasher} hasher`);
    expect(got.mapped.user?.loginMethods).toEqual([expect.objectContaining({ recipeId: 'passwordless', email: 'u7@dj-test.example' })]);
    expect(JSON.stringify(got.mapped)).not.toContain(hash.slice(-12));
    expect((await mapOne({ password: hash }, { noHash: 'skip' })).reasonCode).toBe('no-password-hash');
  });

  it('a password of no hasher Django names is hash-unsupported too, the warning naming none of it', async () => {
    const got = await mapOne({ password: 'c2VjcmV0LWhhc2g=' });
    expect(got.mapped.warnings.map((w) => w.code)).toEqual(['hash-unsupported', 'no-password-hash']);
    expect(got.mapped.warnings[0].text).toContain('of no hasher Django names');
    expect(JSON.stringify(got.mapped)).not.toContain('c2VjcmV0');
  });

  it('an unusable password (!…) and an empty one are no hash: the --no-hash mode, nothing sent', async () => {
    for (const password of ['!0eoo0CX1OdbwnnopY6DLQsVG1ePgy36cIMla2Y9I', '']) {
      const got = await mapOne({ password });
      expect(got.mapped.warnings.map((w) => w.code)).toEqual(['no-password-hash']);
      expect(got.mapped.user?.loginMethods).toEqual([
        {
          recipeId: 'passwordless',
          tenantIds: ['public'],
          isVerified: false,
          email: 'u7@dj-test.example',
          timeJoinedInMSSinceEpoch: Date.UTC(2024, 0, 2, 3, 4, 5),
        },
      ]);
    }
  });
});

describe('users the fixture does not hold', () => {
  it('no email: skipped no-email; an email that is none needs action; inactive wins over both', async () => {
    expect(await mapOne({ email: '' })).toMatchObject({ outcome: 'skipped', reasonCode: 'no-email', needsAction: false });
    expect(await mapOne({ email: 'not an address' })).toMatchObject({ outcome: 'skipped', reasonCode: 'no-email', needsAction: true });
    expect(await mapOne({ email: '', is_active: false })).toMatchObject({ outcome: 'skipped', reasonCode: 'disabled' });
    expect((await mapOne({ email: '  Zed@DJ-Test.Example ' })).mapped.user?.loginMethods[0].email).toBe('zed@dj-test.example');
  });

  it('date_joined with Z, an offset, naive (UTC), with or without milliseconds; a bad one is the import time with a warning', async () => {
    const at = async (date_joined: string) => (await mapOne({ date_joined })).mapped.createdAt;
    expect(await at('2021-01-02T03:04:05.678Z')).toBe(Date.UTC(2021, 0, 2, 3, 4, 5, 678));
    expect(await at('2021-01-02T08:34:05.678+05:30')).toBe(Date.UTC(2021, 0, 2, 3, 4, 5, 678));
    expect(await at('2021-01-01T22:04:05-05:00')).toBe(Date.UTC(2021, 0, 2, 3, 4, 5));
    expect(await at('2021-01-02T03:04:05.678')).toBe(Date.UTC(2021, 0, 2, 3, 4, 5, 678));
    const bad = await mapOne({ date_joined: 'yesterday' });
    expect([bad.outcome, bad.mapped.createdAt, bad.mapped.warnings.map((w) => w.code)]).toEqual([
      'imported',
      undefined,
      ['bad-created-at', 'no-password-hash'],
    ]);
  });

  it('metadata: username, first_name, last_name when not empty; is_staff and is_superuser are not carried', async () => {
    const got = await mapOne({ username: 'zed', first_name: 'Zed', last_name: 'Zulu', is_staff: true, is_superuser: true });
    expect(got.mapped.user?.userMetadata).toEqual({ username: 'zed', first_name: 'Zed', last_name: 'Zulu' });
  });
});

describe('a file that is not a dumpdata export of auth.user: exit 2, nothing read as users', () => {
  const refused = async (file: string, message: string | RegExp) => {
    const err = await open(file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toEqual(expect.stringContaining(file));
    expect((err as Error).message).toMatch(message);
  };

  it('a Keycloak realm file, a Supabase auth.users export, an empty file', async () => {
    const realm = written(
      'demo-realm.json',
      JSON.stringify({ realm: 'demo', enabled: true, users: [{ id: 'x', username: 'kc', email: 'kc@x.example' }] }, null, 2),
    );
    await refused(realm, 'it is a JSON object with realm, enabled, users, not a list of {"model", "pk", "fields"} records');
    await refused(join(MIGRATION_FIXTURES, 'supabase', 'users.ndjson'), /not a Django dumpdata file .*: it is a JSON object with instance_id, /);
    await refused(
      written('users.json', JSON.stringify([{ id: 1, email: 'a@x.example' }])),
      'record 1 is an object with id, email, not a {"model", "pk", "fields"} record',
    );
    await refused(written('empty.json', ''), 'it is empty');
    await refused(written('users.csv', 'id,email\n1,a@x.example\n'), 'it is not JSON');
  });

  it('a dump of another model, a dump of the groups only, an auth.user record without its fields', async () => {
    const other = dumpOf('contenttypes.json', [{ model: 'contenttypes.contenttype', pk: 1, fields: { app_label: 'auth', model: 'user' } }]);
    await refused(other, 'holds no auth.user record (only contenttypes.contenttype)');
    const custom = dumpOf('accounts.json', [{ ...userRecord(1), model: 'accounts.user' }]);
    await refused(custom, /only accounts\.user\).*custom AUTH_USER_MODEL/);
    const groupsOnly = dumpOf(
      'groups-only.json',
      RECORDS.filter((r) => r.model === 'auth.group'),
    );
    await refused(groupsOnly, 'give the auth.group dump with --groups');
    const { email: _, ...noEmail } = userRecord(3).fields;
    await refused(dumpOf('no-email-field.json', [{ model: 'auth.user', pk: 3, fields: noEmail }]), 'record 1 (auth.user) has no email');
  });

  it('a dump cut short, and one with a stray character: broken JSON', async () => {
    const text = readFileSync(DUMP, 'utf8');
    await refused(written('cut.json', text.slice(0, Math.floor(text.length * 0.6))), /not a Django dumpdata file .*: its JSON breaks after record 3 \(/);
    await refused(written('stray.json', text.replace('"pk": 3,', '"pk": 3,,')), /not a Django dumpdata file/);
  });

  it('an empty dump is zero users, not an error, with or without --groups', async () => {
    const nothing = dumpOf('nothing.json', []);
    expect(await planned(nothing)).toEqual([]);
    const groupsFile = dumpOf(
      'groups-beside-nothing.json',
      RECORDS.filter((r) => r.model === 'auth.group'),
    );
    expect(await planned(nothing, {}, { groups: groupsFile })).toEqual([]);
  });
});
