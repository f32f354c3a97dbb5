import { createHash, hash } from 'node:crypto';
import { encodeCrypt64, littleEndianGroups } from '../forms/crypt64';
import type { FormCheck } from '../forms/form';
import type { PhpassParams } from '../forms/phpass';
import { sameText } from './same';

/**
 * phpass's `crypt_private` loop (Drupal 7's `_password_crypt` with another digest):
 * `h = digest(salt ‖ password)`, then 2^count times `h = digest(h ‖ password)`, encoded with phpass's
 * little-endian crypt64 and cut to the stored digest's length.
 */
export function iteratedDigestCheck(algorithm: 'md5' | 'sha512'): FormCheck<PhpassParams> {
  const groups = littleEndianGroups(algorithm === 'md5' ? 16 : 64);
  return async (password, params) => {
    const secret = Buffer.from(password, 'utf8');
    let digest = createHash(algorithm).update(params.salt).update(secret).digest();
    // One buffer, the digest then the password, hashed in one call: twice as fast as a new Hash a round.
    const input = Buffer.alloc(digest.length + secret.length);
    secret.copy(input, digest.length);
    for (let n = 2 ** params.log2Count; n > 0; n--) {
      digest.copy(input, 0);
      digest = hash(algorithm, input, 'buffer');
    }
    return sameText(encodeCrypt64(digest, groups).slice(0, params.hash.length), params.hash);
  };
}

/** Recomputes a `$P$`/`$H$` hash (MD5) and compares it in constant time. */
export const phpassCheck = iteratedDigestCheck('md5');
