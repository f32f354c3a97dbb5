import { createCipheriv, scrypt, timingSafeEqual } from 'node:crypto';
import { decodeBase64Strict } from './base64';
import { SignerKeyNotConfiguredError } from './errors';
import type { PasswordLimits } from './limits';
import type { HashFormat, ParseResult, VerifyContext } from './types';

/** A parsed vendor (Firebase) scrypt hash. */
export interface VendorScryptParams {
  /** The stored digest: the signer key encrypted under the password-derived key. */
  hash: Buffer;
  salt: Buffer;
  saltSeparator: Buffer;
  /** log2 of scrypt's N. */
  memCost: number;
  /** scrypt's block size r. */
  rounds: number;
}

const FORMAT_NAME = 'vendor scrypt';
const IDENTIFIER = /^\$f_scrypt\$/;
const FORM = '$f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<salt_separator>';
const PARAMETER = /^([mrs])=(.*)$/;
const POSITIVE_INTEGER = /^[1-9]\d{0,5}$/;
/** Firebase's parameters: p = 1 and a 32-byte key for AES-256. */
const SCRYPT_PARALLELISM = 1;
const DERIVED_KEY_BYTES = 32;
/** scrypt's own bound N < 2^(128·r/8), which OpenSSL enforces: mem_cost < 16·rounds. */
const MEM_COST_BITS_PER_ROUND = 16;
/** Headroom over scrypt's 128·r·(N + p + 2) bytes for OpenSSL's bookkeeping. */
const MAXMEM_MARGIN_BYTES = 1024 * 1024;
/** Firebase encrypts with AES-256-CTR and an all-zero counter block. */
const ZERO_IV = Buffer.alloc(16);

function invalid(reason: string): { ok: false; message: string } {
  return { ok: false, message: `Password hash is in invalid ${FORMAT_NAME} format: ${reason}` };
}

/** The normalised form: standard padded base64 everywhere, parameters in `m`, `r`, `s` order. */
export function formatVendorScrypt(params: VendorScryptParams): string {
  return (
    `$f_scrypt$${params.hash.toString('base64')}$${params.salt.toString('base64')}` +
    `$m=${params.memCost}$r=${params.rounds}$s=${params.saltSeparator.toString('base64')}`
  );
}

function deriveKey(password: string, salt: Buffer, memCost: number, rounds: number): Promise<Buffer> {
  const N = 2 ** memCost;
  const maxmem = 128 * rounds * (N + SCRYPT_PARALLELISM + 2) + MAXMEM_MARGIN_BYTES;
  return new Promise((resolve, reject) => {
    scrypt(Buffer.from(password, 'utf8'), salt, DERIVED_KEY_BYTES, { N, r: rounds, p: SCRYPT_PARALLELISM, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/**
 * Strict decoding: a key mangled by configuration (stray characters silently dropped by
 * Node's decoder) would make every vendor hash fail as a wrong password; an operator
 * error is surfaced instead.
 */
function decodeSignerKey(signerKey: string | undefined): Buffer {
  if (signerKey === undefined || signerKey === '') {
    throw new SignerKeyNotConfiguredError();
  }
  const bytes = decodeBase64Strict(signerKey, 'standard-or-url');
  if (!bytes || bytes.length === 0) {
    throw new SignerKeyNotConfiguredError('vendor_password_hashing_signer_key is not valid base64');
  }
  return bytes;
}

/**
 * Vendor (Firebase) scrypt hashes:
 * `$f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<salt_separator>`, `m`, `r`, `s` in
 * any order, base64 in the standard or the URL-safe alphabet.
 */
export const vendorScryptFormat: HashFormat<VendorScryptParams> = {
  name: 'vendor_scrypt',
  formatName: FORMAT_NAME,

  matches(encoded: string): boolean {
    return IDENTIFIER.test(encoded);
  },

  parse(encoded: string): ParseResult<VendorScryptParams> {
    if (!IDENTIFIER.test(encoded)) {
      return invalid('it must start with $f_scrypt$');
    }
    const segments = encoded.slice('$f_scrypt$'.length).split('$');
    if (segments.length !== 5) {
      return invalid(`it must have the form ${FORM}`);
    }
    const [hashText, saltText, ...parameterTexts] = segments;
    const values = new Map<string, string>();
    for (const text of parameterTexts) {
      const match = PARAMETER.exec(text);
      if (!match) {
        return invalid('the parameters after the salt must be m=, r= and s=');
      }
      if (values.has(match[1])) {
        return invalid(`the parameter ${match[1]}= must appear exactly once`);
      }
      values.set(match[1], match[2]);
    }
    const memCostText = values.get('m') ?? '';
    const roundsText = values.get('r') ?? '';
    const separatorText = values.get('s') ?? '';
    if (!POSITIVE_INTEGER.test(memCostText)) {
      return invalid('m (mem_cost) must be a positive integer');
    }
    if (!POSITIVE_INTEGER.test(roundsText)) {
      return invalid('r (rounds) must be a positive integer');
    }
    const memCost = Number(memCostText);
    const rounds = Number(roundsText);
    if (memCost >= MEM_COST_BITS_PER_ROUND * rounds) {
      return invalid('m (mem_cost) must be less than 16 times r (rounds), as scrypt requires');
    }
    const hash = decodeBase64Strict(hashText, 'standard-or-url');
    if (!hash || hash.length === 0) {
      return invalid('the hash must be non-empty base64 (standard or URL-safe alphabet)');
    }
    const salt = decodeBase64Strict(saltText, 'standard-or-url');
    if (!salt || salt.length === 0) {
      return invalid('the salt must be non-empty base64 (standard or URL-safe alphabet)');
    }
    const saltSeparator = decodeBase64Strict(separatorText, 'standard-or-url');
    if (!saltSeparator) {
      return invalid('the salt separator s= must be base64 (standard or URL-safe alphabet)');
    }
    const params: VendorScryptParams = { hash, salt, saltSeparator, memCost, rounds };
    return { ok: true, params, stored: formatVendorScrypt(params) };
  },

  checkLimits(params: VendorScryptParams, limits: PasswordLimits): string | undefined {
    if (params.memCost > limits.scryptMaxMemCost) {
      return `Password hash vendor scrypt mem_cost m=${params.memCost} is above the maximum of ${limits.scryptMaxMemCost}`;
    }
    if (params.rounds > limits.scryptMaxRounds) {
      return `Password hash vendor scrypt rounds r=${params.rounds} is above the maximum of ${limits.scryptMaxRounds}`;
    }
    return undefined;
  },
};

/**
 * Checks a password against a parsed vendor scrypt hash: scrypt of the password with the salt
 * and separator, the signer key encrypted with it (AES-256-CTR), compared in constant time.
 * Only `node:crypto`, so it stays beside the format.
 */
export async function verifyVendorScrypt(password: string, params: VendorScryptParams, ctx: VerifyContext): Promise<boolean> {
  const signerKey = decodeSignerKey(ctx.signerKey);
  const key = await deriveKey(password, Buffer.concat([params.salt, params.saltSeparator]), params.memCost, params.rounds);
  const cipher = createCipheriv('aes-256-ctr', key, ZERO_IV);
  const computed = Buffer.concat([cipher.update(signerKey), cipher.final()]);
  // Lengths first (timingSafeEqual throws on a mismatch; the length is public), then
  // a constant-time comparison so timing does not reveal how many bytes matched.
  if (computed.length !== params.hash.length) {
    return false;
  }
  return timingSafeEqual(computed, params.hash);
}
