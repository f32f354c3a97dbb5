import { validateImportedHash, verifyPassword } from '../../../lib/password';
import { ARGON2_VECTORS, BCRYPT_VECTORS, RECORDED_TOOL_VECTORS, VENDOR_SCRYPT_PROJECT, VENDOR_SCRYPT_VECTORS } from '../../fixtures/password-vectors';
import { OPTS, expectAccepted, toUrlSafe } from './helpers';

const ctx = { signerKey: VENDOR_SCRYPT_PROJECT.signerKey };

/** Splits a vendor scrypt import string into its parts. */
function scryptParts(hash: string): { digest: string; salt: string; m: string; r: string; s: string } {
  const [, , digest, salt, m, r, s] = hash.split('$');
  return { digest, salt, m, r, s };
}

describe('known vectors', () => {
  const all = [
    ...BCRYPT_VECTORS.map((v) => ({ ...v, algorithm: 'bcrypt', mixedCase: 'BCrypt' })),
    ...ARGON2_VECTORS.map((v) => ({ ...v, algorithm: 'argon2', mixedCase: 'ARGON2' })),
    ...VENDOR_SCRYPT_VECTORS.map((v) => ({ ...v, algorithm: 'vendor_scrypt', mixedCase: 'Vendor_Scrypt' })),
  ];

  describe.each(all)('$hash ($source)', ({ hash, password, algorithm, mixedCase }) => {
    it('verifies with the right password', async () => {
      await expect(verifyPassword(password, hash, ctx)).resolves.toBe(true);
    });

    it('fails with a wrong password', async () => {
      await expect(verifyPassword(`${password}x`, hash, ctx)).resolves.toBe(false);
    });

    it('validates with no algorithm, detecting it from the hash', () => {
      expect(validateImportedHash(hash, undefined, OPTS)).toEqual({ ok: true, algorithm, stored: hash });
    });

    it('validates with the matching algorithm in mixed case', () => {
      expect(validateImportedHash(hash, mixedCase, OPTS)).toEqual({ ok: true, algorithm, stored: hash });
    });
  });

  it.each(VENDOR_SCRYPT_VECTORS)('validates a vendor scrypt hash under the synonym firebase_scrypt ($password)', ({ hash }) => {
    expect(validateImportedHash(hash, 'firebase_scrypt', OPTS)).toEqual({ ok: true, algorithm: 'vendor_scrypt', stored: hash });
    expect(validateImportedHash(hash, 'FIREBASE_SCRYPT', OPTS)).toEqual({ ok: true, algorithm: 'vendor_scrypt', stored: hash });
  });

  describe.each(VENDOR_SCRYPT_VECTORS)('vendor scrypt $password in other spellings', ({ hash, password }) => {
    const { digest, salt, m, r, s } = scryptParts(hash);
    const sValue = s.slice(2);

    it('accepts the URL-safe alphabet, stores standard base64 and verifies', async () => {
      const urlSafe = `$f_scrypt$${toUrlSafe(digest)}$${toUrlSafe(salt)}$${m}$${r}$s=${toUrlSafe(sValue)}`;
      expect(urlSafe).toMatch(/[-_]/);
      const stored = expectAccepted(urlSafe, 'firebase_scrypt');
      expect(stored).toBe(hash);
      await expect(verifyPassword(password, urlSafe, ctx)).resolves.toBe(true);
      await expect(verifyPassword(`${password}x`, urlSafe, ctx)).resolves.toBe(false);
    });

    it.each([[['s', 'm', 'r']], [['r', 's', 'm']], [['s', 'r', 'm']]])('accepts the parameters in the order %j and stores them as m, r, s', async (order) => {
      const parts: Record<string, string> = { m, r, s };
      const reordered = `$f_scrypt$${digest}$${salt}$${order.map((key) => parts[key]).join('$')}`;
      expect(expectAccepted(reordered, undefined)).toBe(hash);
      await expect(verifyPassword(password, reordered, ctx)).resolves.toBe(true);
    });
  });

  describe.each(RECORDED_TOOL_VECTORS)('recorded tool hash $hash ($source)', ({ hash, password }) => {
    it('validates with no algorithm and verifies only with its password', async () => {
      expect(validateImportedHash(hash, undefined, OPTS).ok).toBe(true);
      await expect(verifyPassword(password, hash, ctx)).resolves.toBe(true);
      // The wrong character goes first: bcrypt ignores anything after byte 72.
      await expect(verifyPassword(`!${password}`, hash, ctx)).resolves.toBe(false);
    });
  });
});
