import fc from 'fast-check';
import { DEFAULT_PASSWORD_LIMITS, validateImportedHash } from '../../../lib/password';
import { FAMILIES } from '../../../lib/password/families';
import { aspnetIdentityForm } from '../../../lib/password/forms/aspnet-identity';
import { djangoBcryptSha256Form, passlibBcryptSha256Form } from '../../../lib/password/forms/bcrypt-sha256';
import type { HashForm } from '../../../lib/password/forms/form';
import { djangoPbkdf2Form, passlibPbkdf2Form, type Pbkdf2Params, werkzeugPbkdf2Form } from '../../../lib/password/forms/pbkdf2';
import { djangoScryptForm, phcScryptForm, type ScryptParams, werkzeugScryptForm } from '../../../lib/password/forms/scrypt';
import { OPTS } from './helpers';

/*
 * Properties of SPEC §7b's forms: a hash written in a form parses back to what was written, and no
 * string, however malformed, makes a parser throw (an import answers a 400, never a 500).
 */

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const unpadded = (bytes: Uint8Array) => b64(bytes).replace(/=+$/, '');
const ab64 = (bytes: Uint8Array) => unpadded(bytes).replace(/\+/g, '.');
/** Salt text as Django and Werkzeug write it: no `$`. */
const saltText = fc.stringMatching(/^[A-Za-z0-9./+ _-]{1,24}$/);
const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });

function parsed<P>(form: HashForm<P>, encoded: string): P {
  const result = form.parse(encoded);
  if (!result.ok) throw new Error(`did not parse (${result.reason}): ${encoded}`);
  return result.params;
}

const buf = (b: Uint8Array) => Buffer.from(b);

describe('a hash written in a form parses back to its parameters', () => {
  const digest = fc.constantFrom('sha1', 'sha256', 'sha512') as fc.Arbitrary<Pbkdf2Params['digest']>;
  const iterations = fc.integer({ min: 1, max: 99_999_999 });

  it('PBKDF2: passlib and PHC', () => {
    fc.assert(
      fc.property(digest, iterations, bytes(1, 32), bytes(1, 64), (d, i, salt, key) => {
        const ident = d === 'sha1' ? 'pbkdf2' : `pbkdf2-${d}`;
        const expected = { digest: d, iterations: i, salt: buf(salt), key: buf(key) };
        expect(parsed(passlibPbkdf2Form, `$${ident}$${i}$${ab64(salt)}$${ab64(key)}`)).toEqual(expected);
        expect(parsed(passlibPbkdf2Form, `$pbkdf2-${d}$i=${i},l=${key.length}$${unpadded(salt)}$${b64(key)}`)).toEqual(expected);
      }),
    );
  });

  it('PBKDF2: Django and Werkzeug', () => {
    fc.assert(
      fc.property(fc.constantFrom('sha1', 'sha256') as fc.Arbitrary<'sha1' | 'sha256'>, iterations, saltText, bytes(1, 64), (d, i, salt, key) => {
        const expected = { digest: d, iterations: i, salt: Buffer.from(salt), key: buf(key) };
        expect(parsed(djangoPbkdf2Form, `pbkdf2_${d}$${i}$${salt}$${b64(key)}`)).toEqual(expected);
        expect(parsed(werkzeugPbkdf2Form, `pbkdf2:${d}:${i}$${salt}$${Buffer.from(key).toString('hex')}`)).toEqual(expected);
      }),
    );
  });

  it('ASP.NET Identity v3', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 ** 32 - 1 }), bytes(16, 40), bytes(1, 64), (prf, i, salt, key) => {
        const header = Buffer.alloc(13);
        header[0] = 1;
        header.writeUInt32BE(prf, 1);
        header.writeUInt32BE(i, 5);
        header.writeUInt32BE(salt.length, 9);
        const blob = Buffer.concat([header, salt, key]).toString('base64');
        expect(parsed(aspnetIdentityForm, blob)).toEqual({ digest: ['sha1', 'sha256', 'sha512'][prf], iterations: i, salt: buf(salt), key: buf(key) });
      }),
    );
  });

  it('scrypt: PHC, Django and Werkzeug', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 64 }),
        bytes(1, 32),
        bytes(1, 64),
        saltText,
        (ln, r, p, salt, key, text) => {
          const N = 2 ** ln;
          const expected: ScryptParams = { N, r, p, salt: buf(salt), key: buf(key) };
          expect(parsed(phcScryptForm, `$scrypt$ln=${ln},r=${r},p=${p}$${unpadded(salt)}$${unpadded(key)}`)).toEqual(expected);
          const withText = { ...expected, salt: Buffer.from(text) };
          expect(parsed(djangoScryptForm, `scrypt$${N}$${text}$${r}$${p}$${b64(key)}`)).toEqual(withText);
          expect(parsed(werkzeugScryptForm, `scrypt:${N}:${r}:${p}$${text}$${Buffer.from(key).toString('hex')}`)).toEqual(withText);
        },
      ),
    );
  });

  it('BCrypt-SHA256: Django, passlib v2 and its older form', () => {
    const crypt64 = (n: number) => fc.stringMatching(new RegExp(`^[./A-Za-z0-9]{${n}}$`));
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 31 }), crypt64(22), crypt64(31), (cost, salt, hash) => {
        const cc = String(cost).padStart(2, '0');
        expect(parsed(djangoBcryptSha256Form, `bcrypt_sha256$$2b$${cc}$${salt}${hash}`)).toEqual({ secret: 'hex', cost, salt, hash });
        expect(parsed(passlibBcryptSha256Form, `$bcrypt-sha256$v=2,t=2b,r=${cost}$${salt}$${hash}`)).toEqual({ secret: 'hmac', cost, salt, hash });
        expect(parsed(passlibBcryptSha256Form, `$bcrypt-sha256$2a,${cost}$${salt}$${hash}`)).toEqual({ secret: 'sha256', cost, salt, hash });
      }),
    );
  });
});

