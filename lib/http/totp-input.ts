import { canonicalSecret } from '../recipes/totp/base32';
import { MAX_SKEW } from '../recipes/totp/limits';
import { BadRequestError, invalidField } from './errors';
import { optionalString, requiredQueryParam, type Fields } from './input';

/**
 * The TOTP endpoints' input (SPEC §20), checked as the core checks it: every field's presence and
 * type first (§1's `Field name '<f>' is invalid in JSON input`; `null` is no string, as in the
 * core), then the core's texts for empty strings and out-of-range numbers, in the core's order.
 */

/** A string field, at most its `MAX_LENGTH`; `optional` lets it be absent (never `null`). */
function text(fields: Fields, name: string, optional = false): string | undefined {
  const value = fields[name];
  if (value === undefined && optional) return undefined;
  if (typeof value !== 'string') throw invalidField(name);
  return optionalString(fields, name);
}

const required = (fields: Fields, name: string): string => text(fields, name) as string;

/**
 * A code as given: any string. Its length is not bounded here: a code over 8 characters is
 * `INVALID_TOTP_ERROR` (and counts), as in the core; it is never stored.
 */
function totpCode(fields: Fields): string {
  const value = fields.totp;
  if (typeof value !== 'string') throw invalidField('totp');
  return value;
}

/** A Java `int`, as the core parses `skew` and `period`. */
function int(fields: Fields, name: string): number {
  const value = fields[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < -(2 ** 31) || value > 2 ** 31 - 1) throw invalidField(name);
  return value;
}

function nonEmpty(name: string, value: string | undefined): void {
  if (value === '') throw new BadRequestError(`${name} cannot be empty`);
}

function skewAndPeriod(skew: number, period: number): void {
  if (skew < 0) throw new BadRequestError('skew must be >= 0');
  if (period <= 0) throw new BadRequestError('period must be > 0');
  if (skew > MAX_SKEW) throw new BadRequestError(`skew must be <= ${MAX_SKEW}`);
}

/** `POST /recipe/totp/device` `{"userId","deviceName"?,"skew","period"}`. */
export function createDeviceInput(body: Fields): { userId: string; deviceName?: string; skew: number; period: number } {
  const userId = required(body, 'userId');
  const deviceName = text(body, 'deviceName', true);
  const skew = int(body, 'skew');
  const period = int(body, 'period');
  nonEmpty('userId', userId);
  nonEmpty('deviceName', deviceName);
  skewAndPeriod(skew, period);
  return { userId, ...(deviceName !== undefined ? { deviceName } : {}), skew, period };
}

/**
 * `POST /recipe/totp/device/import` `{"userId","deviceName"?,"skew","period","secretKey"}`. The
 * secret is normalised (spaces and `=` removed, upper-cased) and must then be base32 (beyond the
 * core, which stores what it is given and fails on it later); the text never echoes it.
 */
export function importDeviceInput(body: Fields): { userId: string; deviceName?: string; skew: number; period: number; secretKey: string } {
  const userId = required(body, 'userId');
  const deviceName = text(body, 'deviceName', true);
  const skew = int(body, 'skew');
  const period = int(body, 'period');
  const secretKey = required(body, 'secretKey');
  nonEmpty('userId', userId);
  nonEmpty('deviceName', deviceName);
  nonEmpty('secretKey', secretKey);
  skewAndPeriod(skew, period);
  const normalised = canonicalSecret(secretKey);
  if (normalised === undefined) throw new BadRequestError('secretKey is not valid base32');
  return { userId, ...(deviceName !== undefined ? { deviceName } : {}), skew, period, secretKey: normalised };
}

/** `PUT /recipe/totp/device` `{"userId","existingDeviceName","newDeviceName"}`. */
export function renameDeviceInput(body: Fields): { userId: string; existingDeviceName: string; newDeviceName: string } {
  const userId = required(body, 'userId');
  const existingDeviceName = required(body, 'existingDeviceName');
  const newDeviceName = required(body, 'newDeviceName');
  nonEmpty('userId', userId);
  nonEmpty('existingDeviceName', existingDeviceName);
  nonEmpty('newDeviceName', newDeviceName);
  return { userId, existingDeviceName, newDeviceName };
}

/** `GET /recipe/totp/device/list?userId=`. */
export function listDevicesInput(query: Fields): string {
  const userId = requiredQueryParam(query, 'userId');
  nonEmpty('userId', userId);
  return userId;
}

/** `POST /recipe/totp/device/remove` `{"userId","deviceName"}`. */
export function removeDeviceInput(body: Fields): { userId: string; deviceName: string } {
  const userId = required(body, 'userId');
  const deviceName = required(body, 'deviceName');
  nonEmpty('userId', userId);
  nonEmpty('deviceName', deviceName);
  return { userId, deviceName };
}

/** `POST [/<t>]/recipe/totp/device/verify` `{"userId","deviceName","totp"}`. */
export function verifyDeviceInput(body: Fields): { userId: string; deviceName: string; totp: string } {
  const userId = required(body, 'userId');
  const deviceName = required(body, 'deviceName');
  const totp = totpCode(body);
  nonEmpty('userId', userId);
  nonEmpty('deviceName', deviceName);
  return { userId, deviceName, totp };
}

/** `POST [/<t>]/recipe/totp/verify` `{"userId","totp"}`. */
export function verifyCodeInput(body: Fields): { userId: string; totp: string } {
  const userId = required(body, 'userId');
  const totp = totpCode(body);
  nonEmpty('userId', userId);
  return { userId, totp };
}
