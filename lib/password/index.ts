/*
 * The password module in one import, for the code that needs all of it (sign-in, the tests, the
 * bench). Functions that need only part import that part, so their bundles carry nothing more:
 * `./formats` (validating imported hashes, no hashing library), `./own-hash` (the own Argon2id),
 * `./verify` (bcryptjs and the Argon2 verifier).
 */
export { hashAlgorithmOf, hashFormatOf, validateImportedHash } from './formats';
export type { ValidateImportedHashOptions, ValidateImportedHashResult } from './formats';
export { verifyPassword } from './verify';
export { hashPassword, needsRehash, dummyVerify } from './own-hash';
export { SignerKeyNotConfiguredError, UnrecognisedStoredHashError, SIGNER_KEY_NOT_CONFIGURED_MESSAGE } from './errors';
export { DEFAULT_PASSWORD_LIMITS, DEFAULT_OWN_HASH_PARAMS } from './limits';
export type { PasswordLimits, OwnHashParams } from './limits';
export type { HashAlgorithm, HashFormat, ParseResult, PasswordCheck, VerifyContext } from './types';
