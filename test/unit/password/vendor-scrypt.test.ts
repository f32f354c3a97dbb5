import { SignerKeyNotConfiguredError, validateImportedHash, verifyPassword } from '../../../lib/password';
import { RECORDED_TOOL_VECTORS, VENDOR_SCRYPT_PROJECT, VENDOR_SCRYPT_VECTORS } from '../../fixtures/password-vectors';
import { OPTS, expectAccepted, expectRefused, limitsWith, toUrlSafe } from './helpers';

const [VECTOR] = VENDOR_SCRYPT_VECTORS;
const [, , DIGEST, SALT] = VECTOR.hash.split('$');
const build = (...parts: string[]): string => `$f_scrypt$${parts.join('$')}`;
const ctx = { signerKey: VENDOR_SCRYPT_PROJECT.signerKey };

describe('vendor scrypt format', () => {
  it('refuses a string with missing or extra segments, showing the expected form', () => {
    expectRefused(build(DIGEST, SALT, 'm=14', 'r=8'), undefined, [
      'Password hash is in invalid vendor scrypt format: it must have the form $f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<salt_separator>',
    ]);
    expectRefused(build(DIGEST, SALT, 'm=14', 'r=8', 's=Bw==', 'p=1'), undefined, ['it must have the form']);
  });

  it('refuses an unknown parameter', () => {
    expectRefused(build(DIGEST, SALT, 'm=14', 'r=8', 'p=1'), undefined, ['the parameters after the salt must be m=, r= and s=']);
    expectRefused(build(DIGEST, SALT, 'm=14', 'r=8', 'Bw=='), undefined, ['must be m=, r= and s=']);
  });

  it('refuses a parameter given twice, naming it', () => {
    expectRefused(build(DIGEST, SALT, 'm=14', 'm=14', 's=Bw=='), undefined, ['the parameter m= must appear exactly once']);
    expectRefused(build(DIGEST, SALT, 's=Bw==', 'r=8', 's=Bw=='), undefined, ['the parameter s= must appear exactly once']);
  });

  it('refuses a mem_cost or rounds that is not a positive integer, naming the parameter', () => {
    for (const m of ['m=0', 'm=', 'm=-1', 'm=1.5', 'm=014', 'm=x']) {
      expectRefused(build(DIGEST, SALT, m, 'r=8', 's=Bw=='), undefined, ['m (mem_cost) must be a positive integer']);
    }
    for (const r of ['r=0', 'r=', 'r=8e0']) {
      expectRefused(build(DIGEST, SALT, 'm=14', r, 's=Bw=='), undefined, ['r (rounds) must be a positive integer']);
    }
  });

  it('refuses a mem_cost of 16·rounds or more, which scrypt cannot compute', () => {
    expectRefused(build(DIGEST, SALT, 'm=16', 'r=1', 's=Bw=='), undefined, ['m (mem_cost) must be less than 16 times r (rounds)']);
    expectAccepted(build(DIGEST, SALT, 'm=15', 'r=1', 's=Bw=='), undefined);
  });

  it('refuses a hash, salt or separator that is not base64, naming which one', () => {
    expectRefused(build(`*${DIGEST.slice(1)}`, SALT, 'm=14', 'r=8', 's=Bw=='), undefined, ['the hash must be non-empty base64']);
    expectRefused(build(DIGEST, '42xEC+ixf3L2l', 'm=14', 'r=8', 's=Bw=='), undefined, ['the salt must be non-empty base64']);
    expectRefused(build(DIGEST, SALT, 'm=14', 'r=8', 's=Bw='), undefined, ['the salt separator s= must be base64']);
    expectRefused(build(DIGEST, SALT, 'm=14', 'r=8', 's=B'), undefined, ['the salt separator s= must be base64']);
  });

  it('refuses a field mixing the standard and URL-safe alphabets', () => {
    const mixed = `${DIGEST.slice(0, 10)}_${DIGEST.slice(11)}`;
    expect(mixed).toContain('/');
    expectRefused(build(mixed, SALT, 'm=14', 'r=8', 's=Bw=='), undefined, ['the hash must be non-empty base64']);
  });

  it('refuses an empty hash or salt', () => {
    expectRefused(build('', SALT, 'm=14', 'r=8', 's=Bw=='), undefined, ['the hash must be non-empty base64']);
    expectRefused(build(DIGEST, '', 'm=14', 'r=8', 's=Bw=='), undefined, ['the salt must be non-empty base64']);
  });

  it('stores unpadded URL-safe input as padded standard base64', () => {
    const stored = expectAccepted(build(toUrlSafe(DIGEST), toUrlSafe(SALT), 'r=8', 's=Bw', 'm=14'), 'vendor_scrypt');
    expect(stored).toBe(VECTOR.hash);
  });
});

