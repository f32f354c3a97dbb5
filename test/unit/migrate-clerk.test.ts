import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../lib/migrate/errors';
import type { MapOptions } from '../../lib/migrate/model';
import { clerkSource, ksuidTime, mapClerkUser } from '../../lib/migrate/sources/clerk';
import { checkPlanAgainst, expectedSet, MIGRATION_FIXTURES, plan } from '../support/migration';
import { scratchDir } from '../support/scratch';

/**
 * The Clerk source (SPEC §17b) against the shared fixture (the dashboard's CSV export, real KSUID
 * ids, a bcrypt digest), and rows the fixture does not hold: each password hasher, the KSUID time,
 * address lists, the skip reasons, files that are not the export.
 */
const CLERK = join(MIGRATION_FIXTURES, 'clerk');
const CSV = join(CLERK, 'clerk-users.csv');
const scratch = scratchDir('migrate-clerk-');
const DEFAULTS: MapOptions = { tenant: 'public', noHash: 'passwordless', includeDisabled: false };
const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const source = (file: string, opts: Partial<MapOptions> = {}) => clerkSource(file, { opts: { ...DEFAULTS, ...opts }, now: NOW });
const written = (name: string, body: string): string => {
  const file = join(scratch, name);
  writeFileSync(file, body);
  return file;
};
const lines = readFileSync(CSV, 'utf8').trimEnd().split('\n');

