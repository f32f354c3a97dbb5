/**
 * Base64url as WebAuthn writes it (RFC 4648 §5, padding optional), decoded strictly: Node's own
 * decoder skips characters it does not know, so a credential id with a `+` in it would decode to
 * other bytes instead of being refused.
 */
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** The bytes of a base64url string, or `undefined` when it is not one. */
export function fromBase64Url(text: string): Buffer | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1 || (body.length !== text.length && text.length % 4 !== 0)) return undefined;
  return Buffer.from(body, 'base64url');
}

/** Base64url without padding, as the core and browsers write ids and challenges. */
export const toBase64Url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');
