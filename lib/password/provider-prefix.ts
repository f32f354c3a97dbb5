/** Where a standard hash starts inside a string carrying something in front of it. */
export interface ProviderPrefix {
  /** The characters in front of the standard form. */
  prefix: string;
  /** The standard identifier found after them (`$2a$`, `$argon2id$`, `$f_scrypt$`). */
  identifier: string;
  /** The hash from the identifier on. */
  rest: string;
}

const STANDARD_IDENTIFIER = /\$2[abxy]\$|\$argon2(?:id|i|d)\$|\$f_scrypt\$/;
/**
 * A prefix safe to repeat in a 400: short and made of identifier characters only
 * (`bcrypt`, `{bcrypt}`, `{CRYPT}`, `argon2`, Django's `bcrypt$`), so it cannot carry
 * hash material or markup into a response.
 */
const HARMLESS_PREFIX = /^[A-Za-z0-9{}_:.-]{1,32}\$?$/;
/**
 * Wrappers that hash the password before the standard algorithm (`bcrypt_sha512$`): removing
 * them gives a hash no plain password can match, so they are refused as unsupported rather than
 * with "remove the prefix". (Django's `bcrypt_sha256$` is a family of its own, SPEC §7b, found
 * before this rule.)
 */
const PRE_HASH_MARKER = /sha|md5|pbkdf/i;

/**
 * Finds a standard hash identifier after a provider's own tag, e.g. `bcrypt$2a$10$...`
 * or `{ARGON2}$argon2id$...`.
 *
 * @returns the split, or `undefined` when no standard identifier follows the first character.
 */
export function findProviderPrefix(encoded: string): ProviderPrefix | undefined {
  const match = STANDARD_IDENTIFIER.exec(encoded.slice(1));
  if (!match) {
    return undefined;
  }
  const start = match.index + 1;
  return { prefix: encoded.slice(0, start), identifier: match[0], rest: encoded.slice(start) };
}

/**
 * The 400 sentence for a hash with a provider prefix. It names the prefix only when it is
 * harmless, and never repeats any other part of the hash.
 */
export function providerPrefixMessage({ prefix, identifier }: ProviderPrefix): string {
  if (!HARMLESS_PREFIX.test(prefix)) {
    return `Password hash has ${prefix.length} characters in front of the standard form: remove them and import the hash from '${identifier}' on`;
  }
  if (PRE_HASH_MARKER.test(prefix)) {
    return `Password hash starts with the provider prefix '${prefix}', which marks a pre-hashed variant that cannot be imported`;
  }
  return `Password hash starts with the provider prefix '${prefix}': remove it and import the hash from '${identifier}' on`;
}
