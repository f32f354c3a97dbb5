import { createHash, pbkdf2Sync, scryptSync } from 'node:crypto';
import { hashAlgorithmOf, UnrecognisedStoredHashError, validateImportedHash, verifyPassword } from '../../../lib/password';
import { FORM_CHECKS } from '../../../lib/password/checks';
import { detectForm, FAMILIES } from '../../../lib/password/families';
import { CRYPT_FAMILIES, FAMILY_VECTORS } from '../../fixtures/hash-family-vectors';
import { OPTS, expectAccepted, expectRefused } from './helpers';

/*
 * SPEC §7b's registry and the PBKDF2, ASP.NET Identity, scrypt, BCrypt-SHA256 and Werkzeug families:
 * every vector of these families in test/fixtures/hash-family-vectors.ts (made by Django, passlib,
 * Werkzeug and openssl) imported and verified byte for byte, and every kind of 400. The crypt-style
 * families' vectors are crypt-vectors.test.ts's.
 */

const vectors = FAMILY_VECTORS.filter((v) => !CRYPT_FAMILIES.has(v.family));
const hashed = vectors.filter((v) => v.family !== null);
const byFormat = (form: string) => hashed.find((v) => v.form === form)?.hash as string;
const DJANGO_PBKDF2 = byFormat('django_pbkdf2_sha256');
const PHC_PBKDF2 = byFormat('phc_pbkdf2');
const WERKZEUG_PBKDF2 = byFormat('werkzeug_pbkdf2');
const DJANGO_SCRYPT = byFormat('django_scrypt');
const WERKZEUG_SCRYPT = byFormat('werkzeug_scrypt');
const PHC_SCRYPT = byFormat('passlib_scrypt');
const DJANGO_BCRYPT_SHA256 = byFormat('django_bcrypt_sha256');
const ASPNET_V3 = byFormat('aspnet_identity_v3');
const BCRYPT = '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq';
const ARGON2 = '$argon2id$v=19$m=16,t=2,p=1$VG1Oa1lMbzZLbzk5azQ2Qg$kjcNNtZ/b0t/8HgXUiQ76A';

/** The detected family: the vector's own, except a Werkzeug form (the first row listing it). */
const detectedValue = (v: (typeof hashed)[number]) => (v.family === 'werkzeug' ? v.form.replace('werkzeug_', '') : v.family);

describe('the vectors of independent tools', () => {
  it.each(hashed.map((v) => [v.form, v.command, v]))('%s (%s): imported as named, verified, a wrong password refused', async (_f, _t, v) => {
    const named = validateImportedHash(v.hash, v.family as string, OPTS);
    expect(named).toEqual({ ok: true, algorithm: v.family, stored: v.hash });
    await expect(verifyPassword(v.password, v.hash, {})).resolves.toBe(true);
    await expect(verifyPassword(`${v.password} `, v.hash, {})).resolves.toBe(false);
    await expect(verifyPassword(v.password.slice(0, -1), v.hash, {})).resolves.toBe(false);
  });

  it.each(hashed.filter((v) => v.family !== 'aspnet_identity').map((v) => [v.form, v.hash, v]))('%s is detected without a name: %s', (_f, _h, v) => {
    expect(validateImportedHash(v.hash, undefined, OPTS)).toEqual({ ok: true, algorithm: detectedValue(v), stored: v.hash });
    expect(hashAlgorithmOf(v.hash)).toBe(detectedValue(v));
  });

  it.each(hashed.filter((v) => v.family === 'aspnet_identity').map((v) => [v.form, v.hash]))(
    '%s is never detected: an unrecognised hash without its name',
    (_f, hash) => {
      expectRefused(hash, undefined, ['Password hash is in invalid format: it is not a BCrypt']);
      expect(hashAlgorithmOf(hash)).toBe('aspnet_identity');
    },
  );

  it.each(vectors.filter((v) => v.family === null).map((v) => [v.form, v.hash]))('%s keeps the seed rule: the prefix 400', (_f, hash) => {
    const message = expectRefused(hash, undefined, ['Password hash starts with the provider prefix']);
    expect(message).toMatch(/^Password hash starts with the provider prefix '(argon2|bcrypt\$)': remove it and import the hash from/);
  });

  it('verifies the password as UTF-8, never normalised (NFC and NFD differ)', async () => {
    const v = hashed.find((x) => x.password === 'pässwörd ☃ 密码' && x.family === 'pbkdf2') as (typeof hashed)[number];
    await expect(verifyPassword(v.password.normalize('NFD'), v.hash, {})).resolves.toBe(false);
  });
});

