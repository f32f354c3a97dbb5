/** The message shared by the import 400 and the sign-in 500 when the signer key is missing. */
export const SIGNER_KEY_NOT_CONFIGURED_MESSAGE = 'vendor_password_hashing_signer_key is not configured';

/**
 * Thrown when a stored vendor scrypt hash must be verified but no signer key is configured
 * (or the configured one is not base64): an operator error, answered with a 500.
 */
export class SignerKeyNotConfiguredError extends Error {
  override readonly name = 'SignerKeyNotConfiguredError';

  /** @param message - defaults to {@link SIGNER_KEY_NOT_CONFIGURED_MESSAGE}. */
  constructor(message: string = SIGNER_KEY_NOT_CONFIGURED_MESSAGE, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Thrown when a stored hash is in no format this module knows: stored data was corrupted
 * or written around the import validation. The message never contains the hash.
 */
export class UnrecognisedStoredHashError extends Error {
  override readonly name = 'UnrecognisedStoredHashError';

  /** @param reason - what is wrong, without the hash itself. */
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`Stored password hash cannot be verified: ${reason}`, options);
  }
}
