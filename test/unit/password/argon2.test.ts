import { hash as argon2Hash } from '@node-rs/argon2';
import { verifyPassword } from '../../../lib/password';
import { ARGON2_VECTORS, RECORDED_TOOL_VECTORS } from '../../fixtures/password-vectors';
import { expectAccepted, expectRefused, limitsWith } from './helpers';

const VECTOR = ARGON2_VECTORS[0];
const SALT = 'VG1Oa1lMbzZLbzk5azQ2Qg';
const DIGEST = 'kjcNNtZ/b0t/8HgXUiQ76A';
const build = (params: string, salt = SALT, digest = DIGEST, head = '$argon2id$v=19'): string => `${head}$${params}$${salt}$${digest}`;

describe('Argon2 format', () => {
  it('refuses an unknown variant, naming the accepted ones', () => {
    expectRefused(VECTOR.hash.replace('argon2id', 'argon2x'), undefined, [
      'Password hash is in invalid Argon2 format: it must start with $argon2id$, $argon2i$ or $argon2d$',
    ]);
  });

  it('refuses a version other than 19 or 16', () => {
    expectRefused(VECTOR.hash.replace('v=19', 'v=18'), undefined, ['the version must be v=19 or v=16']);
    expectRefused(VECTOR.hash.replace('v=19', 'v=0x13'), undefined, ['the version must be v=19 or v=16']);
  });

  it('refuses a string with missing or extra segments, showing the expected form', () => {
    expectRefused(`$argon2id$v=19$m=16,t=2,p=1$${SALT}`, undefined, ['it must have the form $argon2id$v=19$m=<memory KiB>']);
    expectRefused(`${VECTOR.hash}$extra`, undefined, ['it must have the form']);
  });

  it('refuses parameters out of order, missing, extra or with leading zeros', () => {
    for (const params of ['t=2,m=16,p=1', 'm=16,t=2', 'm=16,t=2,p=1,keyid=AAAA', 'm=016,t=2,p=1', 'm=16,t=2,p=x', 'm=16;t=2;p=1']) {
      expectRefused(build(params), undefined, ['the parameters must be m=, t= and p=, in that order']);
    }
  });

  it('refuses t below 1 and p below 1, naming the parameter', () => {
    expectRefused(build('m=16,t=0,p=1'), undefined, ['t (iterations) must be between 1']);
    expectRefused(build('m=16,t=2,p=0'), undefined, ['p (parallelism) must be between 1']);
  });

  it('refuses m below 8 KiB per lane, as the Argon2 specification requires', () => {
    expectRefused(build('m=15,t=2,p=2'), undefined, ['m (memory) must be at least 8 KiB per lane (8·p)']);
    expectRefused(build('m=7,t=2,p=1'), undefined, ['m (memory) must be at least 8 KiB per lane']);
  });

  it('refuses a salt or hash that is not standard base64, naming which one', () => {
    expectRefused(build('m=16,t=2,p=1', 'VG1Oa1lMbzZLbzk5azQ2Q_'), undefined, ['the salt must be standard base64']);
    expectRefused(build('m=16,t=2,p=1', SALT, 'kjcNNtZ-b0t-8HgXUiQ76A'), undefined, ['the hash must be standard base64']);
    expectRefused(build('m=16,t=2,p=1', `${SALT}AAA`), undefined, ['the salt must be standard base64']);
  });

  it('refuses base64 with stray trailing bits, which @node-rs/argon2 cannot decode', () => {
    expectRefused(build('m=16,t=2,p=1', 'VG1Oa1lMbzZLbzk5azQ2Qh'), undefined, ['the salt must be standard base64']);
    expectRefused(build('m=16,t=2,p=1', SALT, 'kjcNNtZ/b0t/8HgXUiQ76B'), undefined, ['the hash must be standard base64']);
  });

  it('refuses a salt shorter than 8 bytes and a hash shorter than 4 bytes, naming the bound', () => {
    expectRefused(build('m=16,t=2,p=1', 'AAAAAAAAAA'), undefined, ['the salt must be at least 8 bytes']);
    expectRefused(build('m=16,t=2,p=1', SALT, 'AAAA'), undefined, ['the hash must be at least 4 bytes']);
  });

  it('accepts padded base64 and stores it without padding', async () => {
    const padded = build('m=16,t=2,p=1', `${SALT}==`, `${DIGEST}==`);
    expect(expectAccepted(padded, 'argon2')).toBe(VECTOR.hash);
    await expect(verifyPassword(VECTOR.password, padded, {})).resolves.toBe(true);
  });
});

