import { hashSync } from 'bcryptjs';
import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { DEFAULT_PASSWORD_LIMITS } from '../../../lib/password/limits';
import { md5CryptHash } from '../../../lib/password/checks/md5-crypt';
import { iteratedDigest } from '../../../lib/password/checks/phpass';
import { shaCryptHash } from '../../../lib/password/checks/sha-crypt';
import { CRYPT_VECTORS } from '../../fixtures/hash-family-vectors';
import { CRYPT_FORMS, formFor, formLabelled, wrongPassword } from './crypt-forms';
import { itWithTool, runTool } from './helpers';

/*
 * Properties of every form: no string makes a parser throw; a form parses exactly the strings its
 * grammar (written again here, independently, as SPEC §7b states it) describes; a hash made for a
 * random salt and password verifies that password only, and for the crypt(3) forms equals what
 * openssl makes of the same salt and password.
 */

const C = '[./0-9A-Za-z]';
/** SHA-crypt's salt: printable ASCII but `$`. */
const S = '[\\x20-\\x23\\x25-\\x7e]';
const BCRYPT = '[./A-Za-z0-9]';

function shaGrammar(magic: string, hashLength: number, lastCharacters: string): RegExp {
  const salt = `(?:rounds=(?:0|[1-9][0-9]*)\\$${S}{0,16}|(?!rounds=)${S}{0,16})`;
  return new RegExp(`^\\$${magic}\\$${salt}\\$${C}{${hashLength - 1}}${lastCharacters}$`);
}

const CRYPT_GRAMMARS: Record<string, RegExp> = {
  // The last character of an encoded 16-byte digest carries 2 bits; of SHA-256's 32 bytes, 4.
  $1$: new RegExp(`^\\$1\\$${C}{0,8}\\$${C}{21}[./01]$`),
  $apr1$: new RegExp(`^\\$apr1\\$${C}{0,8}\\$${C}{21}[./01]$`),
  $5$: shaGrammar('5', 43, '[./0-9A-D]'),
  $6$: shaGrammar('6', 86, '[./01]'),
};

/** `{SCHEME}` (any case), then canonical padded base64 of the lengths `fits` allows. */
function ldapGrammar(scheme: string, fits: (bytes: number) => boolean): (hash: string) => boolean {
  return (hash) => {
    if (hash.slice(0, scheme.length).toUpperCase() !== scheme) {
      return false;
    }
    const value = hash.slice(scheme.length);
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value)) {
      return false;
    }
    const bytes = Buffer.from(value, 'base64');
    return bytes.toString('base64') === value && fits(bytes.length);
  };
}

const GRAMMARS: Record<string, (hash: string) => boolean> = {
  ...Object.fromEntries(Object.entries(CRYPT_GRAMMARS).map(([label, grammar]) => [label, (hash: string) => grammar.test(hash)])),
  $P$: (hash) => new RegExp(`^\\$P\\$${C}{30}[./01]$`).test(hash),
  $H$: (hash) => new RegExp(`^\\$H\\$${C}{30}[./01]$`).test(hash),
  $S$: (hash) => new RegExp(`^\\$S\\$${C}{52}$`).test(hash),
  // bcrypt: cost 04–31; the salt's last character carries 2 bits, the hash's 4 (bcrypt's alphabet).
  $wp$: (hash) => new RegExp(`^\\$wp\\$2[aby]\\$(?:0[4-9]|[12][0-9]|3[01])\\$${BCRYPT}{21}[.Oeu]${BCRYPT}{30}[.CGKOSWaeimquy26]$`).test(hash),
  '{SSHA}': ldapGrammar('{SSHA}', (bytes) => bytes > 20),
  '{SSHA256}': ldapGrammar('{SSHA256}', (bytes) => bytes > 32),
  '{SSHA512}': ldapGrammar('{SSHA512}', (bytes) => bytes > 64),
  '{SMD5}': ldapGrammar('{SMD5}', (bytes) => bytes > 16),
  '{SHA}': ldapGrammar('{SHA}', (bytes) => bytes === 20),
  '{MD5}': ldapGrammar('{MD5}', (bytes) => bytes === 16),
  '{CRYPT}': (hash) => hash.slice(0, 7).toUpperCase() === '{CRYPT}' && ['$1$', '$5$', '$6$'].some((label) => CRYPT_GRAMMARS[label].test(hash.slice(7))),
};

