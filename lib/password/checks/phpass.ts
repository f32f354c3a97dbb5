import { createHash, hash } from 'node:crypto';
import { encodeCrypt64, littleEndianGroups } from '../forms/crypt64';
import type { FormCheck } from '../forms/form';
import type { PhpassParams } from '../forms/phpass';
import { sameSecret } from '../../digest';

type IteratedDigest = 'md5' | 'sha512';

const GROUPS: Record<IteratedDigest, number[][]> = { md5: littleEndianGroups(16), sha512: littleEndianGroups(64) };

/**
 * phpass's `crypt_private` loop (Drupal 7's `_password_crypt` with another digest):
 * `h = digest(salt ‖ password)`, then 2^log2Count times `h = digest(h ‖ password)`, in phpass's
 * little-endian crypt64 (22 characters for MD5, 86 for SHA-512, of which Drupal keeps 43).
 */
export function iteratedDigest(algorithm: IteratedDigest, password: Buffer, salt: string, log2Count: number): string {
  let digest = createHash(algorithm).update(salt).update(password).digest();
  // One buffer, the digest then the password, hashed in one call: twice as fast as a new Hash a round.
  const input = Buffer.alloc(digest.length + password.length);
  password.copy(input, digest.length);
  for (let n = 2 ** log2Count; n > 0; n--) {
    digest.copy(input, 0);
    digest = hash(algorithm, input, 'buffer');
  }
  return encodeCrypt64(digest, GROUPS[algorithm]);
}

/** The check of the forms that store (the first characters of) the iterated `algorithm` digest. */
export function iteratedDigestCheck(algorithm: IteratedDigest): FormCheck<PhpassParams> {
  return async (password, params) => {
    const encoded = iteratedDigest(algorithm, Buffer.from(password, 'utf8'), params.salt, params.log2Count);
    return sameSecret(encoded.slice(0, params.hash.length), params.hash);
  };
}

/** Recomputes a `$P$`/`$H$` hash (MD5) and compares it in constant time. */
export const checkPhpass = iteratedDigestCheck('md5');
