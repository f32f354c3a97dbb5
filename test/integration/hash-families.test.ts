import { shaCryptHash } from '../../lib/password/checks/sha-crypt';
import { CRYPT_MAX_PASSWORD_BYTES } from '../../lib/password/limits';
import { CRYPT_VECTORS, FAMILY_VECTORS, type FamilyVector } from '../fixtures/hash-family-vectors';
import { startApi, type ApiResponse, type TestApi } from '../support/api';
import { uniqueEmail } from '../support/flows';
import { readStoredUser } from '../support/table';

/**
 * SPEC §7b on the real server: every family (PBKDF2, ASP.NET Identity, MD5-crypt, SHA-crypt,
 * phpass, WordPress, Drupal, LDAP, scrypt, BCrypt-SHA256, Werkzeug) imported (`POST /recipe/user/passwordhash/import`, detected and named; bulk import
 * and staging), signed in with byte for byte, then rehashed to the own Argon2id; every kind of
 * 400, none repeating the hash.
 */

/** Own hashing parameters smaller than the default, to tell the rehash apart. */
const OWN = { ARGON2_MEMORY_KIB: '4096', ARGON2_ITERATIONS: '1', ARGON2_PARALLELISM: '1' };
const OWN_HASH = /^\$argon2id\$v=19\$m=4096,t=1,p=1\$/;

let api: TestApi;
const responses: ApiResponse[] = [];
beforeAll(async () => {
  api = await startApi(OWN);
});
afterAll(async () => {
  // No answer carries a hash or a password it was given.
  const all = responses.map((r) => r.text).join('\n');
  for (const v of FAMILY_VECTORS) {
    expect(all).not.toContain(v.hash);
    // Short or numeric passwords (`x`, `000000`) turn up inside ids and times.
    if (v.password.length >= 8) expect(all).not.toContain(v.password);
  }
  await api.stop();
});

async function post(path: string, body: unknown): Promise<ApiResponse> {
  const res = await api.post(path, body);
  responses.push(res);
  return res;
}
const importHash = (body: Record<string, unknown>) => post('/recipe/user/passwordhash/import', body);
const signIn = (email: string, password: string) => post('/recipe/signin', { email, password });

/** A crypt-style vector near its bound: SHA-crypt's 1,000,000 rounds, a phpass/Drupal log2 count of 17 or more. */
const slowCrypt = (v: FamilyVector) => /rounds=1000000\$|^\$[PHS]\$[F-Z]/.test(v.hash);

/** One vector of each form, none of the slow ones at a bound (the unit tests verify those). */
const ONE_PER_FORM: FamilyVector[] = [
  ...new Map(FAMILY_VECTORS.filter((v) => v.family !== null && !v.note?.includes('max') && !slowCrypt(v)).map((v) => [`${v.form}/${v.family}`, v])).values(),
];

describe('POST /recipe/user/passwordhash/import, then sign-in', () => {
  it.each(ONE_PER_FORM.map((v) => [v.form, v.family, v]))(
    '%s (%s): imported as given, a wrong password refused, the right one signs in and is rehashed to Argon2id',
    async (_f, _a, v) => {
      const email = uniqueEmail('family');
      // Named, in another case than the table's; a self-describing hash is detected too.
      const named = await importHash({ email, passwordHash: v.hash, hashingAlgorithm: (v.family as string).toUpperCase() });
      expect([named.status, named.json.status, named.json.didUserAlreadyExist]).toEqual([200, 'OK', false]);
      if (v.family !== 'aspnet_identity') {
        const detected = await importHash({ email, passwordHash: v.hash });
        expect([detected.status, detected.json.didUserAlreadyExist]).toEqual([200, true]);
      }
      const userId = named.json.user.id as string;
      expect((await readStoredUser(api.tableName, userId))?.passwordHash).toBe(v.hash);

      const wrong = await signIn(email, `${v.password}!`);
      expect([wrong.status, wrong.text]).toEqual([200, JSON.stringify({ status: 'WRONG_CREDENTIALS_ERROR' })]);
      expect((await readStoredUser(api.tableName, userId))?.passwordHash).toBe(v.hash);

      const ok = await signIn(email, v.password);
      expect([ok.json.status, ok.json.user?.id]).toEqual(['OK', userId]);
      expect((await readStoredUser(api.tableName, userId))?.passwordHash).toMatch(OWN_HASH);
      expect((await signIn(email, v.password)).json.status).toBe('OK');
      expect(api.logs.join('\n')).not.toContain(v.hash);
    },
  );
});

