import { accept, refuse } from './fields';
import { PHPASS_MIN_LOG2_COUNT, type PasswordLimits } from '../limits';
import { CRYPT64_ALPHABET, CRYPT64_CHARACTERS, CRYPT64_TEXT, crypt64FieldProblem } from './crypt64';
import type { FormParse, HashForm } from './form';

/** A parsed phpass (`$P$`, `$H$`) or Drupal 7 (`$S$`) hash: identifier, count, 8 salt characters, digest. */
export interface PhpassParams {
  /** `$P$` (portable phpass, WordPress ≤ 6.7), `$H$` (phpBB3): MD5; `$S$` (Drupal 7): SHA-512. */
  ident: '$P$' | '$H$' | '$S$';
  /** log2 of the number of digest iterations (the crypt64 index of the count character). */
  log2Count: number;
  /** 8 crypt64 characters, hashed as they are. */
  salt: string;
  /** The crypt64 digest (22 characters; Drupal's 43 are the first half of its 86). */
  hash: string;
}

/** Where the salt and the digest start: after the identifier and the count character. */
const SALT_START = 4;
const DIGEST_START = 12;

/**
 * The form of `ident`: `length` characters in all; `digestBytes`, when the digest is encoded whole,
 * is its byte count (its last character's unused bits must be zero).
 */
export function phpassStyleForm(ident: PhpassParams['ident'], length: number, digestBytes?: number): HashForm<PhpassParams> {
  return {
    marker: new RegExp(`^\\$${ident[1]}\\$`),

    parse(encoded: string): FormParse<PhpassParams> {
      if (!encoded.startsWith(ident)) {
        return refuse(`expected ${ident}<count><salt><hash>`);
      }
      if (encoded.length !== length) {
        return refuse(`the hash must be ${length} characters`);
      }
      const log2Count = CRYPT64_ALPHABET.indexOf(encoded[3]);
      if (log2Count < 0) {
        return refuse(`the log2 count must be one of the characters ${CRYPT64_CHARACTERS}`);
      }
      const salt = encoded.slice(SALT_START, DIGEST_START);
      if (!CRYPT64_TEXT.test(salt)) {
        return refuse(`the salt may only contain the characters ${CRYPT64_CHARACTERS}`);
      }
      const hash = encoded.slice(DIGEST_START);
      const problem = crypt64FieldProblem(hash, 'digest', length - DIGEST_START, digestBytes);
      if (problem !== undefined) {
        return refuse(problem);
      }
      return accept({ ident, log2Count, salt, hash });
    },

    bound(params: PhpassParams, { phpassMaxLog2Count }: PasswordLimits): string | undefined {
      if (params.log2Count < PHPASS_MIN_LOG2_COUNT || params.log2Count > phpassMaxLog2Count) {
        return `the log2 count must be between ${PHPASS_MIN_LOG2_COUNT} and ${phpassMaxLog2Count}`;
      }
      return undefined;
    },
  };
}

/** `$P$`: portable phpass (WordPress ≤ 6.7, Drupal 7 for imported users): 34 characters. */
export const phpassPForm = phpassStyleForm('$P$', 34, 16);
/** `$H$`: phpBB3's name for the same hash. */
export const phpassHForm = phpassStyleForm('$H$', 34, 16);
