import { createHmac, timingSafeEqual } from 'node:crypto';

/** The core's codes: 6 digits ("Not allowing the user to change the hashing algo and totp length"). */
export const TOTP_DIGITS = 6;

/**
 * A code longer than this is refused without computing anything (the core: its used-code column
 * is `VARCHAR(8)`; such a code answers `INVALID_TOTP_ERROR`).
 */
export const MAX_TOTP_LENGTH = 8;

/** RFC 4226 HOTP with HMAC-SHA1: the counter as 8 bytes big-endian, dynamic truncation, `digits` decimal digits. */
export function hotp(key: Buffer, counter: number, digits: number = TOTP_DIGITS): string {
  const message = Buffer.alloc(8);
  message.writeBigInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return (binary % 10 ** digits).toString().padStart(digits, '0');
}

/**
 * RFC 6238's time step of an instant (T0 = 0). Java's `long` division, as the core's library
 * (java-otp) divides: toward zero, which differs from `floor` only before 1970 (`+ 0`: never `-0`).
 */
export const timeStep = (timeMs: number, periodSec: number): number => Math.trunc(timeMs / (periodSec * 1000)) + 0;

/** The TOTP code of an instant (RFC 6238: HMAC-SHA1, T0 = 0). */
export function totpAt(key: Buffer, timeMs: number, periodSec: number, digits: number = TOTP_DIGITS): string {
  return hotp(key, timeStep(timeMs, periodSec), digits);
}

/**
 * Whether `code` is the device's code at `now + i·period` for some `i` in `[-skew, +skew]`, as the
 * core checks it. Every code of the window is computed and compared in constant time, and the
 * answers are combined without stopping at a match: how long a check takes says nothing about
 * which step (or whether any) matched. A code of another length is compared against zeros, so it
 * costs the same and never matches.
 */
export function matchesWindow(key: Buffer, code: string, nowMs: number, periodSec: number, skew: number): boolean {
  const given = Buffer.from(code, 'utf8');
  const sameLength = given.length === TOTP_DIGITS;
  const probe = sameLength ? given : Buffer.alloc(TOTP_DIGITS);
  let matched = 0;
  for (let i = -skew; i <= skew; i++) {
    const expected = Buffer.from(totpAt(key, nowMs + i * periodSec * 1000, periodSec), 'utf8');
    matched |= timingSafeEqual(expected, probe) ? 1 : 0;
  }
  return sameLength && matched === 1;
}
