import { validateImportedHash, verifyPassword } from '../../../lib/password';
import { LONG_PASSWORD, NON_ASCII_PASSWORD, VENDOR_SCRYPT_PROJECT } from '../../fixtures/password-vectors';
import { OPTS, itWithTool, runTool, runToolBinary } from './helpers';

/**
 * Hashes generated during the run by independent implementations (Debian packages).
 * A missing tool skips its tests with a printed reason; a present one always runs them.
 */

const PASSWORDS = ['correct horse battery staple', NON_ASCII_PASSWORD];

async function expectImportableAndVerifies(stored: string, password: string, wrong: string): Promise<void> {
  expect(validateImportedHash(stored, undefined, OPTS)).toMatchObject({ ok: true });
  await expect(verifyPassword(password, stored, {})).resolves.toBe(true);
  await expect(verifyPassword(wrong, stored, {})).resolves.toBe(false);
}

describe('htpasswd (apache2-utils): $2y$', () => {
  const withHtpasswd = itWithTool('htpasswd', 'apache2-utils');
  const htpasswd = (password: string): string => runTool('htpasswd', ['-nbBC', '10', '', password]).trim().replace(/^:/, '');

  withHtpasswd.each(PASSWORDS)('verifies a $2y$ hash of %j', async (password) => {
    const stored = htpasswd(password);
    expect(stored).toMatch(/^\$2y\$10\$/);
    await expectImportableAndVerifies(stored, password, `${password}x`);
  });

  withHtpasswd('verifies an 80-byte password against a hash of its first 72 bytes', async () => {
    const stored = htpasswd(LONG_PASSWORD.slice(0, 72));
    await expectImportableAndVerifies(stored, LONG_PASSWORD, `y${LONG_PASSWORD.slice(1)}`);
  });
});

describe('mkpasswd (whois): $2b$', () => {
  const withMkpasswd = itWithTool('mkpasswd', 'whois');

  withMkpasswd.each(PASSWORDS)('verifies a $2b$ hash of %j', async (password) => {
    const stored = runTool('mkpasswd', ['-m', 'bcrypt', password]).trim();
    expect(stored).toMatch(/^\$2b\$\d\d\$/);
    await expectImportableAndVerifies(stored, password, `${password}x`);
  });

  withMkpasswd('verifies an 80-byte password against a hash of its first 72 bytes', async () => {
    const stored = runTool('mkpasswd', ['-m', 'bcrypt', LONG_PASSWORD.slice(0, 72)]).trim();
    await expectImportableAndVerifies(stored, LONG_PASSWORD, `y${LONG_PASSWORD.slice(1)}`);
  });
});

describe('argon2 (reference C implementation CLI)', () => {
  const withArgon2 = itWithTool('argon2', 'argon2');
  const argon2Cli = (password: string, args: readonly string[]): string =>
    runTool('argon2', ['SALTSALT', ...args, '-t', '2', '-m', '12', '-p', '1', '-e'], password).trim();

  const cases: Array<[string, readonly string[], RegExp]> = [
    ['Argon2id v=19', ['-id'], /^\$argon2id\$v=19\$m=4096,t=2,p=1\$/],
    ['Argon2d v=19', ['-d'], /^\$argon2d\$v=19\$/],
    ['Argon2i v=19', ['-i'], /^\$argon2i\$v=19\$/],
    ['Argon2id v=16', ['-id', '-v', '10'], /^\$argon2id\$v=16\$/],
    ['Argon2d v=16', ['-d', '-v', '10'], /^\$argon2d\$v=16\$/],
    ['Argon2i v=16', ['-i', '-v', '10'], /^\$argon2i\$v=16\$/],
  ];

  describe.each(PASSWORDS)('password %j', (password) => {
    withArgon2.each(cases)('verifies an %s hash', async (_label, args, shape) => {
      const stored = argon2Cli(password, args);
      expect(stored).toMatch(shape);
      await expectImportableAndVerifies(stored, password, `${password}x`);
    });
  });

  withArgon2('verifies a version 16 hash with the v= part removed, and stores it with v=16', async () => {
    const stored = argon2Cli(NON_ASCII_PASSWORD, ['-id', '-v', '10']);
    const withoutVersion = stored.replace('$v=16', '');
    expect(validateImportedHash(withoutVersion, 'argon2', OPTS)).toEqual({ ok: true, algorithm: 'argon2', stored });
    await expect(verifyPassword(NON_ASCII_PASSWORD, withoutVersion, {})).resolves.toBe(true);
  });
});

describe('openssl (scrypt KDF, then AES-256-CTR): vendor scrypt', () => {
  const withOpenssl = itWithTool('openssl', 'openssl');
  const ctx = { signerKey: VENDOR_SCRYPT_PROJECT.signerKey };

  /** Firebase's construction, done by the OpenSSL command-line tool instead of node:crypto. */
  function opensslVendorScrypt(password: string, salt: Buffer): string {
    const separator = Buffer.from(VENDOR_SCRYPT_PROJECT.saltSeparator, 'base64');
    const saltHex = Buffer.concat([salt, separator]).toString('hex');
    const kdfArgs = ['kdf', '-keylen', '32', '-kdfopt', `pass:${password}`, '-kdfopt', `hexsalt:${saltHex}`];
    const costArgs = ['-kdfopt', 'n:16384', '-kdfopt', 'r:8', '-kdfopt', 'p:1', 'SCRYPT'];
    const keyHex = runTool('openssl', [...kdfArgs, ...costArgs]).replace(/[:\s]/g, '');
    const signerKey = Buffer.from(VENDOR_SCRYPT_PROJECT.signerKey, 'base64');
    const digest = runToolBinary('openssl', ['enc', '-aes-256-ctr', '-K', keyHex, '-iv', '0'.repeat(32)], signerKey);
    return `$f_scrypt$${digest.toString('base64')}$${salt.toString('base64')}$m=14$r=8$s=${VENDOR_SCRYPT_PROJECT.saltSeparator}`;
  }

  withOpenssl.each(PASSWORDS)('verifies a vendor scrypt hash of %j', async (password) => {
    const stored = opensslVendorScrypt(password, Buffer.from('0123456789ab'));
    expect(validateImportedHash(stored, 'firebase_scrypt', OPTS)).toEqual({ ok: true, algorithm: 'vendor_scrypt', stored });
    await expect(verifyPassword(password, stored, ctx)).resolves.toBe(true);
    await expect(verifyPassword(`${password}x`, stored, ctx)).resolves.toBe(false);
  });
});
