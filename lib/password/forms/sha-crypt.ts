import { accept, refuse } from './fields';
import { type PasswordLimits, SHA_CRYPT_MIN_ROUNDS } from '../limits';
import { crypt64FieldProblem } from './crypt64';
import type { FormParse, HashForm } from './form';

/** A parsed SHA-crypt hash (`$5$[rounds=<n>$]<salt>$<hash>`, `$6$…`). */
export interface ShaCryptParams {
  /** `$5$` is SHA-256, `$6$` SHA-512. */
  digest: 'sha256' | 'sha512';
  /** The rounds given, or the implicit 5,000. */
  rounds: number;
  /** 0–16 characters, hashed as they are. */
  salt: string;
  /** The crypt64 digest: 43 characters for SHA-256, 86 for SHA-512. */
  hash: string;
}

/** Drepper's specification: the rounds when `rounds=` is absent. */
export const SHA_CRYPT_IMPLICIT_ROUNDS = 5000;
/** Drepper's specification reads at most 16 salt characters: a longer salt is never written. */
export const SHA_CRYPT_MAX_SALT = 16;

const ROUNDS_PREFIX = 'rounds=';
const DECIMAL = /^(0|[1-9][0-9]*)$/;
/** Printable ASCII but `$` (which ends the salt): what crypt(3) tools write and read alike. */
const SALT = /^[\x20-\x23\x25-\x7e]*$/;

function shaCryptStyleForm(magic: '$5$' | '$6$'): HashForm<ShaCryptParams> {
  const [digest, hashLength, digestBytes] = magic === '$5$' ? (['sha256', 43, 32] as const) : (['sha512', 86, 64] as const);
  const expected = `expected ${magic}[rounds=<n>$]<salt>$<hash>`;
  return {
    marker: magic === '$5$' ? /^\$5\$/ : /^\$6\$/,

    parse(encoded: string): FormParse<ShaCryptParams> {
      if (!encoded.startsWith(magic)) {
        return refuse(expected);
      }
      let rest = encoded.slice(magic.length);
      let rounds = SHA_CRYPT_IMPLICIT_ROUNDS;
      if (rest.startsWith(ROUNDS_PREFIX)) {
        const end = rest.indexOf('$');
        if (end < 0) {
          return refuse(expected);
        }
        const text = rest.slice(ROUNDS_PREFIX.length, end);
        if (!DECIMAL.test(text)) {
          return refuse('rounds must be a decimal number without sign or leading zero');
        }
        rounds = Number(text);
        rest = rest.slice(end + 1);
      }
      const end = rest.indexOf('$');
      if (end < 0) {
        return refuse(expected);
      }
      const salt = rest.slice(0, end);
      const hash = rest.slice(end + 1);
      if (salt.length > SHA_CRYPT_MAX_SALT) {
        return refuse(`the salt must be at most ${SHA_CRYPT_MAX_SALT} characters`);
      }
      if (!SALT.test(salt)) {
        return refuse('the salt may only contain printable ASCII characters');
      }
      const problem = crypt64FieldProblem(hash, 'hash', hashLength, digestBytes);
      if (problem !== undefined) {
        return refuse(problem);
      }
      return accept({ digest, rounds, salt, hash });
    },

    bound(params: ShaCryptParams, { shaCryptMaxRounds }: PasswordLimits): string | undefined {
      if (params.rounds < SHA_CRYPT_MIN_ROUNDS || params.rounds > shaCryptMaxRounds) {
        return `rounds must be between ${SHA_CRYPT_MIN_ROUNDS} and ${shaCryptMaxRounds}`;
      }
      return undefined;
    },
  };
}

/** `$5$…`: SHA-256-crypt (glibc, openssl, mkpasswd, passlib). */
export const sha256CryptForm = shaCryptStyleForm('$5$');
/** `$6$…`: SHA-512-crypt, Linux's `/etc/shadow` default before yescrypt. */
export const sha512CryptForm = shaCryptStyleForm('$6$');