describe('no string makes a parser throw', () => {
  const forms = FAMILIES.flatMap((family) => family.forms);
  const markers = [
    'pbkdf2_sha256$',
    'pbkdf2_',
    '$pbkdf2',
    '$pbkdf2-sha256$i=',
    'pbkdf2:',
    'pbkdf2:sha1:',
    '$scrypt$ln=',
    'scrypt$',
    'scrypt:',
    'bcrypt_sha256$$2b$',
    '$bcrypt-sha256$v=2,t=2b,r=',
    'AQAAAA',
  ];
  const pieces = fc.constantFrom(
    '$',
    ':',
    ',',
    '=',
    '.',
    '/',
    '+',
    '0',
    '1',
    '99999999999999999999',
    'i=',
    'l=',
    'ln=',
    'r=',
    'p=',
    'AAAA',
    '==',
    '-',
    'ab',
    'é',
  );
  const shaped = fc
    .tuple(fc.constantFrom(...markers), fc.array(fc.oneof(pieces, fc.string({ maxLength: 8 })), { maxLength: 12 }))
    .map(([m, rest]) => m + rest.join(''));
  const anything = fc.oneof(fc.string({ maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 60 }), shaped);

  it('in any form, and its bound', () => {
    fc.assert(
      fc.property(anything, (encoded) => {
        for (const form of forms) {
          const result = form.parse(encoded);
          if (result.ok) form.bound(result.params, DEFAULT_PASSWORD_LIMITS);
          else expect(typeof result.reason).toBe('string');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('nor the import of it under any value: a result, never the hash in a 400', () => {
    const values = fc.constantFrom(undefined, ...FAMILIES.map((f) => f.value), 'bcrypt', 'argon2', 'firebase_scrypt');
    fc.assert(
      fc.property(shaped, values, (encoded, value) => {
        const result = validateImportedHash(encoded, value, OPTS);
        if (!result.ok && encoded.length >= 16) expect(result.message).not.toContain(encoded);
      }),
      { numRuns: 2000 },
    );
  });
});
