import { scryptSync } from 'node:crypto';
import { DEFAULT_PASSWORD_LIMITS, type PasswordLimits, UnrecognisedStoredHashError, verifyPassword } from '../../../lib/password';
import { CRYPT_VECTORS, type FamilyVector } from '../../fixtures/hash-family-vectors';
import { expectAccepted, expectRefused, limitsWith, OPTS } from './helpers';

/*
 * SPEC §7b: "Bounds are constants with their reason beside them, overridable by config like §8's."
 * Each family's highest cost follows the configured limits, at import and again at sign-in.
 */

const KEY = Buffer.alloc(32, 7).toString('base64');
const HEX_KEY = 'ab'.repeat(32);
const SHA512_HASH = 'yYQtptcpPgRTmwIyyE5oKtrEp13JfYXoQqeUgg9lQHgJFxLj4Brrj5GyBiWWMLFnIzlRLU7zMx1gv0vlMN3p11';
const PHPASS = '$P$BvaY44NqvIV80p3u56stiTb1HbP3zq/';
const DRUPAL = '$S$DjWyrUFujWPOBoj7jMl0Jsa9lAmpvoflLzFy6lj/m2XBTIGD4URL';
const BCRYPT_BODY = 'fWjCDJEekKVl0scJxMgb/OAYSpA28x8mZklmb67Wqfegvb0YO1LCO';

/** A hash one step past a default bound, the limits that accept it, its family's name, and the default's text. */
const CASES: ReadonlyArray<[label: string, hash: string, raised: Partial<PasswordLimits>, name: string, text: string]> = [
  ['PBKDF2 iterations', `pbkdf2_sha256$2000001$salt$${KEY}`, { pbkdf2MaxIterations: 2_000_001 }, 'PBKDF2', 'iterations must be between 1 and 2000000'],
  ['SHA-crypt rounds', `$6$rounds=1000001$saltsalt$${SHA512_HASH}`, { shaCryptMaxRounds: 1_000_001 }, 'SHA-crypt', 'rounds must be between 1000 and 1000000'],
  [
    "LDAP {CRYPT}'s SHA-crypt rounds",
    `{CRYPT}$6$rounds=1000001$saltsalt$${SHA512_HASH}`,
    { shaCryptMaxRounds: 1_000_001 },
    'LDAP',
    'rounds must be between 1000 and 1000000',
  ],
  ['phpass log2 count', `$P$J${PHPASS.slice(4)}`, { phpassMaxLog2Count: 21 }, 'phpass', 'the log2 count must be between 7 and 20'],
  ['Drupal log2 count', `$S$J${DRUPAL.slice(4)}`, { phpassMaxLog2Count: 21 }, 'Drupal', 'the log2 count must be between 7 and 20'],
  [
    'scrypt N',
    `scrypt:2097152:2:1$salt$${HEX_KEY}`,
    { scryptMaxN: 2 ** 21, scryptMaxMemoryBytes: 2 ** 29 },
    'scrypt',
    'N must be a power of two between 2 and 1048576',
  ],
  ['scrypt r', `scrypt:16384:33:1$salt$${HEX_KEY}`, { scryptMaxR: 33 }, 'scrypt', 'r must be between 1 and 32'],
  ['scrypt p', `scrypt:16384:8:17$salt$${HEX_KEY}`, { scryptMaxP: 17 }, 'scrypt', 'p must be between 1 and 16'],
  [
    'scrypt memory',
    `scrypt:1048576:8:1$salt$${HEX_KEY}`,
    { scryptMaxMemoryBytes: 2 ** 30, scryptMaxWork: 2 ** 23 },
    'scrypt',
    '128*N*r must be at most 268435456 bytes',
  ],
  ['scrypt work', `scrypt:65536:32:4$salt$${HEX_KEY}`, { scryptMaxWork: 2 ** 23 }, 'scrypt', 'N*r*p must be at most 4194304'],
  ["WordPress's bcrypt cost (§8's)", `$wp$2y$17$${BCRYPT_BODY}`, { bcryptMaxCost: 17 }, 'WordPress', 'the bcrypt cost must be between 4 and 16'],
  [
    "BCrypt-SHA256's bcrypt cost (§8's)",
    `bcrypt_sha256$$2b$17$${BCRYPT_BODY}`,
    { bcryptMaxCost: 17 },
    'BCrypt-SHA256',
    'the bcrypt cost must be between 4 and 16',
  ],
];

describe('import under configured limits', () => {
  it.each(CASES)('%s: refused at the default, accepted when raised, refused naming a lowered bound', (_label, hash, raised, name, text) => {
    expectRefused(hash, undefined, [`Password hash is in invalid ${name} format: ${text}`]);
    expect(expectAccepted(hash, undefined, { ...OPTS, limits: limitsWith(raised) })).toBe(hash);
    const lowered = Object.fromEntries(Object.entries(raised).map(([key, value]) => [key, value - 2]));
    const [firstLowered] = Object.values(lowered);
    expectRefused(hash, undefined, [`Password hash is in invalid ${name} format: `, String(firstLowered)], { ...OPTS, limits: limitsWith(lowered) });
  });

  it('refuses a hash the defaults accept once its bound is lowered', () => {
    const implicit5000 = CRYPT_VECTORS.find((v) => v.hash.startsWith('$5$') && !v.hash.includes('rounds='))?.hash as string;
    expectAccepted(implicit5000, 'sha_crypt');
    expectRefused(implicit5000, 'sha_crypt', ['Password hash is in invalid SHA-crypt format: rounds must be between 1000 and 4000'], {
      ...OPTS,
      limits: limitsWith({ shaCryptMaxRounds: 4000 }),
    });
  });
});

describe('sign-in bounds a stored hash again by the configured limits', () => {
  // Werkzeug's scrypt at r = 33, one past the default bound, and cheap (N = 1024): made with node:crypto.
  const password = 'correct horse battery staple';
  const raisedR = `scrypt:1024:33:1$saltsalt$${scryptSync(password, 'saltsalt', 32, { N: 1024, r: 33, p: 1 }).toString('hex')}`;

  it('verifies a hash past a default bound when the limits were raised', async () => {
    const limits = limitsWith({ scryptMaxR: 33 });
    await expect(verifyPassword(password, raisedR, { limits })).resolves.toBe(true);
    await expect(verifyPassword(`${password}!`, raisedR, { limits })).resolves.toBe(false);
    await expect(verifyPassword(password, raisedR, { limits: DEFAULT_PASSWORD_LIMITS })).rejects.toThrow(UnrecognisedStoredHashError);
    await expect(verifyPassword(password, raisedR, {})).rejects.toThrow(UnrecognisedStoredHashError);
  });

  it('refuses to check a stored hash past a lowered bound', async () => {
    const v = CRYPT_VECTORS.find((x) => x.hash.startsWith('$5$') && !x.hash.includes('rounds=')) as FamilyVector;
    await expect(verifyPassword(v.password, v.hash, {})).resolves.toBe(true);
    await expect(verifyPassword(v.password, v.hash, { limits: limitsWith({ shaCryptMaxRounds: 4000 }) })).rejects.toThrow(
      'rounds must be between 1000 and 4000',
    );
  });
});
