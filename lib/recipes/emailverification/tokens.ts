import { sha256hex } from '../../digest';
import type { RandomSource } from '../deps';

/** Random bytes in a token: 384 bits, the core's size (48 bytes, hex, then base64url: 128 characters). */
const TOKEN_BYTES = 48;

/** A new email verification token, as the core makes them. */
export function newVerificationToken(random: RandomSource): string {
  return Buffer.from(random.bytes(TOKEN_BYTES).toString('hex'), 'utf8').toString('base64url');
}

/** What is stored of a token: its SHA-256, hex. A leaked table holds no usable token. */
export function verificationTokenHash(token: string): string {
  return sha256hex(token);
}
