import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Reads the key a request presents: header `api-key`, else `Authorization: Bearer <key>`.
 */
export function presentedApiKey(headers: Readonly<Record<string, string | undefined>>): string | undefined {
  const direct = headers['api-key'];
  if (direct !== undefined && direct !== '') return direct;
  const auth = headers['authorization'];
  const match = auth === undefined ? null : /^Bearer\s+(.+)$/i.exec(auth.trim());
  return match ? match[1].trim() : undefined;
}

/**
 * Whether `presented` equals one of `validKeys`, in constant time.
 *
 * Why: a plain `===` stops at the first differing character, so response times would let an
 * attacker recover a key byte by byte. Both sides are hashed to fixed-length digests first so that
 * `timingSafeEqual` never sees unequal lengths (which would leak the key's length), and every key
 * is compared (no early exit) so the position of the matching key in the list does not show.
 */
export function isValidApiKey(presented: string | undefined, validKeys: readonly string[]): boolean {
  if (presented === undefined) return false;
  const digest = createHash('sha256').update(presented, 'utf8').digest();
  let ok = false;
  for (const key of validKeys) {
    const expected = createHash('sha256').update(key, 'utf8').digest();
    ok = timingSafeEqual(digest, expected) || ok;
  }
  return ok;
}