describe('the registry', () => {
  it('has a check for every form of every family', () => {
    for (const family of FAMILIES) for (const form of family.forms) expect(FORM_CHECKS.has(form)).toBe(true);
  });

  it('lists each value once, lower-case', () => {
    const values = FAMILIES.map((f) => f.value);
    expect(new Set(values).size).toBe(values.length);
    for (const value of values) expect(value).toBe(value.toLowerCase());
  });

  it.each([
    [WERKZEUG_PBKDF2, 'pbkdf2'],
    [WERKZEUG_SCRYPT, 'scrypt'],
    [ASPNET_V3, undefined],
  ])('detects %s as the first row listing its form', (hash, value) => {
    expect(detectForm(hash)?.family.value).toBe(value);
  });

  it.each(['PBKDF2', 'Aspnet_Identity', 'SCRYPT', 'BCrypt_SHA256', 'WerkZeug'])('takes the value %s in any case', (value) => {
    const hash = { pbkdf2: DJANGO_PBKDF2, aspnet_identity: ASPNET_V3, scrypt: DJANGO_SCRYPT, bcrypt_sha256: DJANGO_BCRYPT_SHA256, werkzeug: WERKZEUG_SCRYPT }[
      value.toLowerCase()
    ] as string;
    expect(validateImportedHash(hash, value, OPTS)).toMatchObject({ ok: true, algorithm: value.toLowerCase() });
  });
});

describe("a hash of another family than the value's", () => {
  it.each([
    ['pbkdf2', DJANGO_BCRYPT_SHA256, 'Password hash is in invalid PBKDF2 format: this is a BCrypt-SHA256 hash, import it with hashingAlgorithm bcrypt_sha256'],
    ['scrypt', WERKZEUG_PBKDF2, 'Password hash is in invalid scrypt format: this is a PBKDF2 hash, import it with hashingAlgorithm pbkdf2'],
    ['werkzeug', DJANGO_SCRYPT, 'Password hash is in invalid Werkzeug format: this is a scrypt hash, import it with hashingAlgorithm scrypt'],
    ['werkzeug', PHC_PBKDF2, 'Password hash is in invalid Werkzeug format: this is a PBKDF2 hash, import it with hashingAlgorithm pbkdf2'],
    ['aspnet_identity', ARGON2, 'Password hash is in invalid ASP.NET Identity format: this is an Argon2 hash, import it with hashingAlgorithm argon2'],
    ['bcrypt_sha256', BCRYPT, 'Password hash is in invalid BCrypt-SHA256 format: this is a BCrypt hash, import it with hashingAlgorithm bcrypt'],
    [
      'pbkdf2',
      '$f_scrypt$aGFzaA==$c2FsdA==$m=14$r=8$s=Bw==',
      'Password hash is in invalid PBKDF2 format: this is a vendor scrypt hash, import it with hashingAlgorithm firebase_scrypt',
    ],
    ['bcrypt', DJANGO_BCRYPT_SHA256, 'Password hash is in invalid BCrypt format: this is a BCrypt-SHA256 hash, import it with hashingAlgorithm bcrypt_sha256'],
    ['argon2', PHC_SCRYPT, 'Password hash is in invalid Argon2 format: this is a scrypt hash, import it with hashingAlgorithm scrypt'],
    ['firebase_scrypt', DJANGO_PBKDF2, 'Password hash is in invalid vendor scrypt format: this is a PBKDF2 hash, import it with hashingAlgorithm pbkdf2'],
  ])('%s with %s', (value, hash, message) => {
    expect(validateImportedHash(hash, value, OPTS)).toEqual({ ok: false, message });
  });

  it.each([
    ['pbkdf2', 'Password hash is in invalid PBKDF2 format: expected pbkdf2_<digest>$…, $pbkdf2-<digest>$… or pbkdf2:<digest>:<iterations>$…'],
    ['scrypt', 'Password hash is in invalid scrypt format: expected $scrypt$ln=…, scrypt$<N>$… or scrypt:<N>:<r>:<p>$…'],
    ['bcrypt_sha256', 'Password hash is in invalid BCrypt-SHA256 format: expected bcrypt_sha256$<bcrypt hash> or $bcrypt-sha256$…'],
    ['werkzeug', 'Password hash is in invalid Werkzeug format: expected pbkdf2:<digest>:<iterations>$<salt>$<hex> or scrypt:<N>:<r>:<p>$<salt>$<hex>'],
    ['aspnet_identity', 'Password hash is in invalid ASP.NET Identity format: it must be the base64 (with padding) of a v2 or v3 blob'],
  ])('%s with a hash of no family says what it expected', (value, message) => {
    expect(validateImportedHash('sha1:abcdef0123456789', value, OPTS)).toEqual({ ok: false, message });
  });

  it.each([
    ['pbkdf2', ''],
    ['werkzeug', ' '],
  ])('%s with an empty or blank hash names the family', (value, hash) => {
    const result = validateImportedHash(hash, value, OPTS);
    expect(result.ok ? '' : result.message).toMatch(/^Password hash is in invalid (PBKDF2|Werkzeug) format: it (is empty|has leading or trailing whitespace)$/);
  });

  it("keeps the prefix 400 for a provider's tag before a core hash, whatever family is named", () => {
    expectRefused(`argon2${ARGON2}`, 'pbkdf2', ["Password hash starts with the provider prefix 'argon2'"]);
  });
});

