import type { OwnHashParams, PasswordLimits } from './limits';

/** The password-hash algorithms this service can import and verify. */
export type HashAlgorithm = 'bcrypt' | 'argon2' | 'vendor_scrypt';

/**
 * Outcome of parsing an encoded hash: its parameters and the normalised form to store,
 * or a 400-ready sentence saying what is wrong (never containing the hash itself).
 */
export type ParseResult<P> = { ok: true; params: P; stored: string } | { ok: false; message: string };

/** What a verifier may need beyond the password and the parsed hash. */
export interface VerifyContext {
  /** The base64 vendor signer key (`vendor_password_hashing_signer_key`), when configured. */
  signerKey?: string;
  /**
   * The own hash's parameters: a password refused without its check (too long for its form) spends
   * one verification of them, as an unknown email does.
   */
  ownHash?: OwnHashParams;
  /** The configured limits, which a §7b hash is bounded by again before its check (default: `DEFAULT_PASSWORD_LIMITS`). */
  limits?: PasswordLimits;
}

/**
 * One password-hash format: recognises its own encoding, parses it fully and bounds its cost
 * parameters. Checking a password is `./verify.ts`'s, so the functions that only import hashes
 * (the import routes, bulk staging) bundle no hashing library.
 */
export interface HashFormat<P> {
  /** The algorithm name used by `hashingAlgorithm` and in results. */
  readonly name: HashAlgorithm;
  /** The name used in 400 messages (`Password hash is in invalid <formatName> format`). */
  readonly formatName: string;
  /** True when `encoded` starts with this algorithm's own identifier (anchored regex). */
  matches(encoded: string): boolean;
  /** Parses the whole encoding (not just the prefix); `stored` is the normalised form to store. */
  parse(encoded: string): ParseResult<P>;
  /** A 400 sentence naming the parameter and the bound it exceeds, or `undefined` when within limits. */
  checkLimits(params: P, limits: PasswordLimits): string | undefined;
}

/** Checks `password` against a parsed hash, comparing digests in constant time. */
export type PasswordCheck<P> = (password: string, params: P, ctx: VerifyContext) => Promise<boolean>;
