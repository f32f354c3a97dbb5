import { compare } from 'bcryptjs';
import { createHmac } from 'node:crypto';
import type { BcryptParams } from '../bcrypt';
import type { FormCheck } from '../forms/form';

/** WordPress 6.8's `wp_hash_password` key for the HMAC that precedes bcrypt. */
const HMAC_KEY = 'wp-sha384';

/**
 * Recomputes a `$wp$` hash: bcrypt of base64(HMAC-SHA384(`wp-sha384`, password)), as WordPress 6.8's
 * `wp_check_password`. The 64 base64 characters are under bcrypt's 72 bytes, so every revision
 * computes the same; bcryptjs compares in constant time. The password is used as given (SPEC §7b).
 */
export const checkWordpressBcrypt: FormCheck<BcryptParams> = async (password, params) => {
  const key = createHmac('sha384', HMAC_KEY).update(password, 'utf8').digest('base64');
  return compare(key, `$2${params.revision}$${String(params.cost).padStart(2, '0')}$${params.saltAndHash}`);
};