const PREFIXES = [...CRYPT_FORMS.map(({ label }) => label), '{ssha}', '{crypt}$1$', '{CRYPT}$6$', '$5$rounds=', '$wp$2y$10$'];
const INTERESTING = ['$', '.', '/', '=', '+', '{', '}', 'rounds=', '0', '9', 'z', ' ', '\u0000', 'é', '\ud83d', '\u{1f511}'];

/** A string, often starting with one of the forms' prefixes. */
const anyString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 160 }),
  fc.tuple(fc.constantFrom(...PREFIXES), fc.string({ unit: 'binary', maxLength: 120 })).map(([prefix, rest]) => prefix + rest),
);

/** A vector's hash with up to three characters inserted, deleted or replaced. */
const mutatedHash = fc
  .tuple(
    fc.constantFrom(...CRYPT_VECTORS.map(({ hash }) => hash)),
    fc.array(
      fc.tuple(fc.constantFrom('insert', 'delete', 'replace'), fc.nat(), fc.oneof(fc.constantFrom(...INTERESTING), fc.string({ minLength: 1, maxLength: 1 }))),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  )
  .map(([hash, edits]) =>
    edits.reduce((text, [edit, at, piece]) => {
      const index = at % (text.length + 1);
      const skip = edit === 'insert' ? 0 : 1;
      return text.slice(0, index) + (edit === 'delete' ? '' : piece) + text.slice(index + skip);
    }, hash),
  );

/** Parses `hash` with every form and bounds what parses: must not throw. */
function parseEverywhere(hash: string): void {
  for (const { form } of CRYPT_FORMS) {
    const parsed = form.parse(hash);
    if (parsed.ok) {
      form.bound(parsed.params, DEFAULT_PASSWORD_LIMITS);
    }
  }
}

/** Whether the form whose marker `hash` matches (if any) parses it exactly when its grammar says so. */
function parsesAsGrammarSays(hash: string): boolean {
  const claiming = CRYPT_FORMS.filter(({ form }) => form.marker.test(hash));
  if (claiming.length === 0) {
    return Object.values(GRAMMARS).every((grammar) => !grammar(hash));
  }
  return claiming.length === 1 && claiming[0].form.parse(hash).ok === GRAMMARS[claiming[0].label](hash);
}

describe('parsers', () => {
  it('never throw, whatever the string', () => {
    fc.assert(
      fc.property(anyString, (hash) => parseEverywhere(hash)),
      { numRuns: 2000 },
    );
  });

  it('never throw on mutated vectors', () => {
    fc.assert(
      fc.property(mutatedHash, (hash) => parseEverywhere(hash)),
      { numRuns: 2000 },
    );
  });

  it('accept exactly what their grammar describes', () => {
    fc.assert(
      fc.property(fc.oneof(anyString, mutatedHash), (hash) => expect(parsesAsGrammarSays(hash)).toBe(true)),
      { numRuns: 4000 },
    );
    for (const { hash } of CRYPT_VECTORS) {
      expect(GRAMMARS[formFor(hash).label](hash)).toBe(true);
    }
  });
});

const password = fc.string({ unit: 'grapheme', maxLength: 40 });
const crypt64 = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'), minLength, maxLength });
const printableSalt = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0x7e })
    .filter((code) => code !== 0x24)
    .map((code) => String.fromCharCode(code)),
  maxLength: 16,
});
const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** A hash made here for `secret` must be of its form, within bounds, and verify `secret` only. */
async function expectMadeHashVerifies(label: string, hash: string, secret: string): Promise<void> {
  expect(formFor(hash).label).toBe(label);
  expect(GRAMMARS[label](hash)).toBe(true);
  const { form, verify } = formLabelled(label);
  const parsed = form.parse(hash);
  expect(parsed.ok && form.bound(parsed.params, DEFAULT_PASSWORD_LIMITS)).toBeUndefined();
  await expect(verify(secret, hash)).resolves.toBe(true);
  await expect(verify(wrongPassword(secret), hash)).resolves.toBe(false);
}

