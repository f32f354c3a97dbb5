import type { UserListCursor } from '../../storage/ports/user-lists';

/**
 * `GET /users` pagination tokens: base64url (no padding) of `<timeJoined>#<userId>`, the place of
 * the last user of a page. Opaque to clients; a page starts strictly after that place, so a token
 * stays valid when its user is removed meanwhile.
 */
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const PAYLOAD = /^(0|[1-9][0-9]{0,14})#([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Encodes the place after which the next page starts. */
export function encodePaginationToken(cursor: UserListCursor): string {
  return Buffer.from(`${cursor.timeJoined}#${cursor.userId}`, 'utf8').toString('base64url');
}

/**
 * Decodes a token; `undefined` when it is not one this service issued in form. Checked strictly
 * (alphabet, canonical encoding, payload pattern) because Node's decoder silently skips bad
 * characters and would turn garbage into some other place in the list.
 */
export function decodePaginationToken(token: string): UserListCursor | undefined {
  if (!BASE64URL.test(token)) return undefined;
  const buf = Buffer.from(token, 'base64url');
  if (buf.toString('base64url') !== token) return undefined;
  const match = PAYLOAD.exec(buf.toString('utf8'));
  if (!match) return undefined;
  return { timeJoined: Number(match[1]), userId: match[2] };
}
