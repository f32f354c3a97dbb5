import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../lib/migrate/errors';
import type { MapOptions } from '../../lib/migrate/model';
import { mapWordPressUser, registeredAt, wordpressSource } from '../../lib/migrate/sources/wordpress';
import { checkPlanAgainst, expectedSet, MIGRATION_FIXTURES, plan } from '../support/migration';
import { scratchDir } from '../support/scratch';

/**
 * The WordPress source (SPEC §17b) against the shared fixture (`wp_users` as CSV with its header,
 * hashes made by passlib and by WordPress 6.8's own code), and rows the fixture does not hold.
 */
const WORDPRESS = join(MIGRATION_FIXTURES, 'wordpress');
const CSV = join(WORDPRESS, 'wp_users.csv');
const scratch = scratchDir('migrate-wordpress-');
const DEFAULTS: MapOptions = { tenant: 'public', noHash: 'passwordless', includeDisabled: false };
const source = (file: string, opts: Partial<MapOptions> = {}, assumeVerified = false) =>
  wordpressSource(file, { opts: { ...DEFAULTS, ...opts }, assumeVerified });
const written = (name: string, body: string): string => {
  const file = join(scratch, name);
  writeFileSync(file, body);
  return file;
};
const lines = readFileSync(CSV, 'utf8').trimEnd().split('\n');
const byId = async (file: string, opts: Partial<MapOptions> = {}, assumeVerified = false) =>
  Object.fromEntries((await plan(source(file, opts, assumeVerified))).users.map((u) => [u.mapped.sourceId, u]));

