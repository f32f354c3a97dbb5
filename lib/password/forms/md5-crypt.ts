import { accept, refuse } from './fields';
import { CRYPT64_CHARACTERS, CRYPT64_TEXT, crypt64FieldProblem } from './crypt64';
import type { FormParse, HashForm } from './form';

/** A parsed MD5-crypt hash (`$1$<salt>$<hash>`, Apache's `$apr1$…`). */
export interface Md5CryptParams {
  /** The magic string, which the algorithm also hashes. */
  magic: '$1$' | '$apr1$';
  /** 0–8 crypt64 characters, hashed as they are. */
  salt: string;
  /** The 22 crypt64 characters of the digest. */
  hash: string;
}

/** Poul-Henning Kamp's algorithm reads at most 8 salt characters: a longer salt is never written. */
export const MD5_CRYPT_MAX_SALT = 8;
/** The 16-byte MD5 digest in crypt64. */
const HASH_LENGTH = 22;
const DIGEST_BYTES = 16;

function md5CryptStyleForm(magic: Md5CryptParams['magic']): HashForm<Md5CryptParams> {
  const expected = `expected ${magic}<salt>$<hash>`;
  return {
    marker: magic === '$1$' ? /^\$1\$/ : /^\$apr1\$/,

    parse(encoded: string): FormParse<Md5CryptParams> {
      const end = encoded.indexOf('$', magic.length);
      if (!encoded.startsWith(magic) || end < 0) {
        return refuse(expected);
      }
      const salt = encoded.slice(magic.length, end);
      const hash = encoded.slice(end + 1);
      if (salt.length > MD5_CRYPT_MAX_SALT) {
        return refuse(`the salt must be at most ${MD5_CRYPT_MAX_SALT} characters`);
      }
      if (!CRYPT64_TEXT.test(salt)) {
        return refuse(`the salt may only contain the characters ${CRYPT64_CHARACTERS}`);
      }
      const problem = crypt64FieldProblem(hash, 'hash', HASH_LENGTH, DIGEST_BYTES);
      if (problem !== undefined) {
        return refuse(problem);
      }
      return accept({ magic, salt, hash });
    },

    // 1,000 fixed rounds: nothing to bound (SPEC §7b's limits).
    bound: () => undefined,
  };
}

/** `$1$<salt>$<hash>`: glibc, openssl, mkpasswd, slapd's `{CRYPT}`. */
export const md5CryptForm = md5CryptStyleForm('$1$');
/** `$apr1$<salt>$<hash>`: Apache's htpasswd, the same algorithm under its own magic. */
export const apr1Form = md5CryptStyleForm('$apr1$');
