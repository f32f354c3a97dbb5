/** Which base64 alphabets a field may use. */
export type Base64Alphabet = 'standard' | 'standard-or-url';

const STANDARD = /^([A-Za-z0-9+/]*)(={0,2})$/;
const STANDARD_OR_URL = /^([A-Za-z0-9+/]*|[A-Za-z0-9_-]*)(={0,2})$/;

/**
 * Decodes base64 strictly: only the allowed alphabet (never a mix of both), optional
 * padding that is correct when present, and canonical trailing bits.
 *
 * Why: Node's decoder silently skips characters outside the alphabet and ignores stray
 * bits, so a damaged hash would otherwise be stored and could never verify.
 *
 * @returns the bytes, or `undefined` when `text` is not valid base64.
 */
export function decodeBase64Strict(text: string, alphabet: Base64Alphabet): Buffer | undefined {
  const match = (alphabet === 'standard' ? STANDARD : STANDARD_OR_URL).exec(text);
  if (!match) {
    return undefined;
  }
  const [, body, padding] = match;
  if (body.length % 4 === 1) {
    return undefined;
  }
  if (padding.length > 0 && (body.length + padding.length) % 4 !== 0) {
    return undefined;
  }
  const bytes = Buffer.from(body, 'base64');
  const canonical = bytes.toString('base64url');
  if (canonical !== body.replace(/\+/g, '-').replace(/\//g, '_')) {
    return undefined;
  }
  return bytes;
}

/** Standard base64 without padding, as PHC strings use. */
export function toBase64NoPadding(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}
