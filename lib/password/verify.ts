import { verify as argon2Verify } from '@node-rs/argon2';
import { compare } from 'bcryptjs';
import { formatArgon2, type Argon2Params } from './argon2';
import type { BcryptParams } from './bcrypt';
import { FORM_CHECKS, PASSWORD_EVERY_ROUND } from './checks';
import { UnrecognisedStoredHashError } from './errors';
import { storedFormOf } from './families';
import { hashFormatOf } from './formats';
import { CRYPT_MAX_PASSWORD_BYTES, DEFAULT_PASSWORD_LIMITS } from './limits';
import { dummyVerify } from './own-hash';
import type { HashAlgorithm, PasswordCheck, VerifyContext } from './types';
import { verifyVendorScrypt } from './vendor-scrypt';

/*
 * Checking a password against a stored hash: the one module that imports bcryptjs and the Argon2
 * verifier, so only the functions that sign users in bundle them.
 */

async function verifyBcrypt(password: string, params: BcryptParams): Promise<boolean> {
  // bcryptjs refuses $2x$ (and only knows $2a$/$2b$), so every revision runs as $2a$
  // (SPEC section 7). They compute the same function on passwords up to 72 bytes, except
  // that $2x$ marks crypt_blowfish's pre-2011 sign-extension bug: a $2x$ hash of a
  // password with non-ASCII bytes will not verify. bcryptjs uses the first 72 UTF-8
  // bytes of the password, as every bcrypt does, and compares in constant time.
  const asRevisionA = `$2a$${String(params.cost).padStart(2, '0')}$${params.saltAndHash}`;
  // bcryptjs computes on the main thread in blocks of up to 100 ms (cost 10: all of it in one),
  // the event loop stopped. A request the caller started beside the verify (sign-in reads the user
  // meanwhile) takes a turn of the event loop to reach its socket: given that turn first, it goes
  // out now and its answer waits for the verify, instead of the verify's first block delaying it
  // (measured: sign-in 8 ms faster at cost 10 on loopback; round-trips.test.ts).
  await new Promise<void>((resolve) => setImmediate(resolve));
  return compare(password, asRevisionA);
}

async function verifyArgon2(password: string, params: Argon2Params): Promise<boolean> {
  // Verify against the normalised string: @node-rs/argon2 rejects padded or
  // non-canonical base64 and leading zeros. It compares digests in constant time
  // (RustCrypto password-hash's Output equality).
  return argon2Verify(formatArgon2(params), password);
}

/** The check of each algorithm, for the parameters its format parses. */
const CHECKS = {
  bcrypt: verifyBcrypt,
  argon2: verifyArgon2,
  vendor_scrypt: verifyVendorScrypt,
} satisfies Record<HashAlgorithm, PasswordCheck<never>>;

/**
 * Checks a password against a stored hash, choosing the check from the hash's format.
 *
 * @returns whether the password matches; a wrong signer key simply gives `false`.
 * @throws SignerKeyNotConfiguredError for a vendor scrypt hash while no signer key is configured.
 * @throws UnrecognisedStoredHashError when the stored hash is in no known format.
 */
export async function verifyPassword(password: string, stored: string, ctx: VerifyContext): Promise<boolean> {
  const format = hashFormatOf(stored);
  if (format === undefined) {
    return verifyFamilyForm(password, stored, ctx);
  }
  const parsed = format.parse(stored);
  if (!parsed.ok) {
    throw new UnrecognisedStoredHashError(parsed.message);
  }
  // The format named the algorithm and parsed its parameters, so they are that check's.
  return (CHECKS[format.name] as PasswordCheck<unknown>)(password, parsed.params, ctx);
}

/**
 * A SPEC §7b form: parsed and bounded again by the configured limits (a hash written around the
 * import validation must not cost more than the bounds allow), then checked by its form's check.
 */
async function verifyFamilyForm(password: string, stored: string, ctx: VerifyContext): Promise<boolean> {
  const found = storedFormOf(stored);
  const check = found && FORM_CHECKS.get(found.form);
  if (found === undefined || check === undefined) {
    throw new UnrecognisedStoredHashError('it is in no known format');
  }
  const parsed = found.form.parse(stored);
  const reason = parsed.ok ? found.form.bound(parsed.params, ctx.limits ?? DEFAULT_PASSWORD_LIMITS) : parsed.reason;
  if (!parsed.ok || reason !== undefined) {
    throw new UnrecognisedStoredHashError(`it is in invalid ${found.family.name} format: ${reason}`);
  }
  if (PASSWORD_EVERY_ROUND.has(found.form) && Buffer.byteLength(password, 'utf8') > CRYPT_MAX_PASSWORD_BYTES) {
    // Too long to match (limits.ts says why): a wrong password. It spends what an unknown email
    // does, so answering it is no quicker than answering for a user that does not exist.
    if (ctx.ownHash) await dummyVerify(password, ctx.ownHash);
    return false;
  }
  return check(password, parsed.params);
}