describe('the WordPress source against the fixture (wp_users.csv)', () => {
  it('plans every user as expected.json says; both hash forms go as wordpress and verify', async () => {
    const { users } = await plan(source(CSV));
    await checkPlanAgainst(users, expectedSet(WORDPRESS));
  });

  it('--assume-verified marks every email verified; nothing else changes', async () => {
    const plain = await byId(CSV);
    const verified = await byId(CSV, {}, true);
    for (const [id, u] of Object.entries(verified)) {
      expect(u.mapped.user!.loginMethods.map((lm) => lm.isVerified)).toEqual([true]);
      expect(u.mapped.user!.loginMethods.map(({ isVerified: _v, ...lm }) => lm)).toEqual(
        plain[id].mapped.user!.loginMethods.map(({ isVerified: _v, ...lm }) => lm),
      );
    }
  });

  it('the bare MD5 user takes the --no-hash mode: skipped with skip, to migrate at sign-in with migrate-on-signin; never shown', async () => {
    const skip = await byId(CSV, { noHash: 'skip' });
    expect([skip['3'].outcome, skip['3'].reasonCode]).toEqual(['skipped', 'no-password-hash']);
    expect(skip['3'].mapped.notImported?.reason).toContain('bare MD5');
    const onSignIn = await byId(CSV, { noHash: 'migrate-on-signin' });
    expect(onSignIn['3'].mapped.user!.loginMethods).toEqual([
      expect.objectContaining({ recipeId: 'emailpassword', email: 'carol@wp-demo.example', migratePasswordOnSignIn: true }),
    ]);
    expect(onSignIn['3'].mapped.user!.loginMethods[0].passwordHash).toBeUndefined();
    expect(onSignIn['3'].mapped.warnings.map((w) => w.code)).toEqual(['hash-unsupported']);
    const md5 = lines[3].split(',')[2];
    expect(JSON.stringify([skip, onSignIn])).not.toContain(md5);
  });

  it('any column order, any table prefix, as phpMyAdmin writes it (every cell quoted, CRLF, a byte-order mark)', async () => {
    const rows = lines.map((l) => l.split(','));
    const order = rows[0].map((_, i) => i).reverse();
    const quoted = rows.map((r) => order.map((i) => `"${r[i]}"`).join(',')).join('\r\n');
    const file = written('blog7_users.csv', `\uFEFF${quoted}\r\n`);
    const { users } = await plan(source(file));
    await checkPlanAgainst(users, expectedSet(WORDPRESS));
  });

  it('a row with the wrong number of cells fails alone, named by its row and its first cell; reading goes on', async () => {
    const broken = [...lines];
    broken[2] = '2,bob,x';
    const { users } = await plan(source(written('short-row.csv', broken.join('\n'))));
    expect(users.map((u) => [u.mapped.sourceId, u.outcome, u.reasonCode])).toEqual([
      ['1', 'imported', undefined],
      ['2', 'failed', 'row-unreadable'],
      ['3', 'imported', undefined],
    ]);
    expect(users[1].mapped.notImported?.reason).toBe('row 3: 3 columns, expected 10');
    expect(users[1].needsAction).toBe(true);
  });

  describe('rows the fixture does not hold', () => {
    const base = {
      ID: '42',
      user_login: 'dave',
      user_pass: '',
      user_nicename: 'dave',
      user_email: ' Dave@WP-Demo.example',
      user_url: 'https://dave.example',
      user_registered: '2020-02-29 23:59:59',
      user_activation_key: '',
      user_status: '0',
      display_name: 'Dave D',
    };
    const map = (raw: Record<string, unknown>, opts: Partial<MapOptions> = {}) =>
      mapWordPressUser(raw, { opts: { ...DEFAULTS, ...opts }, assumeVerified: false }, 'row 2');
    const methods = (m: ReturnType<typeof map>) => m.user?.loginMethods.map((lm) => [lm.recipeId, lm.email, lm.hashingAlgorithm]);
    const codes = (m: ReturnType<typeof map>) => m.warnings.map((w) => w.code);

    it('the id becomes text, the email is normalised, user_url and display_name go to the metadata', () => {
      const m = map(base);
      expect([m.sourceId, m.user?.externalUserId]).toEqual(['42', '42']);
      expect(methods(m)).toEqual([['passwordless', 'dave@wp-demo.example', undefined]]);
      expect(m.user?.userMetadata).toEqual({ username: 'dave', display_name: 'Dave D', url: 'https://dave.example' });
      expect(codes(m)).toEqual(['no-password-hash']);
    });

    it.each([
      ['phpass $P$ (WordPress ≤ 6.7)', '$P$BMMPdLOObzh2Xxi2QtkLqhkBOCDBiy1', 'wordpress'],
      ['$wp$2y$ (WordPress ≥ 6.8)', '$wp$2y$10$cEo1CM8brxHihyqTm69upOjjFT6Zt.pmnIfhWNzqpE5hO9yza3nA6', 'wordpress'],
      ["phpass's $H$", '$H$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0', 'phpass'],
      ['plain bcrypt (a bcrypt plugin)', '$2y$10$.nPgHCdS5TH1UJSQ.V7ZgOsNaZ/SyOW/DlnP/TMtX0X5oZY0MGi36', 'bcrypt'],
    ])('%s goes as is', (_name, hash, algorithm) => {
      const m = map({ ...base, user_pass: hash });
      expect(m.user?.loginMethods).toEqual([expect.objectContaining({ recipeId: 'emailpassword', passwordHash: hash, hashingAlgorithm: algorithm })]);
      expect(codes(m)).toEqual([]);
    });

    it.each([
      ['a bare MD5 digest', '5f4dcc3b5aa765d61d8327deb882cf99', 'bare MD5'],
      ['any other string', '{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=', 'no form WordPress writes'],
    ])('%s is hash-unsupported, never shown: the user is passwordless', (_name, hash, why) => {
      const m = map({ ...base, user_pass: hash });
      expect(methods(m)).toEqual([['passwordless', 'dave@wp-demo.example', undefined]]);
      expect(m.warnings).toEqual([{ code: 'hash-unsupported', text: expect.stringContaining(why) }]);
      expect(JSON.stringify(m)).not.toContain(hash);
    });

    it('user_registered is UTC; MySQL zero dates and impossible dates are the import time, with a warning', () => {
      expect(registeredAt('2020-02-29 23:59:59')).toBe(Date.UTC(2020, 1, 29, 23, 59, 59));
      expect(map(base).createdAt).toBe(Date.UTC(2020, 1, 29, 23, 59, 59));
      for (const bad of ['0000-00-00 00:00:00', '2019-02-29 00:00:00', '2020-01-01T00:00:00Z', '']) {
        const m = map({ ...base, user_registered: bad });
        expect([bad, m.createdAt, m.user?.loginMethods[0].timeJoinedInMSSinceEpoch, codes(m)]).toEqual([
          bad,
          undefined,
          undefined,
          ['bad-created-at', 'no-password-hash'],
        ]);
      }
    });

    it('no email, an email that is not one, multisite deleted and spam: skipped by their reason', () => {
      expect(map({ ...base, user_email: '' }).notImported).toMatchObject({ outcome: 'skipped', code: 'no-email', needsAction: false });
      expect(map({ ...base, user_email: 'dave at home' }).notImported).toMatchObject({ outcome: 'skipped', code: 'no-email', needsAction: true });
      expect(map({ ...base, deleted: '1', spam: '0' }).notImported).toMatchObject({ outcome: 'skipped', code: 'deleted' });
      expect(map({ ...base, deleted: '0', spam: '1' }).notImported).toMatchObject({ outcome: 'skipped', code: 'disabled' });
      expect(map({ ...base, deleted: '0', spam: '1' }, { includeDisabled: true }).user?.userMetadata).toMatchObject({ disabled: true });
      expect(map({ ...base, deleted: '0', spam: '0' }).user).toBeDefined();
    });

    it('an ID that is no number fails the row', () => {
      expect(map({ ...base, ID: 'x7' })).toMatchObject({ sourceId: 'x7', notImported: { outcome: 'failed', code: 'row-unreadable' } });
    });
  });

  describe('files that are not a wp_users export: refused in one sentence naming the file', () => {
    it.each([
      [
        'the Clerk export',
        readFileSync(join(MIGRATION_FIXTURES, 'clerk', 'clerk-users.csv'), 'utf8'),
        'its header row has no column ID, user_login, user_pass, user_email, user_registered',
      ],
      [
        "Supabase's auth.users as psql CSV",
        'id,email,encrypted_password,created_at\nb2,amy@sb-demo.example,,2023-01-02 03:04:05+00\n',
        'its header row has no column ID, user_login, user_pass, user_email, user_registered',
      ],
      ['the table without its header row', `${lines.slice(1).join('\n')}\n`, 'its header row has no column ID'],
      ['a CSV cut short inside a quoted cell', `${lines.join('\n')}\n4,"dan,$P$B`, 'it is cut short (a quoted cell never ends)'],
      ['an empty file', '', 'it is empty'],
    ])('%s', async (_name, body, sentence) => {
      const file = written('wrong.csv', body);
      const err = await plan(source(file)).catch((e: Error) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toContain(`${file} is not a wp_users export`);
      expect((err as Error).message).toContain(sentence);
    });
  });
});
