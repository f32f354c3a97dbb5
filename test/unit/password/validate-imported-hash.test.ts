import { validateImportedHash } from '../../../lib/password';
import { ARGON2_VECTORS, BCRYPT_VECTORS, VENDOR_SCRYPT_VECTORS } from '../../fixtures/password-vectors';
import { OPTS, expectRefused } from './helpers';

const BCRYPT = BCRYPT_VECTORS[0].hash;
const BCRYPT_2B = BCRYPT_VECTORS[1].hash;
const ARGON2 = ARGON2_VECTORS[0].hash;
const SCRYPT = VENDOR_SCRYPT_VECTORS[0].hash;

describe('validateImportedHash: the algorithm name', () => {
  it.each(['md5', 'sha1', 'sha256', 'argon2id', 'pbkdf2_sha256', '', ' bcrypt', 'constructor', '__proto__', 'toString'])(
    "answers 'Unsupported password hashing algorithm' for %j",
    (algorithm) => {
      expect(validateImportedHash(BCRYPT, algorithm, OPTS)).toEqual({ ok: false, message: 'Unsupported password hashing algorithm' });
    },
  );

  it('checks the algorithm name before the hash', () => {
    expect(validateImportedHash('garbage', 'sha1', OPTS)).toEqual({ ok: false, message: 'Unsupported password hashing algorithm' });
  });

  it.each([
    ['bcrypt', BCRYPT, 'bcrypt'],
    ['BCRYPT', BCRYPT, 'bcrypt'],
    ['Argon2', ARGON2, 'argon2'],
    ['VENDOR_SCRYPT', SCRYPT, 'vendor_scrypt'],
    ['Firebase_Scrypt', SCRYPT, 'vendor_scrypt'],
  ])('accepts the name %s case-insensitively', (name, hash, algorithm) => {
    expect(validateImportedHash(hash, name, OPTS)).toMatchObject({ ok: true, algorithm });
  });
});

describe('validateImportedHash: an algorithm that disagrees with the hash', () => {
  it.each([
    ['argon2', BCRYPT, 'Password hash is in invalid Argon2 format: it must start with $argon2id$, $argon2i$ or $argon2d$'],
    ['vendor_scrypt', ARGON2, 'Password hash is in invalid vendor scrypt format: it must start with $f_scrypt$'],
    ['firebase_scrypt', BCRYPT, 'Password hash is in invalid vendor scrypt format'],
    ['bcrypt', SCRYPT, 'Password hash is in invalid BCrypt format: it must start with $2a$, $2b$, $2x$ or $2y$'],
  ])("answers %s's invalid-format message", (algorithm, hash, message) => {
    expectRefused(hash, algorithm, [message]);
  });
});