describe('hashes made for a random salt and password', () => {
  it.each(['$1$', '$apr1$'] as const)('%s verify', async (magic) => {
    await fc.assert(
      fc.asyncProperty(crypt64(0, 8), password, async (salt, secret) => {
        await expectMadeHashVerifies(magic, `${magic}${salt}$${md5CryptHash(utf8(secret), magic, utf8(salt))}`, secret);
      }),
      { numRuns: 40 },
    );
  });

  it.each([
    ['$5$', 'sha256'],
    ['$6$', 'sha512'],
  ] as const)('%s verify, with implicit or explicit rounds', async (magic, digest) => {
    await fc.assert(
      fc.asyncProperty(
        printableSalt.filter((salt) => !salt.startsWith('rounds=')),
        password,
        fc.option(fc.integer({ min: 1000, max: 1100 })),
        async (salt, secret, rounds) => {
          const setting = rounds === null ? `${magic}${salt}` : `${magic}rounds=${rounds}$${salt}`;
          await expectMadeHashVerifies(magic, `${setting}$${shaCryptHash(digest, utf8(secret), utf8(salt), rounds ?? 5000)}`, secret);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('$P$, $H$ and $S$ verify at the lowest count', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('$P$', '$H$', '$S$'), crypt64(8, 8), password, async (ident, salt, secret) => {
        const digest = iteratedDigest(ident === '$S$' ? 'sha512' : 'md5', utf8(secret), salt, 7).slice(0, ident === '$S$' ? 43 : 22);
        await expectMadeHashVerifies(ident, `${ident}5${salt}${digest}`, secret);
      }),
      { numRuns: 40 },
    );
  });

  it('$wp$ verifies (bcryptjs at cost 4 over the HMAC-SHA384)', async () => {
    await fc.assert(
      fc.asyncProperty(password, async (secret) => {
        const key = createHmac('sha384', 'wp-sha384').update(secret, 'utf8').digest('base64');
        await expectMadeHashVerifies('$wp$', `$wp${hashSync(key, 4).replace(/^\$2b\$/, '$2y$')}`, secret);
      }),
      { numRuns: 10 },
    );
  });

  it('LDAP digests verify, salted with 1 to 16 bytes', async () => {
    const schemes = [
      ['{SSHA}', 'sha1', true],
      ['{SSHA256}', 'sha256', true],
      ['{SSHA512}', 'sha512', true],
      ['{SMD5}', 'md5', true],
      ['{SHA}', 'sha1', false],
      ['{MD5}', 'md5', false],
    ] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...schemes),
        fc.uint8Array({ minLength: 1, maxLength: 16 }),
        password,
        async ([scheme, digest, salted], salt, secret) => {
          const tail = salted ? Buffer.from(salt) : Buffer.alloc(0);
          const value = Buffer.concat([createHash(digest).update(secret, 'utf8').update(tail).digest(), tail]).toString('base64');
          await expectMadeHashVerifies(scheme, `${scheme}${value}`, secret);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('the same hashes as openssl passwd', () => {
  const withOpenssl = itWithTool('openssl', 'openssl');
  /** A password openssl reads whole from one line of stdin. */
  const oneLine = password.filter((secret) => !/[\n\r\0]/.test(secret));
  /** openssl's SHA-crypt answers `<NULL>` for an empty password (crypt-vectors.test.ts has Python crypt's). */
  const nonEmptyLine = oneLine.filter((secret) => secret !== '');
  const openssl = (option: string, salt: string, secret: string): string =>
    runTool('openssl', ['passwd', option, '-salt', salt, '-stdin'], `${secret}\n`).trim();

  withOpenssl.each([
    ['-1', '$1$'],
    ['-apr1', '$apr1$'],
  ] as const)('openssl passwd %s', async (option, magic) => {
    await fc.assert(
      fc.asyncProperty(crypt64(1, 8), oneLine, async (salt, secret) => {
        const made = openssl(option, salt, secret);
        expect(made).toBe(`${magic}${salt}$${md5CryptHash(utf8(secret), magic, utf8(salt))}`);
        await expect(formLabelled(magic).verify(secret, made)).resolves.toBe(true);
      }),
      { numRuns: 12 },
    );
  });

  withOpenssl.each([
    ['-5', '$5$', 'sha256'],
    ['-6', '$6$', 'sha512'],
  ] as const)('openssl passwd %s, with rounds', async (option, magic, digest) => {
    await fc.assert(
      fc.asyncProperty(crypt64(1, 16), nonEmptyLine, fc.integer({ min: 1000, max: 1100 }), async (salt, secret, rounds) => {
        const made = openssl(option, `rounds=${rounds}$${salt}`, secret);
        expect(made).toBe(`${magic}rounds=${rounds}$${salt}$${shaCryptHash(digest, utf8(secret), utf8(salt), rounds)}`);
        await expect(formLabelled(magic).verify(secret, made)).resolves.toBe(true);
      }),
      { numRuns: 12 },
    );
  });
});
