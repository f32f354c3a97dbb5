/*
 * One form of a password-hash family of SPEC §7b (Django's `pbkdf2_sha256$…`, `$1$…`, `{SSHA}…`):
 * recognised by its marker, parsed and bounded here with no hashing code, so the functions that
 * only import hashes bundle no verifier. Its check (`../checks/<family>.ts`) recomputes the hash.
 */

import type { PasswordLimits } from '../limits';

/** A parsed form, or what is wrong with it: the part of the 400 text after `format: `. */
export type FormParse<P> = { ok: true; params: P } | { ok: false; reason: string };

export interface HashForm<P> {
  /**
   * Anchored: a string matching it belongs to this form even when it does not parse (SPEC §7b's
   * markers), so it gets this family's 400 instead of "invalid format".
   */
  readonly marker: RegExp;
  /** Parses the whole string; never throws, whatever the input. */
  parse(encoded: string): FormParse<P>;
  /** The bound of `limits` a parsed hash is past (`iterations must be between 1 and 2000000`), or `undefined`. */
  bound(params: P, limits: PasswordLimits): string | undefined;
}

/** Recomputes a parsed hash from the password (UTF-8, as given) and compares in constant time. */
export type FormCheck<P> = (password: string, params: P) => Promise<boolean>;