const DJANGO_PBKDF2 = ONE_PER_FORM.find((v) => v.form === 'django_pbkdf2_sha256')?.hash as string;
const ASPNET = ONE_PER_FORM.find((v) => v.family === 'aspnet_identity')?.hash as string;
const BCRYPT_SHA256 = ONE_PER_FORM.find((v) => v.form === 'django_bcrypt_sha256')?.hash as string;
const DJANGO_ARGON2 = FAMILY_VECTORS.find((v) => v.form === 'django_argon2_prefixed')?.hash as string;
/** The first crypt-style vector whose hash starts so. */
const CRYPT_HASH = (start: string): string => (CRYPT_VECTORS.find((v) => v.hash.startsWith(start)) as FamilyVector).hash;

describe('a password past CRYPT_MAX_PASSWORD_BYTES at a hash that digests it every round', () => {
  /** A `$6$` hash of `password` at the lowest rounds, as glibc computes it (the unit tests check this code against the tools). */
  const sha512Crypt = (password: string) => `$6$rounds=1000$longpass$${shaCryptHash('sha512', Buffer.from(password), Buffer.from('longpass'), 1000)}`;

  it.each([
    ['at the limit: checked, signs in and is rehashed', 'x'.repeat(CRYPT_MAX_PASSWORD_BYTES), 'OK'],
    ['one byte past it: a wrong password, though it is the one hashed', 'x'.repeat(CRYPT_MAX_PASSWORD_BYTES + 1), 'WRONG_CREDENTIALS_ERROR'],
  ])('%s', async (_what, password, status) => {
    const email = uniqueEmail('long');
    const hash = sha512Crypt(password);
    const imported = await importHash({ email, passwordHash: hash });
    expect(imported.status).toBe(200);
    const res = await signIn(email, password);
    expect(res.json.status).toBe(status);
    if (status !== 'OK') expect(res.text).toBe(JSON.stringify({ status: 'WRONG_CREDENTIALS_ERROR' }));
    const stored = (await readStoredUser(api.tableName, imported.json.user.id as string))?.passwordHash;
    if (status === 'OK') expect(stored).toMatch(OWN_HASH);
    else expect(stored).toBe(hash);
  });
});

describe('bounds from configuration (SPEC §7b: overridable by config like §8)', () => {
  it('a lowered bound refuses at import, and at sign-in refuses to check a hash stored before', async () => {
    const v = CRYPT_VECTORS.find((x) => x.hash.startsWith('$5$') && !x.hash.includes('rounds=')) as FamilyVector;
    const email = uniqueEmail('lowered');
    expect((await importHash({ email, passwordHash: v.hash })).status).toBe(200);
    // The same table, served with SHA-crypt's rounds bound below the hash's implied 5,000.
    const lowered = await startApi({ ...OWN, TABLE_NAME: api.tableName, SHA_CRYPT_MAX_ROUNDS: '4000' });
    try {
      const refused = await lowered.post('/recipe/user/passwordhash/import', { email: uniqueEmail('lowered'), passwordHash: v.hash });
      responses.push(refused);
      expect([refused.status, refused.text]).toEqual([400, 'Password hash is in invalid SHA-crypt format: rounds must be between 1000 and 4000']);
      const past = await lowered.post('/recipe/signin', { email, password: v.password });
      responses.push(past);
      expect(past.status).toBe(500);
    } finally {
      await lowered.stop();
    }
    expect((await signIn(email, v.password)).json.status).toBe('OK');
  });
});