/** A Django PBKDF2-SHA256 hash made here (node:crypto), for parameters no tool vector has. */
function djangoPbkdf2(iterations: number, keyBytes = 32): string {
  return `pbkdf2_sha256$${iterations}$salt$${pbkdf2Sync('pw', 'salt', 1, keyBytes, 'sha256').toString('base64')}`;
}
const b64 = (n: number, fill = 7) => Buffer.alloc(n, fill).toString('base64');

describe('malformed, or past a bound: `Password hash is in invalid <name> format: …`', () => {
  it.each([
    // PBKDF2
    [djangoPbkdf2(2_000_001), 'pbkdf2', 'Password hash is in invalid PBKDF2 format: iterations must be between 1 and 2000000'],
    [djangoPbkdf2(0), undefined, 'Password hash is in invalid PBKDF2 format: iterations must be between 1 and 2000000'],
    [djangoPbkdf2(1000, 15), undefined, 'Password hash is in invalid PBKDF2 format: the key must be between 16 and 64 bytes'],
    [djangoPbkdf2(1000, 65), undefined, 'Password hash is in invalid PBKDF2 format: the key must be between 16 and 64 bytes'],
    [`$pbkdf2-sha256$i=1000,l=31$${b64(16)}$${b64(32)}`, undefined, 'Password hash is in invalid PBKDF2 format: l is not the length of the key'],
    [
      `$pbkdf2-sha256$l=32,i=1000$${b64(16)}$${b64(32)}`,
      undefined,
      'Password hash is in invalid PBKDF2 format: the PHC parameters must be i=<iterations>,l=<key length>',
    ],
    [`$pbkdf2-md5$1000$${b64(16)}$${b64(32)}`, undefined, 'Password hash is in invalid PBKDF2 format: the digest must be sha1, sha256 or sha512'],
    ['pbkdf2_sha512$1000$salt$' + b64(64), undefined, 'Password hash is in invalid PBKDF2 format: the algorithm must be pbkdf2_sha256 or pbkdf2_sha1'],
    ['pbkdf2_sha256$01000$salt$' + b64(32), undefined, 'Password hash is in invalid PBKDF2 format: the iterations must be a decimal number'],
    ['pbkdf2_sha256$1000$$' + b64(32), undefined, 'Password hash is in invalid PBKDF2 format: the salt is missing or not in its encoding'],
    ['pbkdf2_sha256$1000$salt$' + b64(32).slice(0, -1), undefined, 'Password hash is in invalid PBKDF2 format: the key is missing or not in its encoding'],
    ['pbkdf2:sha256$salt$' + 'ab'.repeat(32), undefined, 'Password hash is in invalid PBKDF2 format: expected pbkdf2:<digest>:<iterations>$<salt>$<hex>'],
    ['pbkdf2:sha256:1000$salt$abc', 'werkzeug', 'Password hash is in invalid Werkzeug format: the key is missing or not in its encoding'],
    // ASP.NET Identity
    [
      Buffer.concat([Buffer.from([1, 0, 0, 0, 1, 0, 0, 0x27, 0x10, 0, 0, 0, 40]), Buffer.alloc(32)]).toString('base64'),
      'aspnet_identity',
      'Password hash is in invalid ASP.NET Identity format: the salt length does not fit the blob',
    ],
    [
      Buffer.concat([Buffer.from([1, 0, 0, 0, 3, 0, 0, 0x27, 0x10, 0, 0, 0, 16]), Buffer.alloc(48)]).toString('base64'),
      'aspnet_identity',
      'Password hash is in invalid ASP.NET Identity format: the PRF must be 0 (SHA-1), 1 (SHA-256) or 2 (SHA-512)',
    ],
    [
      Buffer.concat([Buffer.from([1, 0, 0, 0, 1, 0, 0x1e, 0x84, 0x81, 0, 0, 0, 16]), Buffer.alloc(48)]).toString('base64'),
      'aspnet_identity',
      'Password hash is in invalid ASP.NET Identity format: iterations must be between 1 and 2000000',
    ],
    [
      Buffer.concat([Buffer.from([1, 0, 0, 0, 1, 0, 0, 0x27, 0x10, 0, 0, 0, 8]), Buffer.alloc(40)]).toString('base64'),
      'aspnet_identity',
      'Password hash is in invalid ASP.NET Identity format: the salt must be at least 16 bytes',
    ],
    [Buffer.alloc(50).toString('base64'), 'aspnet_identity', 'Password hash is in invalid ASP.NET Identity format: a v2 blob must be 49 bytes'],
    [
      Buffer.alloc(49, 2).toString('base64'),
      'aspnet_identity',
      'Password hash is in invalid ASP.NET Identity format: the blob must start with 0x00 (v2) or 0x01 (v3)',
    ],
    [ASPNET_V3.slice(0, -2), 'aspnet_identity', 'Password hash is in invalid ASP.NET Identity format: it must be the base64 (with padding) of a v2 or v3 blob'],
    // scrypt
    [`$scrypt$ln=21,r=8,p=1$${b64(16)}$${b64(32)}`, undefined, 'Password hash is in invalid scrypt format: N must be a power of two between 2 and 1048576'],
    [`scrypt$16385$salt$8$1$${b64(64)}`, undefined, 'Password hash is in invalid scrypt format: N must be a power of two between 2 and 1048576'],
    [`scrypt:16384:33:1$salt$${'ab'.repeat(64)}`, undefined, 'Password hash is in invalid scrypt format: r must be between 1 and 32'],
    [`scrypt:16384:8:17$salt$${'ab'.repeat(64)}`, 'werkzeug', 'Password hash is in invalid Werkzeug format: p must be between 1 and 16'],
    [`scrypt:1048576:9:1$salt$${'ab'.repeat(64)}`, undefined, 'Password hash is in invalid scrypt format: 128*N*r must be at most 268435456 bytes'],
    [`scrypt:131072:8:5$salt$${'ab'.repeat(64)}`, undefined, 'Password hash is in invalid scrypt format: N*r*p must be at most 4194304'],
    [`$scrypt$ln=16,r=1,p=1$${b64(16)}$${b64(32)}`, undefined, 'Password hash is in invalid scrypt format: N must be below 2^(16*r)'],
    [`$scrypt$ln=14,r=8,p=1$${b64(16)}$${b64(8)}`, undefined, 'Password hash is in invalid scrypt format: the key must be between 16 and 64 bytes'],
    [
      `$scrypt$ln=14,p=1,r=8$${b64(16)}$${b64(32)}`,
      undefined,
      'Password hash is in invalid scrypt format: expected $scrypt$ln=<log2 N>,r=<r>,p=<p>$<salt>$<key>',
    ],
    [`scrypt$16384$salt$8$+1$${b64(64)}`, undefined, 'Password hash is in invalid scrypt format: N, r and p must be decimal numbers'],
    // BCrypt-SHA256
    [DJANGO_BCRYPT_SHA256.replace('$09$', '$17$'), undefined, 'Password hash is in invalid BCrypt-SHA256 format: the bcrypt cost must be between 4 and 16'],
    [
      DJANGO_BCRYPT_SHA256.replace('$09$', '$03$'),
      'bcrypt_sha256',
      'Password hash is in invalid BCrypt-SHA256 format: the bcrypt cost must be between 4 and 16',
    ],
    [
      DJANGO_BCRYPT_SHA256.slice(0, -1),
      undefined,
      'Password hash is in invalid BCrypt-SHA256 format: expected a 22-character salt and a 31-character hash in ./A-Za-z0-9',
    ],
    [
      'bcrypt_sha256$$2x$10$' + 'a'.repeat(53),
      undefined,
      'Password hash is in invalid BCrypt-SHA256 format: expected bcrypt_sha256$ followed by a $2b$ bcrypt hash',
    ],
    [
      '$bcrypt-sha256$v=3,t=2b,r=10$' + 'a'.repeat(22) + '$' + 'a'.repeat(31),
      undefined,
      'Password hash is in invalid BCrypt-SHA256 format: the parameters must be v=2,t=<2a|2b>,r=<cost> or <2a|2b>,<cost>',
    ],
    [
      '$bcrypt-sha256$v=2,t=2b,r=17$' + 'a'.repeat(22) + '$' + 'a'.repeat(31),
      undefined,
      'Password hash is in invalid BCrypt-SHA256 format: the bcrypt cost must be between 4 and 16',
    ],
  ])('%s (%s)', (hash, value, message) => {
    expect(validateImportedHash(hash as string, value as string | undefined, OPTS)).toEqual({ ok: false, message });
    expectRefused(hash as string, value as string | undefined, [message as string]);
  });
});

