import { createHash } from 'node:crypto';
import type { FormCheck } from '../forms/form';
import type { LdapCryptParams, LdapDigestParams } from '../forms/ldap';
import { checkMd5Crypt } from './md5-crypt';
import { sameBytes } from '../../digest';
import { checkShaCrypt } from './sha-crypt';

/** Recomputes digest(password ‖ salt) of an `{SSHA*}`/`{SMD5}` value (no salt for `{SHA}`/`{MD5}`) in constant time. */
export const checkLdapDigest: FormCheck<LdapDigestParams> = async (password, params) =>
  sameBytes(createHash(params.algorithm).update(password, 'utf8').update(params.salt).digest(), params.digest);

/** Checks a `{CRYPT}` value as the crypt(3) form it holds. */
export const checkLdapCrypt: FormCheck<LdapCryptParams> = async (password, params) =>
  params.crypt === 'sha' ? checkShaCrypt(password, params.params) : checkMd5Crypt(password, params.params);
