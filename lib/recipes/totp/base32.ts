/**
 * RFC 4648 base32 (the alphabet `A–Z2–7`), unpadded: what authenticator apps take in an
 * `otpauth://` URI, and how the core hands out and stores TOTP secrets. Node has no base32, and
 * these 30 lines are all a secret needs (no decoding of lower case, padding or spaces: secrets are
 * normalised once, on their way in, by `normaliseSecret`).
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const CANONICAL = /^[A-Z2-7]*$/;

/** Bytes as upper-case base32 without padding (20 bytes → 32 characters). */
export function base32Encode(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + ALPHABET[(value << (5 - bits)) & 31] : out;
}

/**
 * The bytes of canonical base32 (upper case, no padding), or `undefined` when it is none: another
 * character, or a length no encoding has (1, 3 or 6 characters past a multiple of 8). Trailing
 * bits that make no whole byte are dropped, as decoders do (the core's commons-codec too).
 */
export function base32Decode(text: string): Buffer | undefined {
  if (!CANONICAL.test(text) || [1, 3, 6].includes(text.length % 8)) return undefined;
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of text) {
    value = ((value << 5) | ALPHABET.indexOf(char)) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A given secret as stored (SPEC §20): spaces and `=` removed, upper-cased. */
export function normaliseSecret(raw: string): string {
  return raw.replace(/[\s=]/g, '').toUpperCase();
}

/**
 * A given secret as stored (`normaliseSecret`), or `undefined` when that is not base32 of at least
 * one byte: the check of `POST /recipe/totp/device/import` and of bulk import's `totpDevices`.
 */
export function canonicalSecret(raw: string): string | undefined {
  const secret = normaliseSecret(raw);
  return base32Decode(secret)?.length ? secret : undefined;
}
