import { createHash, timingSafeEqual } from 'node:crypto';

/*
 * What is kept of a secret (a token, a code) and how it is compared: node:crypto only, so any
 * bundle may import it without carrying a library.
 */

/** SHA-256 of a string's UTF-8 bytes, as lower-case hex (the core's `Utils.hashSHA256`): what the table stores of a token. */
export const sha256hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Two byte strings compared in time independent of where they differ. Lengths first:
 * `timingSafeEqual` throws on unequal ones, and the length of a hash or a token format is public.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Two secrets (or hashes of secrets, or recomputed password hashes) as UTF-8, compared as {@link sameBytes}. */
export function sameSecret(a: string, b: string): boolean {
  return sameBytes(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
