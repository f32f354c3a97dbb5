import type { PasswordLimits } from '../limits';
import { accept, decimal, refuse } from './fields';
import type { HashForm } from './form';

/**
 * A parsed BCrypt-SHA256 hash: bcrypt (`$2<revision>$<cost>$<salt><hash>`) of a secret the
 * password is first reduced to, which is what lets passwords past bcrypt's 72 bytes count in full.
 */
export interface BcryptSha256Params {
  /**
   * `hex`: Django, the lowercase hex SHA-256 of the password. `hmac`: passlib v2, the base64 of
   * HMAC-SHA256(key = the salt's 22 characters, password). `sha256`: passlib's older form, the
   * base64 of SHA-256(password).
   */
  secret: 'hex' | 'hmac' | 'sha256';
  cost: number;
  /** The 22 characters of bcrypt's salt. */
  salt: string;
  /** The 31 characters of bcrypt's hash. */
  hash: string;
}

const SALT = /^[./A-Za-z0-9]{22}$/;
const HASH = /^[./A-Za-z0-9]{31}$/;
const DJANGO_BCRYPT = /^\$2[aby]\$(\d\d)\$(.*)$/;
const PASSLIB_V2 = /^v=2,t=2[ab],r=(.*)$/;
const PASSLIB_V1 = /^2[ab],(.*)$/;

function bcryptOf(secret: BcryptSha256Params['secret'], costText: string, salt: string, hash: string) {
  const cost = decimal(costText.replace(/^0(?=\d)/, ''));
  if (cost === undefined) return refuse('the bcrypt cost must be a decimal number');
  if (!SALT.test(salt) || !HASH.test(hash)) return refuse('expected a 22-character salt and a 31-character hash in ./A-Za-z0-9');
  return accept<BcryptSha256Params>({ secret, cost, salt, hash });
}

/** The bcrypt cost bound of a hash inside another (`$wp$`, BCrypt-SHA256): §8's, as configured. */
export function bcryptCostBound(cost: number, { bcryptMinCost, bcryptMaxCost }: PasswordLimits): string | undefined {
  return cost < bcryptMinCost || cost > bcryptMaxCost ? `the bcrypt cost must be between ${bcryptMinCost} and ${bcryptMaxCost}` : undefined;
}

function bound({ cost }: BcryptSha256Params, limits: PasswordLimits): string | undefined {
  return bcryptCostBound(cost, limits);
}

/** Django `bcrypt_sha256$<bcrypt hash>`: bcrypt of the hex SHA-256 of the password. */
export const djangoBcryptSha256Form: HashForm<BcryptSha256Params> = {
  marker: /^bcrypt_sha256\$/,
  parse(encoded) {
    const bcrypt = DJANGO_BCRYPT.exec(encoded.slice('bcrypt_sha256$'.length));
    if (!bcrypt) return refuse('expected bcrypt_sha256$ followed by a $2b$ bcrypt hash');
    return bcryptOf('hex', bcrypt[1], bcrypt[2].slice(0, 22), bcrypt[2].slice(22));
  },
  bound,
};

/** passlib `$bcrypt-sha256$v=2,t=<2a|2b>,r=<cost>$<salt>$<hash>`, and its older `$bcrypt-sha256$<2a|2b>,<cost>$<salt>$<hash>`. */
export const passlibBcryptSha256Form: HashForm<BcryptSha256Params> = {
  marker: /^\$bcrypt-sha256\$/,
  parse(encoded) {
    const parts = encoded.split('$');
    if (parts.length !== 5) return refuse('expected $bcrypt-sha256$v=2,t=<2a|2b>,r=<cost>$<salt>$<hash>');
    const v2 = PASSLIB_V2.exec(parts[2]);
    const v1 = v2 ? null : PASSLIB_V1.exec(parts[2]);
    if (!v2 && !v1) return refuse('the parameters must be v=2,t=<2a|2b>,r=<cost> or <2a|2b>,<cost>');
    return v2 ? bcryptOf('hmac', v2[1], parts[3], parts[4]) : bcryptOf('sha256', (v1 as RegExpExecArray)[1], parts[3], parts[4]);
  },
  bound,
};
