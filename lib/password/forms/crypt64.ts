/*
 * crypt64: the alphabet `./0-9A-Za-z` that crypt(3), phpass and Drupal write their salts and digests
 * in, six bits a character, least significant first. Each algorithm picks the digest's bytes in its
 * own order; `encodeCrypt64` takes that order, so one encoder serves MD5-crypt, SHA-crypt and phpass.
 */

/** The 64 characters, each at the index of the six bits it stands for. */
export const CRYPT64_ALPHABET = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Only crypt64 characters (possibly none). */
export const CRYPT64_TEXT = /^[./0-9A-Za-z]*$/;

/** The characters, as a 400 text names them. */
export const CRYPT64_CHARACTERS = './0-9A-Za-z';

/**
 * Whether the last character of `encoded`, the crypt64 text of `byteCount` bytes, leaves the bits
 * past the bytes at zero. Every encoder writes them as zero and every verifier compares the whole
 * text, so a hash with one of them set can never verify: refused at import instead.
 */
export function hasCleanTail(encoded: string, byteCount: number): boolean {
  const usedBits = byteCount * 8 - (encoded.length - 1) * 6;
  return CRYPT64_ALPHABET.indexOf(encoded[encoded.length - 1]) < 2 ** usedBits;
}

/**
 * Encodes `bytes` picked in groups: each group of three (its first byte the most significant) gives
 * four characters, a last group of two gives three and of one gives two, low six bits first.
 */
export function encodeCrypt64(bytes: Uint8Array, groups: readonly (readonly number[])[]): string {
  let out = '';
  for (const group of groups) {
    let word = 0;
    for (const index of group) {
      word = (word << 8) | bytes[index];
    }
    for (let n = 0; n <= group.length; n++) {
      out += CRYPT64_ALPHABET[word & 0x3f];
      word >>>= 6;
    }
  }
  return out;
}

/** The groups of phpass and Drupal: the bytes in order, three at a time, little-endian. */
export function littleEndianGroups(byteCount: number): number[][] {
  const groups: number[][] = [];
  for (let start = 0; start < byteCount; start += 3) {
    const group: number[] = [];
    for (let index = Math.min(start + 2, byteCount - 1); index >= start; index--) {
      group.push(index);
    }
    groups.push(group);
  }
  return groups;
}

/**
 * What is wrong with `text` as a crypt64 field of `length` characters, or `undefined`. With
 * `byteCount`, the field encodes that many bytes and its unused last bits must be zero.
 */
export function crypt64FieldProblem(text: string, field: string, length: number, byteCount?: number): string | undefined {
  if (text.length !== length) {
    return `the ${field} must be ${length} characters`;
  }
  if (!CRYPT64_TEXT.test(text)) {
    return `the ${field} may only contain the characters ${CRYPT64_CHARACTERS}`;
  }
  if (byteCount !== undefined && !hasCleanTail(text, byteCount)) {
    return `the last character of the ${field} has unused bits set`;
  }
  return undefined;
}
