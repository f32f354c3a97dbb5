import { DEFAULT_OWN_HASH_PARAMS, dummyVerify, hashPassword, needsRehash, validateImportedHash, verifyPassword } from '../../../lib/password';
import type { OwnHashParams } from '../../../lib/password';
import { ARGON2_VECTORS, BCRYPT_VECTORS, NON_ASCII_PASSWORD, VENDOR_SCRYPT_VECTORS } from '../../fixtures/password-vectors';
import { OPTS } from './helpers';

const SMALL: OwnHashParams = { memoryKiB: 1024, iterations: 1, parallelism: 2 };

describe('hashPassword', () => {
  it('produces an Argon2id v=19 PHC string with the OWASP default parameters', async () => {
    const stored = await hashPassword(NON_ASCII_PASSWORD, DEFAULT_OWN_HASH_PARAMS);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    await expect(verifyPassword(NON_ASCII_PASSWORD, stored, {})).resolves.toBe(true);
    await expect(verifyPassword('pässwörd-日本!', stored, {})).resolves.toBe(false);
  });

  it('uses the configured parameters', async () => {
    const stored = await hashPassword('secret', SMALL);
    expect(stored.startsWith('$argon2id$v=19$m=1024,t=1,p=2$')).toBe(true);
    await expect(verifyPassword('secret', stored, {})).resolves.toBe(true);
  });

  it('salts every hash afresh', async () => {
    const [first, second] = await Promise.all([hashPassword('secret', SMALL), hashPassword('secret', SMALL)]);
    expect(first).not.toBe(second);
  });

  it('produces a hash that the import validation accepts unchanged', async () => {
    const stored = await hashPassword('secret', SMALL);
    expect(validateImportedHash(stored, undefined, OPTS)).toEqual({ ok: true, algorithm: 'argon2', stored });
  });
});

describe('needsRehash', () => {
  it('is false for an Argon2id v=19 hash with exactly the own parameters', async () => {
    const stored = await hashPassword('secret', DEFAULT_OWN_HASH_PARAMS);
    expect(needsRehash(stored, DEFAULT_OWN_HASH_PARAMS)).toBe(false);
  });

  it.each([...BCRYPT_VECTORS, ...VENDOR_SCRYPT_VECTORS, ...ARGON2_VECTORS])('is true for an imported hash $hash', ({ hash }) => {
    expect(needsRehash(hash, DEFAULT_OWN_HASH_PARAMS)).toBe(true);
  });

  it.each([
    ['another m', '$argon2id$v=19$m=19457,t=2,p=1'],
    ['another t', '$argon2id$v=19$m=19456,t=3,p=1'],
    ['another p', '$argon2id$v=19$m=19456,t=2,p=2'],
    ['Argon2i', '$argon2i$v=19$m=19456,t=2,p=1'],
    ['Argon2d', '$argon2d$v=19$m=19456,t=2,p=1'],
    ['version 16', '$argon2id$v=16$m=19456,t=2,p=1'],
    ['no version (16)', '$argon2id$m=19456,t=2,p=1'],
  ])('is true for an Argon2 hash with %s', (_label, head) => {
    const stored = `${head}$VG1Oa1lMbzZLbzk5azQ2Qg$kjcNNtZ/b0t/8HgXUiQ76A`;
    expect(needsRehash(stored, DEFAULT_OWN_HASH_PARAMS)).toBe(true);
  });

  it('is true for a string in no known format', () => {
    expect(needsRehash('garbage', DEFAULT_OWN_HASH_PARAMS)).toBe(true);
  });

  it('compares against the parameters passed in, not the defaults', async () => {
    const stored = await hashPassword('secret', SMALL);
    expect(needsRehash(stored, SMALL)).toBe(false);
    expect(needsRehash(stored, DEFAULT_OWN_HASH_PARAMS)).toBe(true);
  });
});

describe('dummyVerify', () => {
  it('resolves for any password, including an empty one', async () => {
    await expect(dummyVerify('', SMALL)).resolves.toBeUndefined();
    await expect(dummyVerify(NON_ASCII_PASSWORD, DEFAULT_OWN_HASH_PARAMS)).resolves.toBeUndefined();
  });
});