describe('the bounds themselves are accepted', () => {
  it.each([
    [djangoPbkdf2(2_000_000, 64), 'pbkdf2'],
    [djangoPbkdf2(1, 16), 'pbkdf2'],
    [`scrypt:1048576:2:2$salt$${'ab'.repeat(16)}`, 'scrypt'],
    [`$scrypt$ln=1,r=1,p=16$${b64(1)}$${b64(64)}`, 'scrypt'],
    [DJANGO_BCRYPT_SHA256.replace('$09$', '$16$'), 'bcrypt_sha256'],
    [DJANGO_BCRYPT_SHA256.replace('$09$', '$04$'), 'bcrypt_sha256'],
  ])('%s', (hash, algorithm) => {
    expect(validateImportedHash(hash, undefined, OPTS)).toEqual({ ok: true, algorithm, stored: hash });
  });
});

describe('checks on parameters no tool vector has', () => {
  it('PBKDF2 of a 64-byte SHA-256 key (two blocks), in every form', async () => {
    const key = pbkdf2Sync('pässwörd', Buffer.from('salt16bytes.....'), 1200, 64, 'sha256');
    const salt = Buffer.from('salt16bytes.....');
    const forms = [
      `pbkdf2_sha256$1200$salt16bytes.....$${key.toString('base64')}`,
      `$pbkdf2-sha256$1200$${salt.toString('base64').replace(/=+$/, '').replace(/\+/g, '.')}$${key.toString('base64').replace(/=+$/, '').replace(/\+/g, '.')}`,
      `$pbkdf2-sha256$i=1200,l=64$${salt.toString('base64')}$${key.toString('base64')}`,
      `pbkdf2:sha256:1200$salt16bytes.....$${key.toString('hex').toUpperCase()}`,
    ];
    for (const hash of forms) {
      expectAccepted(hash, 'pbkdf2');
      await expect(verifyPassword('pässwörd', hash, {})).resolves.toBe(true);
      await expect(verifyPassword('passwörd', hash, {})).resolves.toBe(false);
    }
  });

  it('scrypt with N = 2, r = 1 (the smallest allowed)', async () => {
    const key = scryptSync('x', 'salt', 32, { N: 2, r: 1, p: 1 });
    const hash = `scrypt$2$salt$1$1$${key.toString('base64')}`;
    expectAccepted(hash, 'scrypt');
    await expect(verifyPassword('x', hash, {})).resolves.toBe(true);
  });

  it('BCrypt-SHA256 counts a password past 72 bytes in full', async () => {
    const v = hashed.find((x) => x.form === 'django_bcrypt_sha256' && x.password.length > 72) as (typeof hashed)[number];
    await expect(verifyPassword(`${v.password}b`, v.hash, {})).resolves.toBe(false);
    expect(createHash('sha256').update(v.password).digest('hex')).toHaveLength(64);
  });
});

describe('a stored hash the check cannot take (written around the import validation)', () => {
  it.each([
    ['past a bound', djangoPbkdf2(2_000_001)],
    ['malformed', 'pbkdf2_sha256$1000$salt$not base64!'],
    ['a blob of no version', Buffer.alloc(49, 2).toString('base64')],
    ['nothing known', 'plain text'],
  ])('%s: an error that never holds the hash', async (_what, hash) => {
    const error = await verifyPassword('pw', hash, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnrecognisedStoredHashError);
    expect((error as Error).message).not.toContain(hash);
  });
});