describe('validateImportedHash: provider prefixes', () => {
  it.each([
    [`bcrypt${BCRYPT}`, 'bcrypt', '$2a$'],
    [`{bcrypt}${BCRYPT}`, '{bcrypt}', '$2a$'],
    [`{CRYPT}${BCRYPT_2B}`, '{CRYPT}', '$2b$'],
    [`bcrypt$${BCRYPT_2B}`, 'bcrypt$', '$2b$'],
    [`argon2${ARGON2}`, 'argon2', '$argon2id$'],
    [`{ARGON2}${ARGON2}`, '{ARGON2}', '$argon2id$'],
    [`firebase:${SCRYPT}`, 'firebase:', '$f_scrypt$'],
  ])('names the prefix to remove in %s', (hash, prefix, identifier) => {
    expectRefused(hash, undefined, [`Password hash starts with the provider prefix '${prefix}': remove it and import the hash from '${identifier}' on`]);
  });

  it('names the prefix when the algorithm is given and the hash behind the prefix is of that algorithm', () => {
    expectRefused(`bcrypt${BCRYPT}`, 'BCrypt', ["provider prefix 'bcrypt'"]);
    expectRefused(`{ARGON2}${ARGON2}`, 'argon2', ["provider prefix '{ARGON2}'"]);
  });

  it('answers the algorithm’s invalid-format message when the hash behind the prefix is of another algorithm', () => {
    const message = expectRefused(`bcrypt${BCRYPT}`, 'argon2', ['Password hash is in invalid Argon2 format']);
    expect(message).not.toContain('prefix');
  });

  it('refuses an unknown pre-hashing wrapper instead of suggesting to strip it', () => {
    const message = expectRefused(`bcrypt_sha512$${BCRYPT_2B}`, undefined, [
      "provider prefix 'bcrypt_sha512$', which marks a pre-hashed variant that cannot be imported",
    ]);
    expect(message).not.toContain('remove it');
  });

  it('takes Django’s bcrypt_sha256$ as its own family (SPEC §7b), not a prefix', () => {
    expect(validateImportedHash(`bcrypt_sha256$${BCRYPT_2B}`, undefined, OPTS)).toMatchObject({ ok: true, algorithm: 'bcrypt_sha256' });
  });

  it('does not repeat a long prefix, only its length', () => {
    const prefix = 'a'.repeat(40);
    const message = expectRefused(`${prefix}${BCRYPT}`, undefined, [
      "Password hash has 40 characters in front of the standard form: remove them and import the hash from '$2a$' on",
    ]);
    expect(message).not.toContain(prefix);
  });

  it('does not repeat a prefix with characters that could carry markup or hash material', () => {
    for (const prefix of ['<b>x</b>', 'a b', '$x', 'pre"fix', 'xyz/+=']) {
      const message = expectRefused(`${prefix}${ARGON2}`, undefined, [`Password hash has ${prefix.length} characters in front`]);
      expect(message).not.toContain(prefix);
    }
  });
});

describe('validateImportedHash: unrecognised input', () => {
  it.each([
    // Hashes of SPEC §7b's families are no longer unrecognised: each is its family's (its 400 here).
    ['$1$saltsalt$abcdefghijklmnopqrstuv', 'Password hash is in invalid MD5-crypt format: the last character of the hash has unused bits set'],
    [
      '$5$rounds=5000$saltsalt$abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG',
      'Password hash is in invalid SHA-crypt format: the last character of the hash has unused bits set',
    ],
  ])("gives %s its family's 400 once the family is known", (hash, message) => {
    expectRefused(hash, undefined, [message]);
  });

  it('takes a well-formed {SSHA} as LDAP', () => {
    expect(validateImportedHash('{SSHA}abcdefghijklmnopqrstuvwxyz012345', undefined, OPTS)).toEqual({
      ok: true,
      algorithm: 'ldap',
      stored: '{SSHA}abcdefghijklmnopqrstuvwxyz012345',
    });
  });

  it.each(['not-a-hash', '5f4dcc3b5aa765d61d8327deb882cf99'])('answers the generic invalid-format message listing the accepted formats for %s', (hash) => {
    expectRefused(hash, undefined, [
      'Password hash is in invalid format: it is not a BCrypt ($2a$, $2b$, $2x$, $2y$), Argon2 ($argon2id$, $argon2i$, $argon2d$) or vendor scrypt ($f_scrypt$) hash',
    ]);
  });

  it('says an empty hash is empty', () => {
    expectRefused('', undefined, ['Password hash is in invalid format: it is empty']);
  });

  it('refuses leading or trailing whitespace, under the requested algorithm’s name when given', () => {
    expectRefused(` ${BCRYPT}`, undefined, ['Password hash is in invalid format: it has leading or trailing whitespace']);
    expectRefused(`${ARGON2}\n`, 'argon2', ['Password hash is in invalid Argon2 format: it has leading or trailing whitespace']);
  });

  it('never repeats the hash in any refusal of a long random-looking hash', () => {
    const hash = `$2a$10$${'Z'.repeat(60)}`;
    expectRefused(hash, undefined, ['Password hash is in invalid BCrypt format', 'not 60']);
  });
});
