import { argon2Verifier } from './argon2';
import { bcryptVerifier } from './bcrypt';
import { SIGNER_KEY_NOT_CONFIGURED_MESSAGE, UnrecognisedStoredHashError } from './errors';
import type { PasswordLimits } from './limits';
import { findProviderPrefix, providerPrefixMessage } from './provider-prefix';
import type { HashAlgorithm, PasswordVerifier, VerifyContext } from './types';
import { vendorScryptVerifier } from './vendor-scrypt';

export { hashPassword, needsRehash, dummyVerify } from './own-hash';
export { SignerKeyNotConfiguredError, UnrecognisedStoredHashError, SIGNER_KEY_NOT_CONFIGURED_MESSAGE } from './errors';
export { DEFAULT_PASSWORD_LIMITS, DEFAULT_OWN_HASH_PARAMS } from './limits';
export type { PasswordLimits, OwnHashParams } from './limits';
export type { HashAlgorithm, ParseResult, PasswordVerifier, VerifyContext } from './types';

/** Every verifier, each recognised by its own anchored prefix. */
const VERIFIERS: ReadonlyArray<PasswordVerifier<unknown>> = [
  bcryptVerifier as PasswordVerifier<unknown>,
  argon2Verifier as PasswordVerifier<unknown>,
  vendorScryptVerifier as PasswordVerifier<unknown>,
];

/** `hashingAlgorithm` values (lower-cased) and the algorithm each one names. */
const ALGORITHM_NAMES: Readonly<Record<string, HashAlgorithm>> = {
  bcrypt: 'bcrypt',
  argon2: 'argon2',
  vendor_scrypt: 'vendor_scrypt',
  firebase_scrypt: 'vendor_scrypt',
};

const UNSUPPORTED_ALGORITHM = 'Unsupported password hashing algorithm';
const FORMATS = 'a BCrypt ($2a$, $2b$, $2x$, $2y$), Argon2 ($argon2id$, $argon2i$, $argon2d$) or vendor scrypt ($f_scrypt$) hash';

/** Options of {@link validateImportedHash}. */
export interface ValidateImportedHashOptions {
  /** Bounds on the imported hash's cost parameters. */
  limits: PasswordLimits;
  /** Whether `vendor_password_hashing_signer_key` is configured. */
  signerKeyConfigured: boolean;
}

/** Outcome of {@link validateImportedHash}: what to store, or a 400 message. */
export type ValidateImportedHashResult =
  | { ok: true; algorithm: HashAlgorithm; stored: string }
  | { ok: false; message: string };

function verifierFor(algorithm: HashAlgorithm): PasswordVerifier<unknown> {
  const verifier = VERIFIERS.find((candidate) => candidate.name === algorithm);
  if (!verifier) {
    throw new Error(`No verifier for ${algorithm}`);
  }
  return verifier;
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
  let requested: PasswordVerifier<unknown> | undefined;
  if (hashingAlgorithm !== undefined) {
    const key = hashingAlgorithm.toLowerCase();
    // hasOwn, not `in` or indexing: `constructor` or `__proto__` must not name an algorithm.
    if (!Object.hasOwn(ALGORITHM_NAMES, key)) {
      return { ok: false, message: UNSUPPORTED_ALGORITHM };
    }
    requested = verifierFor(ALGORITHM_NAMES[key]);
  }

  if (passwordHash !== passwordHash.trim()) {
    return invalidFormat(requested?.formatName, 'it has leading or trailing whitespace');
  }

  const detected = VERIFIERS.find((verifier) => verifier.matches(passwordHash));
  const verifier = requested ?? detected;
  if (verifier === undefined || (requested !== undefined && detected !== requested)) {
    const prefixed = findProviderPrefix(passwordHash);
    if (prefixed && (requested === undefined || requested.matches(prefixed.rest))) {
      return { ok: false, message: providerPrefixMessage(prefixed) };
    }
    if (verifier === undefined) {
      return invalidFormat(undefined, passwordHash === '' ? 'it is empty' : `it is not ${FORMATS}`);
    }
  }

  const parsed = verifier.parse(passwordHash);
  if (!parsed.ok) {
    return parsed;
  }
  const overLimit = verifier.checkLimits(parsed.params, opts.limits);
  if (overLimit !== undefined) {
    return { ok: false, message: overLimit };
  }
  if (verifier.name === 'vendor_scrypt' && !opts.signerKeyConfigured) {
    return { ok: false, message: SIGNER_KEY_NOT_CONFIGURED_MESSAGE };
  }
  return { ok: true, algorithm: verifier.name, stored: parsed.stored };
}

/** The algorithm of a stored hash, by its format (`undefined` for none this service knows). */
export function hashAlgorithmOf(stored: string): HashAlgorithm | undefined {
  return VERIFIERS.find((candidate) => candidate.matches(stored))?.name;
}

/**
 * Checks a password against a stored hash, choosing the verifier from the hash's format.
 *
 * @returns whether the password matches; a wrong signer key simply gives `false`.
 * @throws SignerKeyNotConfiguredError for a vendor scrypt hash while no signer key is configured.
 * @throws UnrecognisedStoredHashError when the stored hash is in no known format.
 */
export async function verifyPassword(password: string, stored: string, ctx: VerifyContext): Promise<boolean> {
  const verifier = VERIFIERS.find((candidate) => candidate.matches(stored));
  if (verifier === undefined) {
    throw new UnrecognisedStoredHashError('it is in no known format');
  }
  const parsed = verifier.parse(stored);
  if (!parsed.ok) {
    throw new UnrecognisedStoredHashError(parsed.message);
  }
  return verifier.verify(password, parsed.params, ctx);
}