describe('every kind of 400, as one text/plain sentence', () => {
  it.each([
    [
      'malformed',
      { passwordHash: 'pbkdf2_sha256$01000$salt$c2FsdHNhbHRzYWx0c2FsdA==' },
      'Password hash is in invalid PBKDF2 format: the iterations must be a decimal number',
    ],
    ['past a bound', { passwordHash: 'scrypt:131072:8:5$salt$' + 'ab'.repeat(64) }, 'Password hash is in invalid scrypt format: N*r*p must be at most 4194304'],
    [
      'past a bound, named',
      { passwordHash: DJANGO_PBKDF2.replace(/^pbkdf2_sha256\$\d+\$/, 'pbkdf2_sha256$2000001$'), hashingAlgorithm: 'pbkdf2' },
      'Password hash is in invalid PBKDF2 format: iterations must be between 1 and 2000000',
    ],
    [
      'another family',
      { passwordHash: BCRYPT_SHA256, hashingAlgorithm: 'werkzeug' },
      'Password hash is in invalid Werkzeug format: this is a BCrypt-SHA256 hash, import it with hashingAlgorithm bcrypt_sha256',
    ],
    [
      'a §7b hash named by a core value',
      { passwordHash: DJANGO_PBKDF2, hashingAlgorithm: 'bcrypt' },
      'Password hash is in invalid BCrypt format: this is a PBKDF2 hash, import it with hashingAlgorithm pbkdf2',
    ],
    [
      'none of its forms',
      { passwordHash: 'sha1:0123456789abcdef', hashingAlgorithm: 'werkzeug' },
      'Password hash is in invalid Werkzeug format: expected pbkdf2:<digest>:<iterations>$<salt>$<hex> or scrypt:<N>:<r>:<p>$<salt>$<hex>',
    ],
    ['an ASP.NET blob without its value', { passwordHash: ASPNET }, 'Password hash is in invalid format: it is not a BCrypt'],
    ['an unknown value', { passwordHash: DJANGO_PBKDF2, hashingAlgorithm: 'sha256' }, 'Unsupported password hashing algorithm'],
    ["Django's argon2$ prefix (seed rule 2)", { passwordHash: DJANGO_ARGON2 }, "Password hash starts with the provider prefix 'argon2': remove it"],
    [
      "a BCrypt hash behind LDAP's {CRYPT} (seed rule 2 before the marker)",
      { passwordHash: `{CRYPT}${CRYPT_HASH('$wp$').slice(3)}` },
      "Password hash starts with the provider prefix '{CRYPT}': remove it",
    ],
    [
      'SHA-crypt past its bound',
      { passwordHash: '$6$rounds=1000001$saltsalt$' + 'a'.repeat(85) + '.' },
      'Password hash is in invalid SHA-crypt format: rounds must be between 1000 and 1000000',
    ],
    [
      'Drupal past its bound',
      { passwordHash: CRYPT_HASH('$S$').replace(/^\$S\$./, '$S$J') },
      'Password hash is in invalid Drupal format: the log2 count must be between 7 and 20',
    ],
    [
      'LDAP {SSHA} too short for its digest',
      { passwordHash: '{SSHA}AAAAAAAAAAAAAAAAAAAAAAAAAAA=' },
      'Password hash is in invalid LDAP format: {SSHA} must hold a 20-byte SHA-1 digest followed by a salt',
    ],
    [
      'phpass of the wrong length, named wordpress',
      { passwordHash: '$P$BvaY44NqvIV80p3u56stiTb1HbP3zq', hashingAlgorithm: 'wordpress' },
      'Password hash is in invalid WordPress format: the hash must be 34 characters',
    ],
  ])('%s', async (_what, body, text) => {
    const res = await importHash({ email: uniqueEmail('bad'), ...body });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('text/plain');
    expect(res.text.startsWith(text)).toBe(true);
    expect(res.text).not.toContain(body.passwordHash);
  });
});

describe('bulk import (SPEC §15)', () => {
  const bulkUser = (v: FamilyVector, email: string, hashingAlgorithm = v.family as string) => ({
    loginMethods: [{ recipeId: 'emailpassword', email, passwordHash: v.hash, hashingAlgorithm }],
  });

  it('imports a user of each family now; each signs in and is rehashed', async () => {
    for (const v of ONE_PER_FORM.filter((x, i, all) => all.findIndex((y) => y.family === x.family) === i)) {
      const email = uniqueEmail('bulk');
      const res = await post('/bulk-import/import', bulkUser(v, email));
      expect([v.form, res.status]).toEqual([v.form, 200]);
      const recipeUserId = res.json.user.loginMethods[0].recipeUserId as string;
      expect((await signIn(email, `${v.password}x`)).json.status).toBe('WRONG_CREDENTIALS_ERROR');
      expect((await signIn(email, v.password)).json.status).toBe('OK');
      expect((await readStoredUser(api.tableName, recipeUserId))?.passwordHash).toMatch(OWN_HASH);
    }
  });

  it('answers the same texts in its errors, and the core text for an unknown value', async () => {
    const v = ONE_PER_FORM.find((x) => x.form === 'django_scrypt') as FamilyVector;
    const wrong = await post('/bulk-import/import', bulkUser(v, uniqueEmail('bulk'), 'pbkdf2'));
    expect([wrong.status, wrong.json]).toEqual([
      400,
      { errors: ['Password hash is in invalid PBKDF2 format: this is a scrypt hash, import it with hashingAlgorithm scrypt'] },
    ]);
    const unknown = await post('/bulk-import/import', bulkUser(v, uniqueEmail('bulk'), 'md5'));
    expect([unknown.status, unknown.json]).toEqual([
      400,
      { errors: ['Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, firebase_scrypt!'] },
    ]);
  });

  it('stages rows that show the value upper-cased, never the hash', async () => {
    const v = ONE_PER_FORM.find((x) => x.family === 'werkzeug') as FamilyVector;
    const email = uniqueEmail('staged');
    expect((await post('/bulk-import/users', { users: [bulkUser(v, email, 'Werkzeug')] })).status).toBe(200);
    const list = await api.get('/bulk-import/users?status=NEW&limit=500');
    responses.push(list);
    const row = (list.json.users as { loginMethods: { email?: string; hashingAlgorithm?: string }[] }[]).find((u) => u.loginMethods[0].email === email);
    expect(row?.loginMethods[0].hashingAlgorithm).toBe('WERKZEUG');
  });
});