describe('Argon2 versions', () => {
  const v16 = RECORDED_TOOL_VECTORS.filter((v) => v.hash.includes('$v=16$'));

  it.each(v16)('verifies a version 16 hash from the reference implementation ($hash)', async ({ hash, password }) => {
    expect(expectAccepted(hash, undefined)).toBe(hash);
    await expect(verifyPassword(password, hash, {})).resolves.toBe(true);
    await expect(verifyPassword(`${password}x`, hash, {})).resolves.toBe(false);
  });

  it.each(v16)('reads a missing v= as version 16 and stores v=16 explicitly ($hash)', async ({ hash, password }) => {
    const withoutVersion = hash.replace('$v=16', '');
    expect(expectAccepted(withoutVersion, 'Argon2')).toBe(hash);
    await expect(verifyPassword(password, withoutVersion, {})).resolves.toBe(true);
  });

  it('does not verify a version 16 hash relabelled as version 19', async () => {
    const [{ hash, password }] = v16;
    await expect(verifyPassword(password, hash.replace('v=16', 'v=19'), {})).resolves.toBe(false);
  });

  it('does not verify a hash relabelled with another variant', async () => {
    await expect(verifyPassword(VECTOR.password, VECTOR.hash.replace('argon2id', 'argon2i'), {})).resolves.toBe(false);
    await expect(verifyPassword(VECTOR.password, VECTOR.hash.replace('argon2id', 'argon2d'), {})).resolves.toBe(false);
  });

  it('does not verify a hash whose parameters were changed', async () => {
    await expect(verifyPassword(VECTOR.password, VECTOR.hash.replace('t=2', 't=3'), {})).resolves.toBe(false);
    await expect(verifyPassword(VECTOR.password, VECTOR.hash.replace('m=16', 'm=32'), {})).resolves.toBe(false);
  });

  it('verifies a non-ASCII password hashed with several lanes and a 64-byte output', async () => {
    const salt = Buffer.from('0123456789abcdef');
    const stored = await argon2Hash('pässwörd-日本', { memoryCost: 64, timeCost: 1, parallelism: 4, outputLen: 64, salt });
    await expect(verifyPassword('pässwörd-日本', stored, {})).resolves.toBe(true);
    await expect(verifyPassword('passwörd-日本', stored, {})).resolves.toBe(false);
  });
});

describe('Argon2 limits', () => {
  it('refuses memory above 262144 KiB, naming the bound', () => {
    expectRefused(build('m=262145,t=2,p=1'), undefined, ['Password hash Argon2 memory m=262145 KiB is above the maximum of 262144 KiB']);
  });

  it('refuses iterations above 16, naming the bound', () => {
    expectRefused(build('m=16,t=17,p=1'), undefined, ['Argon2 iterations t=17 is above the maximum of 16']);
  });

  it('refuses parallelism above 16, naming the bound', () => {
    expectRefused(build('m=1024,t=2,p=17'), 'argon2', ['Argon2 parallelism p=17 is above the maximum of 16']);
  });

  it('accepts the bounds themselves', () => {
    expectAccepted(build('m=262144,t=16,p=16'), undefined);
  });

  it('honours configured limits instead of the defaults', () => {
    const limits = limitsWith({ argon2MaxMemoryKiB: 8, argon2MaxIterations: 1, argon2MaxParallelism: 1 });
    expectRefused(VECTOR.hash, undefined, ['m=16 KiB is above the maximum of 8 KiB'], { limits, signerKeyConfigured: true });
  });
});
