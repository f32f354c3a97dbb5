import { decodeBase64Strict } from '../base64';
import type { FormParse } from './form';

/*
 * The fields SPEC §7b's forms are made of, read strictly and without throwing: decimal numbers with
 * no sign or leading zero, hex, base64 (padded or not) and passlib's adapted base64.
 */

/** A refused parse: `reason` is the part of the 400 text after `format: `. */
export function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

/** An accepted parse. */
export function accept<P>(params: P): FormParse<P> {
  return { ok: true, params };
}

/** The most digits a number field may have: past a bound anyway, and still a safe integer. */
const DECIMAL = /^(?:0|[1-9]\d{0,14})$/;

/** A decimal number with no sign or leading zero, or `undefined`. */
export function decimal(text: string): number | undefined {
  return DECIMAL.test(text) ? Number(text) : undefined;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/** Hex of either case and even length (at least one byte), or `undefined`. */
export function hexBytes(text: string): Buffer | undefined {
  return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/** Standard base64 that must carry its padding. */
export function paddedBase64(text: string): Buffer | undefined {
  return text.length % 4 === 0 ? decodeBase64Strict(text, 'standard') : undefined;
}

/** Standard base64, padding optional (PHC strings write none, Keycloak's values have it). */
export function base64(text: string): Buffer | undefined {
  return decodeBase64Strict(text, 'standard');
}

/** passlib's adapted base64: `.` for `+`, no padding. */
export function adaptedBase64(text: string): Buffer | undefined {
  return /^[A-Za-z0-9./]*$/.test(text) ? decodeBase64Strict(text.replace(/\./g, '+'), 'standard') : undefined;
}

/**
 * Werkzeug's `<method>$<salt text>$<hex key>` (its PBKDF2 and scrypt forms): the method's match
 * by `method`, the salt's UTF-8 bytes and the key from hex (`undefined` when it is no hex), or
 * `expected` when the string is not of that shape.
 */
export function werkzeugFields(
  encoded: string,
  method: RegExp,
  expected: string,
): FormParse<{ method: RegExpExecArray; salt: Buffer; key: Buffer | undefined }> {
  const parts = encoded.split('$');
  const matched = method.exec(parts[0]);
  if (parts.length !== 3 || !matched) return refuse(expected);
  return accept({ method: matched, salt: Buffer.from(parts[1], 'utf8'), key: hexBytes(parts[2]) });
}

/** The password digests PBKDF2 forms name. */
export type Digest = 'sha1' | 'sha256' | 'sha512';

/** A digest named in a form, or `undefined` for any other name. */
export function digestNamed(name: string): Digest | undefined {
  return name === 'sha1' || name === 'sha256' || name === 'sha512' ? name : undefined;
}
