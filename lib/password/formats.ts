import { argon2Format } from './argon2';
import { bcryptFormat } from './bcrypt';
import { SIGNER_KEY_NOT_CONFIGURED_MESSAGE } from './errors';
import type { PasswordLimits } from './limits';
import { findProviderPrefix, providerPrefixMessage } from './provider-prefix';
import type { HashAlgorithm, HashFormat } from './types';
import { vendorScryptFormat } from './vendor-scrypt';

/*
 * Recognising, parsing and bounding imported hashes, with no hashing library: what the import
 * routes and bulk staging bundle. Checking a password is `./verify.ts`.
 */

/** Every format, each recognised by its own anchored prefix. */
const FORMATS: ReadonlyArray<HashFormat<unknown>> = [
  bcryptFormat as HashFormat<unknown>,
  argon2Format as HashFormat<unknown>,
  vendorScryptFormat as HashFormat<unknown>,
];

/** `hashingAlgorithm` values (lower-cased) and the algorithm each one names. */
const ALGORITHM_NAMES: Readonly<Record<string, HashAlgorithm>> = {
  bcrypt: 'bcrypt',
  argon2: 'argon2',
  vendor_scrypt: 'vendor_scrypt',
  firebase_scrypt: 'vendor_scrypt',
};

const UNSUPPORTED_ALGORITHM = 'Unsupported password hashing algorithm';
const FORMAT_LIST = 'a BCrypt ($2a$, $2b$, $2x$, $2y$), Argon2 ($argon2id$, $argon2i$, $argon2d$) or vendor scrypt ($f_scrypt$) hash';

/** Options of {@link validateImportedHash}. */
export interface ValidateImportedHashOptions {
  /** Bounds on the imported hash's cost parameters. */
  limits: PasswordLimits;
  /** Whether `vendor_password_hashing_signer_key` is configured. */
  signerKeyConfigured: boolean;
}

/** Outcome of {@link validateImportedHash}: what to store, or a 400 message. */
export type ValidateImportedHashResult = { ok: true; algorithm: HashAlgorithm; stored: string } | { ok: false; message: string };

function formatFor(algorithm: HashAlgorithm): HashFormat<unknown> {
  const format = FORMATS.find((candidate) => candidate.name === algorithm);
  if (!format) {
    throw new Error(`No format for ${algorithm}`);
  }
  return format;
}

function invalidFormat(formatName: string | undefined, reason: string): { ok: false; message: string } {
  const label = formatName === undefined ? 'invalid format' : `invalid ${formatName} format`;
  return { ok: false, message: `Password hash is in ${label}: ${reason}` };
}

/**
 * Validates a hash given to the import operation (SPEC section 7): the algorithm name,
 * the full format, the cost limits and the signer key for vendor scrypt. Computes no hash.
 *
 * @param passwordHash - the hash as imported.
 * @param hashingAlgorithm - optional, case-insensitive: `bcrypt`, `argon2`,
 *   `vendor_scrypt` or its synonym `firebase_scrypt`; without it the format is detected.
 * @returns the algorithm and the normalised hash to store, or a 400 message that never
 *   contains the hash.
 */
export function validateImportedHash(
  passwordHash: string,
  hashingAlgorithm: string | undefined,
  opts: ValidateImportedHashOptions,
): ValidateImportedHashResult {
  let requested: HashFormat<unknown> | undefined;
  if (hashingAlgorithm !== undefined) {
    const key = hashingAlgorithm.toLowerCase();
    // hasOwn, not `in` or indexing: `constructor` or `__proto__` must not name an algorithm.
    if (!Object.hasOwn(ALGORITHM_NAMES, key)) {
      return { ok: false, message: UNSUPPORTED_ALGORITHM };
    }
    requested = formatFor(ALGORITHM_NAMES[key]);
  }

  if (passwordHash !== passwordHash.trim()) {
    return invalidFormat(requested?.formatName, 'it has leading or trailing whitespace');
  }

  const detected = FORMATS.find((format) => format.matches(passwordHash));
  const format = requested ?? detected;
  if (format === undefined || (requested !== undefined && detected !== requested)) {
    const prefixed = findProviderPrefix(passwordHash);
    if (prefixed && (requested === undefined || requested.matches(prefixed.rest))) {
      return { ok: false, message: providerPrefixMessage(prefixed) };
    }
    if (format === undefined) {
      return invalidFormat(undefined, passwordHash === '' ? 'it is empty' : `it is not ${FORMAT_LIST}`);
    }
  }

  const parsed = format.parse(passwordHash);
  if (!parsed.ok) {
    return parsed;
  }
  const overLimit = format.checkLimits(parsed.params, opts.limits);
  if (overLimit !== undefined) {
    return { ok: false, message: overLimit };
  }
  if (format.name === 'vendor_scrypt' && !opts.signerKeyConfigured) {
    return { ok: false, message: SIGNER_KEY_NOT_CONFIGURED_MESSAGE };
  }
  return { ok: true, algorithm: format.name, stored: parsed.stored };
}

/** The format of a stored hash (`undefined` for none this service knows). */
export function hashFormatOf(stored: string): HashFormat<unknown> | undefined {
  return FORMATS.find((candidate) => candidate.matches(stored));
}

/** The algorithm of a stored hash, by its format (`undefined` for none this service knows). */
export function hashAlgorithmOf(stored: string): HashAlgorithm | undefined {
  return hashFormatOf(stored)?.name;
}