describe('the Clerk source against the fixture (clerk-users.csv)', () => {
  it('plans every user as expected.json says: times from the KSUIDs, the bcrypt password verifies', async () => {
    const { users } = await plan(source(CSV));
    await checkPlanAgainst(users, expectedSet(CLERK));
  });

  it('--no-hash skip skips the user without a password; the phone-only user stays', async () => {
    const { users } = await plan(source(CSV, { noHash: 'skip' }));
    expect(users.map((u) => [u.mapped.sourceId, u.outcome, u.reasonCode])).toEqual([
      ['user_2JhXHW53UjB3YrrjDZ2n0nS8PQ2', 'imported', undefined],
      ['user_2bn88TmWJ3dtdCRnJF0nrr7ocbG', 'skipped', 'no-password-hash'],
      ['user_25rE0i1lqVZjcSzwnbHRl2bPL8Z', 'imported', undefined],
    ]);
  });

  it('a row with the wrong number of cells fails alone, named by its row and its id; reading goes on', async () => {
    const broken = [...lines];
    broken[2] = 'user_2bn88TmWJ3dtdCRnJF0nrr7ocbG,,,,bea@ck-demo.example';
    const { users } = await plan(source(written('short-row.csv', broken.join('\n'))));
    expect(users.map((u) => [u.mapped.sourceId, u.outcome, u.reasonCode])).toEqual([
      ['user_2JhXHW53UjB3YrrjDZ2n0nS8PQ2', 'imported', undefined],
      ['user_2bn88TmWJ3dtdCRnJF0nrr7ocbG', 'failed', 'row-unreadable'],
      ['user_25rE0i1lqVZjcSzwnbHRl2bPL8Z', 'imported', undefined],
    ]);
    expect(users[1].mapped.notImported?.reason).toBe('row 3: 5 columns, expected 13');
  });

  describe('the creation time in the id (a KSUID)', () => {
    it("agrees with segmentio/ksuid's published vectors (README: ksuid -f inspect)", () => {
      // 0ujtsYcgvSTl8PAuAdqWYSMnLOv: Raw 0669F7EF…, Timestamp 107608047, Time 2017-10-09 21:00:47 -0700 PDT.
      expect(ksuidTime('user_0ujtsYcgvSTl8PAuAdqWYSMnLOv')).toBe(Date.UTC(2017, 9, 10, 4, 0, 47));
      expect(ksuidTime('user_0ujtsYcgvSTl8PAuAdqWYSMnLOv')).toBe((107608047 + 1_400_000_000) * 1000);
      // 0ujzPyRiIAffKhBux4PvQdDqMHY: Raw 066A029C…, Time 2017-10-09 21:46:20 -0700 PDT.
      expect(ksuidTime('user_0ujzPyRiIAffKhBux4PvQdDqMHY')).toBe(Date.UTC(2017, 9, 10, 4, 46, 20));
    });

    it('agrees with a computation of its own: the first 4 of the 20 bytes, by long division in base 256', () => {
      const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
      const bytes = (text: string): number[] => {
        let digits = [...text].map((c) => alphabet.indexOf(c));
        const out: number[] = [];
        while (digits.some((d) => d > 0)) {
          const quotient: number[] = [];
          let rest = 0;
          for (const d of digits) {
            const acc = rest * 62 + d;
            quotient.push(Math.floor(acc / 256));
            rest = acc % 256;
          }
          out.unshift(rest);
          digits = quotient;
        }
        return [...Array(20 - out.length).fill(0), ...out];
      };
      for (const line of lines.slice(1)) {
        const id = line.split(',')[0];
        const b = bytes(id.slice('user_'.length));
        const seconds = ((b[0] << 24) >>> 0) + (b[1] << 16) + (b[2] << 8) + b[3];
        expect([id, ksuidTime(id)]).toEqual([id, (seconds + 1_400_000_000) * 1000]);
      }
    });

    it.each([
      ['another prefix', 'org_2JhXHW53UjB3YrrjDZ2n0nS8PQ2'],
      ['26 characters', 'user_2JhXHW53UjB3YrrjDZ2n0nS8PQ'],
      ['a character outside base62', 'user_2JhXHW53UjB3YrrjDZ2n0nS8PQ-'],
      ['past 160 bits', 'user_zzzzzzzzzzzzzzzzzzzzzzzzzzz'],
      ['an id of an imported user', 'legacy-42'],
    ])('%s is no KSUID: the import time, with a warning', (_name, id) => {
      expect(ksuidTime(id)).toBeUndefined();
      const m = mapClerkUser({ id, primary_email_address: 'x@ck-demo.example' }, { opts: DEFAULTS, now: NOW }, 'row 2');
      expect([m.createdAt, m.user?.loginMethods[0].timeJoinedInMSSinceEpoch]).toEqual([NOW, NOW]);
      expect(m.warnings.map((w) => w.code)).toEqual(['bad-created-at', 'no-password-hash']);
    });
  });

  describe('rows the fixture does not hold', () => {
    const id = 'user_2JhXHW53UjB3YrrjDZ2n0nS8PQ2';
    const base = {
      id,
      first_name: 'Cy',
      last_name: 'Doe',
      username: 'cyd',
      primary_email_address: 'Cy@CK-demo.example',
      primary_phone_number: '',
      verified_email_addresses: 'cy@ck-demo.example',
      unverified_email_addresses: '',
      verified_phone_numbers: '',
      unverified_phone_numbers: '',
      totp_secret: '',
      password_digest: '',
      password_hasher: '',
    };
    const map = (raw: Record<string, unknown>, opts: Partial<MapOptions> = {}) => mapClerkUser(raw, { opts: { ...DEFAULTS, ...opts }, now: NOW }, 'row 2');
    const methods = (m: ReturnType<typeof map>) =>
      m.user?.loginMethods.map((lm) => [lm.recipeId, lm.email ?? lm.phoneNumber, lm.isVerified, lm.isPrimary, lm.hashingAlgorithm]);
    const codes = (m: ReturnType<typeof map>) => m.warnings.map((w) => w.code);

    it.each([
      ['bcrypt', '$2b$10$.nPgHCdS5TH1UJSQ.V7ZgOsNaZ/SyOW/DlnP/TMtX0X5oZY0MGi36', 'bcrypt'],
      ['argon2i', '$argon2i$v=19$m=4096,t=3,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA', 'argon2'],
      ['argon2id', '$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA', 'argon2'],
      ['bcrypt_sha256_django', 'bcrypt_sha256$$2b$09$hUaw7Lu886YKRVyBUOWNp.AuY1Xf1T2rSACm5PivJuOmh4Ito9KD2', 'bcrypt_sha256'],
      ['pbkdf2_sha256_django', 'pbkdf2_sha256$600000$xYRP9E9uOUSLiWbpsLOaDe$E8bw+zxN7sltEUON8mr+fD9R9v7eLeEgtEAtSqUG0FQ=', 'pbkdf2'],
      ['phpass', '$P$BMMPdLOObzh2Xxi2QtkLqhkBOCDBiy1', 'phpass'],
      ['scrypt_werkzeug', 'scrypt:32768:8:1$Ycskm37kqk7prmdS$4e88', 'werkzeug'],
      ['ldap_ssha', '{SSHA}7ZHFw90vjpE09R3tyoGcSv7LXLeKeRMs', 'ldap'],
      ['BCRYPT (any case)', '$2b$10$.nPgHCdS5TH1UJSQ.V7ZgOsNaZ/SyOW/DlnP/TMtX0X5oZY0MGi36', 'bcrypt'],
    ])('password_hasher %s: the digest as is, hashingAlgorithm of its family', (hasher, digest, family) => {
      const m = map({ ...base, password_digest: digest, password_hasher: hasher.split(' ')[0] });
      expect(m.user?.loginMethods).toEqual([
        expect.objectContaining({ recipeId: 'emailpassword', email: 'cy@ck-demo.example', isVerified: true, passwordHash: digest, hashingAlgorithm: family }),
      ]);
      expect(codes(m)).toEqual([]);
    });

    it.each([
      ['md5', '5f4dcc3b5aa765d61d8327deb882cf99'],
      ['sha256', '5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8'],
      [
        'scrypt_firebase',
        'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==$42xEC+ixf3L2lw==$Bw==$jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
      ],
      ['', '$2b$10$.nPgHCdS5TH1UJSQ.V7ZgOsNaZ/SyOW/DlnP/TMtX0X5oZY0MGi36'],
    ])('password_hasher "%s" is hash-unsupported (never shown): the --no-hash mode', (hasher, digest) => {
      const m = map({ ...base, password_digest: digest, password_hasher: hasher });
      expect(methods(m)).toEqual([['passwordless', 'cy@ck-demo.example', true, undefined, undefined]]);
      expect(codes(m)).toEqual(['hash-unsupported']);
      expect(JSON.stringify(m)).not.toContain(digest);
      const onSignIn = map({ ...base, password_digest: digest, password_hasher: hasher }, { noHash: 'migrate-on-signin' });
      expect(onSignIn.user?.loginMethods).toEqual([expect.objectContaining({ recipeId: 'emailpassword', migratePasswordOnSignIn: true })]);
      expect(map({ ...base, password_digest: digest, password_hasher: hasher }, { noHash: 'skip' }).notImported).toMatchObject({
        outcome: 'skipped',
        code: 'no-password-hash',
      });
    });

    it('the primary email carries the password; other verified addresses and phones sign in without one; unverified ones are dropped', () => {
      const m = map({
        ...base,
        password_digest: '$2b$10$.nPgHCdS5TH1UJSQ.V7ZgOsNaZ/SyOW/DlnP/TMtX0X5oZY0MGi36',
        password_hasher: 'bcrypt',
        verified_email_addresses: 'cy@ck-demo.example| Cy.Work@CK-demo.example ',
        unverified_email_addresses: 'cy.old@ck-demo.example',
        primary_phone_number: '+14155550144',
        verified_phone_numbers: '+14155550144|+14155550145',
        unverified_phone_numbers: '+14155550146',
      });
      expect(methods(m)).toEqual([
        ['emailpassword', 'cy@ck-demo.example', true, true, 'bcrypt'],
        ['passwordless', 'cy.work@ck-demo.example', true, false, undefined],
        ['passwordless', '+14155550144', true, false, undefined],
        ['passwordless', '+14155550145', true, false, undefined],
      ]);
      expect(m.user?.userMetadata).toEqual({ first_name: 'Cy', last_name: 'Doe', username: 'cyd' });
    });

    it('an unverified primary email and phone keep their flag; a phone-only user is passwordless by phone', () => {
      expect(methods(map({ ...base, verified_email_addresses: '' }))).toEqual([['passwordless', 'cy@ck-demo.example', false, undefined, undefined]]);
      const phoneOnly = map({ ...base, primary_email_address: '', verified_email_addresses: '', primary_phone_number: '+14155550144' });
      expect(methods(phoneOnly)).toEqual([['passwordless', '+14155550144', false, undefined, undefined]]);
      expect(codes(phoneOnly)).toEqual([]);
    });

    it('a password without a primary email is not imported, with a warning', () => {
      const m = map({
        ...base,
        primary_email_address: '',
        verified_email_addresses: '',
        primary_phone_number: '+14155550144',
        verified_phone_numbers: '+14155550144',
        password_digest: '$2b$10$.nPgHCdS5TH1UJSQ.V7ZgOsNaZ/SyOW/DlnP/TMtX0X5oZY0MGi36',
        password_hasher: 'bcrypt',
      });
      expect(methods(m)).toEqual([['passwordless', '+14155550144', true, undefined, undefined]]);
      expect(codes(m)).toEqual(['password-not-migrated']);
    });

    it('--no-hash skip with a phone beside: the email is dropped, the phone imported, with a warning', () => {
      const m = map({ ...base, primary_phone_number: '+14155550144' }, { noHash: 'skip' });
      expect(methods(m)).toEqual([['passwordless', '+14155550144', false, undefined, undefined]]);
      expect(codes(m)).toEqual(['no-password-hash']);
    });

    it('a TOTP secret becomes a verified device (normalised base32, 30 s, skew 1) and totp is required; --mfa report only warns, never showing it', () => {
      const m = map({ ...base, totp_secret: 'jbsw y3dp ehpk 3pxp====' });
      expect(m.user?.totpDevices).toEqual([{ secretKey: 'JBSWY3DPEHPK3PXP', period: 30, skew: 1 }]);
      expect(m.user?.userMetadata?._supertokens).toEqual({ requiredSecondaryFactors: ['totp'] });
      expect(codes(m)).toEqual(['no-password-hash']);
      const reported = map({ ...base, totp_secret: 'JBSWY3DPEHPK3PXP' }, { mfa: 'report' });
      expect(codes(reported)).toEqual(['no-password-hash', 'mfa-not-migrated']);
      expect([reported.user?.totpDevices, reported.user?.userMetadata?._supertokens]).toEqual([undefined, undefined]);
      expect(JSON.stringify(reported)).not.toContain('JBSWY3DPEHPK3PXP');
    });

    it('a totp_secret that is not base32 is mfa-not-migrated without quoting it; totp stays required', () => {
      const m = map({ ...base, totp_secret: 'not-base32-1890' });
      expect([codes(m), m.user?.totpDevices, m.user?.userMetadata?._supertokens]).toEqual([
        ['no-password-hash', 'mfa-not-migrated'],
        undefined,
        { requiredSecondaryFactors: ['totp'] },
      ]);
      expect(JSON.stringify(m.warnings)).not.toContain('not-base32-1890');
    });

    it('no email and no phone (or only unverified extra addresses) is skipped no-email; no id fails the row', () => {
      const none = { ...base, primary_email_address: '', verified_email_addresses: '', unverified_email_addresses: 'cy@ck-demo.example' };
      expect(map(none).notImported).toMatchObject({ outcome: 'skipped', code: 'no-email', needsAction: false });
      expect(map({ ...base, id: '' })).toMatchObject({ sourceId: '#row 2', notImported: { outcome: 'failed', code: 'row-unreadable' } });
    });
  });

  describe('files that are not a Clerk export: refused in one sentence naming the file', () => {
    it.each([
      [
        'the WordPress export',
        readFileSync(join(MIGRATION_FIXTURES, 'wordpress', 'wp_users.csv'), 'utf8'),
        'its header row has no column id, primary_email_address, primary_phone_number, verified_email_addresses',
      ],
      ['the export without its header row', `${lines.slice(1).join('\n')}\n`, 'its header row has no column id'],
      ['a CSV cut short inside a quoted cell', `${lines.join('\n')}\nuser_2x,"Dan`, 'it is cut short (a quoted cell never ends)'],
      ['an empty file', '', 'it is empty'],
    ])('%s', async (_name, body, sentence) => {
      const file = written('wrong.csv', body);
      const err = await plan(source(file)).catch((e: Error) => e);
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message).toContain(`${file} is not a Clerk users export`);
      expect((err as Error).message).toContain(sentence);
    });
  });
});
