import { createHash } from 'node:crypto';
import type { FormCheck } from '../forms/form';
import type { LdapCryptParams, LdapDigestParams } from '../forms/ldap';
import { md5CryptCheck } from './md5-crypt';
import { sameBytes } from '../../digest';
import { shaCryptCheck } from './sha-crypt';

/** Recomputes digest(password ‖ salt) of an `{SSHA*}`/`{SMD5}` value (no salt for `{SHA}`/`{MD5}`) in constant time. */
export const ldapDigestCheck: FormCheck<LdapDigestParams> = async (password, params) =>
  sameBytes(createHash(params.algorithm).update(password, 'utf8').update(params.salt).digest(), params.digest);

/** Checks a `{CRYPT}` value as the crypt(3) form it holds. */
export const ldapCryptCheck: FormCheck<LdapCryptParams> = async (password, params) =>
  params.crypt === 'sha' ? shaCryptCheck(password, params.params) : md5CryptCheck(password, params.params);
