import { createHash, createHmac } from 'node:crypto';
import { compare } from 'bcryptjs';
import type { FormCheck } from '../forms/form';
import type { BcryptSha256Params } from '../forms/bcrypt-sha256';

/** The secret bcrypt hashed in place of the password (see {@link BcryptSha256Params.secret}). */
function secretOf(password: string, { secret, salt }: BcryptSha256Params): string {
  switch (secret) {
    case 'hex':
      return createHash('sha256').update(password, 'utf8').digest('hex');
    case 'hmac':
      return createHmac('sha256', Buffer.from(salt, 'ascii')).update(password, 'utf8').digest('base64');
    case 'sha256':
      return createHash('sha256').update(password, 'utf8').digest('base64');
  }
}

/**
 * bcrypt of the reduced secret, run as `$2a$` as the core's bcrypt check does (bcryptjs knows no
 * `$2y$`; the revisions agree on these ASCII secrets); bcryptjs compares in constant time.
 */
export const checkBcryptSha256: FormCheck<BcryptSha256Params> = async (password, params) => {
  const cost = String(params.cost).padStart(2, '0');
  return compare(secretOf(password, params), `$2a$${cost}$${params.salt}${params.hash}`);
};
