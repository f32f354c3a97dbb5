import { hash as bcryptHash } from 'bcryptjs';
import { verifyPassword } from '../../../lib/password';
import { bcryptFormat } from '../../../lib/password/bcrypt';
import { BCRYPT_VECTORS, LONG_PASSWORD, NON_ASCII_PASSWORD } from '../../fixtures/password-vectors';
import { expectAccepted, expectRefused, limitsWith } from './helpers';

const VECTOR = BCRYPT_VECTORS[0];
const BODY = VECTOR.hash.slice(7);
const withCost = (cost: string): string => `$2a$${cost}$${BODY}`;

describe('bcrypt format', () => {
  it('recognises $2a$, $2b$, $2x$, $2y$ and the bare $2$ by their prefix only', () => {
    for (const prefix of ['$2a$', '$2b$', '$2x$', '$2y$', '$2$']) {
      expect(bcryptFormat.matches(`${prefix}10$`)).toBe(true);
    }
    expect(bcryptFormat.matches('x$2a$10$')).toBe(false);
    expect(bcryptFormat.matches('$argon2id$')).toBe(false);
  });

  it('refuses an unknown revision, naming the accepted ones', () => {
    expectRefused(`$2c$10$${BODY}`, 'bcrypt', ['Password hash is in invalid BCrypt format', '$2a$, $2b$, $2x$ or $2y$']);
    expectRefused(`$2$10$${BODY}`, undefined, ['invalid BCrypt format', 'must start with $2a$']);
  });

  it('refuses a cost that is not two digits', () => {
    expectRefused(`$2a$5$${BODY}`, undefined, ['Password hash is in invalid BCrypt format: the cost must be two digits']);
    expectRefused(`$2a$100$${BODY}`, undefined, ['the cost must be two digits']);
    expectRefused(`$2a$1a$${BODY}`, undefined, ['the cost must be two digits']);
  });

  it('refuses a cost outside bcrypt’s own range 04–31 whatever the limits say', () => {
    const lenient = limitsWith({ bcryptMinCost: 1, bcryptMaxCost: 99 });
    expectRefused(withCost('03'), undefined, ['the cost must be between 04 and 31'], { limits: lenient, signerKeyConfigured: true });
    expectRefused(withCost('32'), undefined, ['the cost must be between 04 and 31'], { limits: lenient, signerKeyConfigured: true });
  });

  it('refuses a salt and hash that are not 53 characters, naming the expected length', () => {
    expectRefused(VECTOR.hash.slice(0, -1), undefined, ['53 characters (22 salt + 31 hash), not 52']);
    expectRefused(`${VECTOR.hash}q`, undefined, ['53 characters (22 salt + 31 hash), not 54']);
    expectRefused('$2a$10$', undefined, ['not 0']);
  });

  it('refuses characters outside bcrypt’s base64 alphabet', () => {
    expectRefused(`$2a$10$+${BODY.slice(1)}`, undefined, ['may only contain the characters ./A-Za-z0-9']);
  });

  it('refuses a salt or hash whose last character has unused bits set (no bcrypt could verify it)', () => {
    // 'O' → 'P' in the salt's 22nd character, 'q' → 'r' in the hash's 31st.
    expect(BODY[21]).toBe('O');
    expectRefused(`$2a$10$${BODY.slice(0, 21)}P${BODY.slice(22)}`, undefined, ['unused bits']);
    expect(BODY[52]).toBe('q');
    expectRefused(`$2a$10$${BODY.slice(0, 52)}r`, undefined, ['unused bits']);
  });

  it('stores a valid hash unchanged, whatever its revision', () => {
    for (const vector of BCRYPT_VECTORS) {
      expect(expectAccepted(vector.hash, 'bcrypt')).toBe(vector.hash);
    }
  });
});

describe('bcrypt limits', () => {
  it('refuses a bcrypt cost above 16, naming the bound', () => {
    expectRefused(withCost('17'), undefined, ['Password hash bcrypt cost 17 is above the maximum of 16']);
    expectRefused(withCost('31'), 'bcrypt', ['bcrypt cost 31 is above the maximum of 16']);
  });

  it('accepts the bounds themselves, costs 04 and 16', () => {
    expectAccepted(withCost('04'), undefined);
    expectAccepted(withCost('16'), undefined);
  });

  it('refuses a cost below a configured minimum, naming the bound', () => {
    const limits = limitsWith({ bcryptMinCost: 8 });
    expectRefused(withCost('05'), undefined, ['bcrypt cost 5 is below the minimum of 8'], { limits, signerKeyConfigured: true });
  });

  it('honours a configured maximum instead of the default', () => {
    const limits = limitsWith({ bcryptMaxCost: 9 });
    expectRefused(VECTOR.hash, undefined, ['bcrypt cost 10 is above the maximum of 9'], { limits, signerKeyConfigured: true });
  });
});

describe('bcrypt verification', () => {
  it('verifies $2x$ as $2a$, although bcryptjs refuses the $2x$ prefix itself', async () => {
    const vector = BCRYPT_VECTORS.find((v) => v.hash.startsWith('$2x$'));
    expect(vector).toBeDefined();
    await expect(verifyPassword(vector!.password, vector!.hash, {})).resolves.toBe(true);
  });

  it('uses only the first 72 UTF-8 bytes of the password, as every bcrypt does', async () => {
    const stored = await bcryptHash(LONG_PASSWORD.slice(0, 72), 4);
    await expect(verifyPassword(LONG_PASSWORD, stored, {})).resolves.toBe(true);
    await expect(verifyPassword(`${LONG_PASSWORD.slice(0, 72)}different tail`, stored, {})).resolves.toBe(true);
    await expect(verifyPassword(LONG_PASSWORD.slice(0, 71), stored, {})).resolves.toBe(false);
  });

  it('counts the 72 bytes in UTF-8, not in characters', async () => {
    const eightyBytes = 'ä'.repeat(40);
    expect(Buffer.byteLength(eightyBytes)).toBe(80);
    const stored = await bcryptHash('ä'.repeat(36), 4);
    await expect(verifyPassword(eightyBytes, stored, {})).resolves.toBe(true);
    await expect(verifyPassword('ä'.repeat(35), stored, {})).resolves.toBe(false);
  });

  it('verifies a non-ASCII password through its UTF-8 bytes', async () => {
    const stored = await bcryptHash(NON_ASCII_PASSWORD, 4);
    await expect(verifyPassword(NON_ASCII_PASSWORD, stored, {})).resolves.toBe(true);
    await expect(verifyPassword(NON_ASCII_PASSWORD.normalize('NFD'), stored, {})).resolves.toBe(false);
  });
});
