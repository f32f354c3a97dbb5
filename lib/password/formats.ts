import { argon2Format } from './argon2';
import { bcryptFormat } from './bcrypt';
import { SIGNER_KEY_NOT_CONFIGURED_MESSAGE } from './errors';
import { detectForm, familyNamed, storedFormOf, type FoundForm, type HashFamily } from './families';
import type { HashForm } from './forms/form';
import type { PasswordLimits } from './limits';
import { findProviderPrefix, providerPrefixMessage } from './provider-prefix';
import type { HashAlgorithm, HashFormat } from './types';
import { vendorScryptFormat } from './vendor-scrypt';

/*
 * Recognising, parsing and bounding imported hashes, with no hashing library: what the import
 * routes and bulk staging bundle. The core's three formats are here; SPEC §7b's families are the
 * table of `./families.ts`. Checking a password is `./verify.ts`.
 */

/** Every format, each recognised by its own anchored prefix. */
const FORMATS: ReadonlyArray<HashFormat<unknown>> = [
  bcryptFormat as HashFormat<unknown>,
  argon2Format as HashFormat<unknown>,
  vendorScryptFormat as HashFormat<unknown>,
];

/** The core's `hashingAlgorithm` values (lower-cased) and the algorithm each one names (SPEC §7). */
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

/**
 * Outcome of {@link validateImportedHash}: what to store and the `hashingAlgorithm` value it was
 * taken as (a core algorithm, or a SPEC §7b family's value), or a 400 message.
 */
export type ValidateImportedHashResult = { ok: true; algorithm: string; stored: string } | { ok: false; message: string };

/** Whether a `hashingAlgorithm` value (any case) names an algorithm or family this service imports. */
export function isKnownHashingAlgorithm(value: string): boolean {
  return Object.hasOwn(ALGORITHM_NAMES, value.toLowerCase()) || familyNamed(value) !== undefined;
}

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

/** `a`/`an` before a family's name as read aloud (`an LDAP`, `an MD5-crypt`, `a PBKDF2`, `a scrypt`). */
function article(name: string): string {
  return /^[AEIOU]|^[FHLMNRSX][A-Z0-9]/.test(name) ? 'an' : 'a';
}

/** The 400 for a hash of another family than the one named (SPEC §7b). */
function otherFamily(given: string, other: { name: string; value: string }): { ok: false; message: string } {
  return invalidFormat(given, `this is ${article(other.name)} ${other.name} hash, import it with hashingAlgorithm ${other.value}`);
}

/** The core format's own value in texts (`firebase_scrypt`, the name the core documents). */
function coreValue(format: HashFormat<unknown>): string {
  return format.name === 'vendor_scrypt' ? 'firebase_scrypt' : format.name;
}

/** Parses and bounds a hash of a §7b form, its 400 naming `family` (the one named or detected). */
function validateForm(passwordHash: string, family: HashFamily, { form }: FoundForm, limits: PasswordLimits): ValidateImportedHashResult {
  const parsed = form.parse(passwordHash);
  const reason = parsed.ok ? form.bound(parsed.params, limits) : parsed.reason;
  if (reason !== undefined) return invalidFormat(family.name, reason);
  return { ok: true, algorithm: family.value, stored: passwordHash };
}

/**
 * A hash named as a §7b family: one of its forms (a form several families list, such as `$P$`,
 * is each one's), another family's (say which), or neither. A family never detected (ASP.NET
 * Identity) claims only what no other family does.
 */
function validateAsFamily(passwordHash: string, family: HashFamily, detected: FoundForm | undefined, limits: PasswordLimits): ValidateImportedHashResult {
  if (passwordHash === '') return invalidFormat(family.name, 'it is empty');
  const marked = (candidate: HashForm<unknown>) => candidate.marker.test(passwordHash);
  const own = family.detected === false ? undefined : family.forms.find(marked);
  if (own) return validateForm(passwordHash, family, { family, form: own }, limits);
  const core = FORMATS.find((format) => format.matches(passwordHash));
  if (core) return otherFamily(family.name, { name: core.formatName, value: coreValue(core) });
  if (detected) return otherFamily(family.name, detected.family);
  const form = family.forms.find(marked);
  if (form) return validateForm(passwordHash, family, { family, form }, limits);
  const prefixed = findProviderPrefix(passwordHash);
  return prefixed ? { ok: false, message: providerPrefixMessage(prefixed) } : invalidFormat(family.name, family.expected);
}

/**
 * Validates a hash given to the import operation (SPEC sections 7 and 7b): the algorithm name,
 * the full format, the cost limits and the signer key for vendor scrypt. Computes no hash. A
 * §7b family (`./families.ts`) is taken by its value or detected by its marker; a hash of another
 * family than the one named is refused saying which value imports it.
 *
 * @param passwordHash - the hash as imported.
 * @param hashingAlgorithm - optional, case-insensitive: `bcrypt`, `argon2`,
 *   `vendor_scrypt` or its synonym `firebase_scrypt`, or a §7b family's value; without it the format is detected.
 * @returns the algorithm and the normalised hash to store, or a 400 message that never
 *   contains the hash.
 */
export function validateImportedHash(
  passwordHash: string,
  hashingAlgorithm: string | undefined,
  opts: ValidateImportedHashOptions,
): ValidateImportedHashResult {
  let requested: HashFormat<unknown> | undefined;
  let family: HashFamily | undefined;
  if (hashingAlgorithm !== undefined) {
    const key = hashingAlgorithm.toLowerCase();
    family = familyNamed(key);
    // hasOwn, not `in` or indexing: `constructor` or `__proto__` must not name an algorithm.
    if (family === undefined && !Object.hasOwn(ALGORITHM_NAMES, key)) {
      return { ok: false, message: UNSUPPORTED_ALGORITHM };
    }
    requested = family === undefined ? formatFor(ALGORITHM_NAMES[key]) : undefined;
  }

  if (passwordHash !== passwordHash.trim()) {
    return invalidFormat(family?.name ?? requested?.formatName, 'it has leading or trailing whitespace');
  }

  const detectedForm = detectForm(passwordHash);
  if (family !== undefined) {
    return validateAsFamily(passwordHash, family, detectedForm, opts.limits);
  }
  if (detectedForm !== undefined) {
    if (requested !== undefined) return otherFamily(requested.formatName, detectedForm.family);
    const valid = validateForm(passwordHash, detectedForm.family, detectedForm, opts.limits);
    // Seed rule 2 before a marker's family: a standard BCrypt/Argon2 hash behind a tag that is also
    // a marker (LDAP's `{CRYPT}$2b$…`) is a prefix to remove, which says more than LDAP's refusal.
    const prefixed = valid.ok || detectedForm.family.value !== 'ldap' ? undefined : findProviderPrefix(passwordHash);
    return prefixed ? { ok: false, message: providerPrefixMessage(prefixed) } : valid;
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

/** The algorithm or §7b family of a stored hash, by its form (`undefined` for none this service knows). */
export function hashAlgorithmOf(stored: string): string | undefined {
  return hashFormatOf(stored)?.name ?? storedFormOf(stored)?.family.value;
}
