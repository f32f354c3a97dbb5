import { timingSafeEqual } from 'node:crypto';

/*
 * The final comparison of every check (SPEC §7b): constant time in the contents. Only the lengths
 * may differ in time, and they are public (the form fixes them).
 */

/** Whether two byte strings are equal, in time independent of where they differ. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Whether two texts are equal (as UTF-8), in time independent of where they differ. */
export function sameText(a: string, b: string): boolean {
  return sameBytes(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