describe('vendor scrypt limits and signer key', () => {
  it('refuses a mem_cost above 17, naming the bound', () => {
    expectRefused(build(DIGEST, SALT, 'm=18', 'r=8', 's=Bw=='), undefined, ['Password hash vendor scrypt mem_cost m=18 is above the maximum of 17']);
  });

  it('refuses rounds above 16, naming the bound', () => {
    expectRefused(build(DIGEST, SALT, 'm=14', 'r=17', 's=Bw=='), 'firebase_scrypt', ['vendor scrypt rounds r=17 is above the maximum of 16']);
  });

  it('accepts the bounds themselves, mem_cost 17 and rounds 16', () => {
    expectAccepted(build(DIGEST, SALT, 'm=17', 'r=16', 's=Bw=='), undefined);
  });

  it('honours configured limits instead of the defaults', () => {
    const limits = limitsWith({ scryptMaxMemCost: 13 });
    expectRefused(VECTOR.hash, undefined, ['mem_cost m=14 is above the maximum of 13'], { limits, signerKeyConfigured: true });
  });

  it('refuses a vendor scrypt hash while the signer key is not configured', () => {
    const result = validateImportedHash(VECTOR.hash, undefined, { ...OPTS, signerKeyConfigured: false });
    expect(result).toEqual({ ok: false, message: 'vendor_password_hashing_signer_key is not configured' });
  });

  it('accepts other algorithms while the signer key is not configured', () => {
    const result = validateImportedHash('$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq', undefined, {
      ...OPTS,
      signerKeyConfigured: false,
    });
    expect(result.ok).toBe(true);
  });
});

describe('vendor scrypt verification', () => {
  it('fails, without throwing, under a wrong signer key', async () => {
    const wrongKey = Buffer.alloc(64, 7).toString('base64');
    await expect(verifyPassword(VECTOR.password, VECTOR.hash, { signerKey: wrongKey })).resolves.toBe(false);
  });

  it('fails under a signer key of another length', async () => {
    const shortKey = Buffer.alloc(32, 7).toString('base64');
    await expect(verifyPassword(VECTOR.password, VECTOR.hash, { signerKey: shortKey })).resolves.toBe(false);
  });

  it('throws SignerKeyNotConfiguredError for a stored hash when no signer key is configured', async () => {
    const attempt = verifyPassword(VECTOR.password, VECTOR.hash, {});
    await expect(attempt).rejects.toBeInstanceOf(SignerKeyNotConfiguredError);
    await expect(attempt).rejects.toMatchObject({
      name: 'SignerKeyNotConfiguredError',
      message: 'vendor_password_hashing_signer_key is not configured',
    });
    await expect(verifyPassword(VECTOR.password, VECTOR.hash, { signerKey: '' })).rejects.toBeInstanceOf(SignerKeyNotConfiguredError);
  });

  it('throws SignerKeyNotConfiguredError when the configured signer key is not base64', async () => {
    await expect(verifyPassword(VECTOR.password, VECTOR.hash, { signerKey: 'not base64!' })).rejects.toMatchObject({
      name: 'SignerKeyNotConfiguredError',
      message: 'vendor_password_hashing_signer_key is not valid base64',
    });
  });

  it('accepts the signer key in the URL-safe alphabet too', async () => {
    const signerKey = toUrlSafe(VENDOR_SCRYPT_PROJECT.signerKey);
    await expect(verifyPassword(VECTOR.password, VECTOR.hash, { signerKey })).resolves.toBe(true);
  });

  it('verifies a non-ASCII password through its UTF-8 bytes (hash made with the OpenSSL CLI)', async () => {
    const vector = RECORDED_TOOL_VECTORS.find((v) => v.hash.startsWith('$f_scrypt$'));
    expect(vector).toBeDefined();
    const { hash, password } = vector!;
    await expect(verifyPassword(password, hash, ctx)).resolves.toBe(true);
    await expect(verifyPassword(password.normalize('NFD'), hash, ctx)).resolves.toBe(false);
    await expect(verifyPassword(Buffer.from(password, 'utf8').toString('latin1'), hash, ctx)).resolves.toBe(false);
  });
});
