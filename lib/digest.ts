import { createHash, timingSafeEqual } from 'node:crypto';

/*
 * What is kept of a secret (a token, a code) and how it is compared: node:crypto only, so any
 * bundle may import it without carrying a library.
 */

/** SHA-256 of a string's UTF-8 bytes, as lower-case hex (the core's `Utils.hashSHA256`): what the table stores of a token. */
export const sha256hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Two secrets (or hashes of secrets) compared in constant time. Lengths first: `timingSafeEqual`
 * throws on unequal ones, and the length of a hash or a token format is public.
 */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
