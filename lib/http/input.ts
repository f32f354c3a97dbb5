import { toE164 } from '../phone/e164';
import { MAX_PASSWORD_BYTES } from '../password/limits';
import { jsonValueProblems } from '../recipes/usermetadata/json-value';
import { MAX_JSON_DEPTH } from '../recipes/usermetadata/limits';
import { BadRequestError, invalidField, INVALID_JSON } from './errors';

/** A parsed JSON object body or query string: field name → raw value. */
export type Fields = Readonly<Record<string, unknown>>;

/**
 * Maximum lengths of string fields (SPEC §8). Every string has one, so a long value is a 400
 * naming the field, never a 500 from DynamoDB's 400 KB item limit.
 */
export const MAX_LENGTH: Readonly<Record<string, number>> = {
  email: 256,
  phoneNumber: 256,
  passwordHash: 512,
  userInputCode: 64,
  deviceId: 128,
  preAuthSessionId: 128,
  linkCode: 128,
  userId: 128,
  recipeUserId: 128,
  primaryUserId: 128,
  superTokensUserId: 128,
  externalUserId: 128,
  tenantId: 64,
  thirdPartyId: 28,
  thirdPartyUserId: 256,
  // Sessions (SPEC §18): an access token carries its payload (at most `MAX_SESSION_PAYLOAD_BYTES`
  // of JSON, base64url: 4/3 of it) and a signature; refresh tokens and handles are short.
  accessToken: 140_000,
  refreshToken: 2048,
  antiCsrfToken: 256,
  sessionHandle: 256,
  // TOTP (SPEC §20): the core's columns hold 256 characters.
  deviceName: 256,
  existingDeviceName: 256,
  newDeviceName: 256,
  secretKey: 256,
  // WebAuthn (SPEC §21): options ids are UUIDs (a key part, so bounded well under DynamoDB's 2 KB).
  webauthnGeneratedOptionsId: 128,
};
const DEFAULT_MAX_LENGTH = 1024;

/** Parses a request body that must be a JSON object. */
export function parseJsonObject(raw: string | undefined): Fields {
  if (raw === undefined || raw.trim() === '') throw new BadRequestError(INVALID_JSON);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new BadRequestError(INVALID_JSON, { cause: err });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new BadRequestError(INVALID_JSON);
  return value as Fields;
}

/**
 * Refuses a string that is not valid Unicode: a lone UTF-16 surrogate (JSON `"\ud800"`) is no
 * text, and it can be neither stored nor encoded into a key (`encodeURIComponent` throws).
 */
export function checkWellFormed(name: string, value: string): void {
  if (!value.isWellFormed()) throw notUnicode(name);
}

const notUnicode = (name: string) => new BadRequestError(`Field name '${name}' is not valid Unicode: it holds a lone surrogate`);

function checkLength(name: string, value: string): string {
  checkWellFormed(name, value);
  const max = MAX_LENGTH[name] ?? DEFAULT_MAX_LENGTH;
  if (value.length > max) {
    throw new BadRequestError(`Field name '${name}' is too long: the maximum is ${max} characters`);
  }
  return value;
}

/** An optional string: absent or `null` → `undefined`; another type → 400. */
export function optionalString(fields: Fields, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidField(name);
  return checkLength(name, value);
}

/**
 * An optional integer query parameter, read as the core reads one (Java's `Integer.parseInt`, so a
 * 32-bit int): anything else is the core's 400 `Field name '<name>' must be an int in the GET request`.
 */
export function optionalIntQueryParam(query: Fields, name: string): number | undefined {
  const raw = optionalString(query, name)?.trim();
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^[+-]?\d{1,10}$/.test(raw) || value > 2 ** 31 - 1 || value < -(2 ** 31)) {
    throw new BadRequestError(`Field name '${name}' must be an int in the GET request`);
  }
  return value;
}

/** A required string; missing, `null` or of another type → 400. `nonEmpty` also refuses `""`. */
export function requiredString(fields: Fields, name: string, opts: { nonEmpty?: boolean } = {}): string {
  const value = optionalString(fields, name);
  if (value === undefined) throw invalidField(name);
  if (opts.nonEmpty && value.trim() === '') {
    throw new BadRequestError(`Field name '${name}' must not be empty`);
  }
  return value;
}

/** A required query parameter of a GET request (the core's text when it is missing). */
export function requiredQueryParam(query: Fields, name: string): string {
  const value = optionalString(query, name);
  if (value === undefined) throw new BadRequestError(`Field name '${name}' is missing in GET request`);
  return value;
}

/** A string that may be set, cleared with JSON `null`, or left out (`undefined`). */
export function nullableString(fields: Fields, name: string): string | null | undefined {
  const value = fields[name];
  if (value === null) return null;
  return optionalString(fields, name);
}

/** A required boolean. */
export function requiredBoolean(fields: Fields, name: string): boolean {
  const value = fields[name];
  if (typeof value !== 'boolean') throw invalidField(name);
  return value;
}

/** An optional boolean (absent → `fallback`); any other JSON type is the core's 400. */
export function optionalBoolean(fields: Fields, name: string, fallback: boolean): boolean {
  return fields[name] === undefined ? fallback : requiredBoolean(fields, name);
}

/** A required JSON object. */
export function requiredObject(fields: Fields, name: string): Fields {
  const value = fields[name];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidField(name);
  return value as Fields;
}

/**
 * A required JSON object whose content is stored as given (metadata): every string in it, keys
 * too, must be valid Unicode, and it may nest at most `MAX_JSON_DEPTH` levels. Walked without
 * recursion, so no input can overflow the stack here.
 */
export function requiredJsonObject(fields: Fields, name: string): Fields {
  const root = requiredObject(fields, name);
  const [problem] = jsonValueProblems(root);
  if (problem === 'NOT_UNICODE') throw notUnicode(name);
  if (problem === 'TOO_DEEP') throw new BadRequestError(`Field name '${name}' nests deeper than ${MAX_JSON_DEPTH} levels`);
  return root;
}

/**
 * Normalises an email a write stores: trimmed and lower-cased before every use (SPEC §3), and
 * checked to have an `@` and no whitespace inside. A lookup reads by `lookupEmail` instead.
 */
export function normaliseEmail(raw: string, name = 'email'): string {
  const email = raw.trim().toLowerCase();
  checkLength(name, email);
  if (!email.includes('@')) throw new BadRequestError(`Field name '${name}' is not an email address: it has no '@'`);
  if (/\s/.test(email)) throw new BadRequestError(`Field name '${name}' is not an email address: it contains whitespace`);
  return email;
}

/**
 * Normalises an email a lookup reads by (SPEC §3): trimmed and lower-cased, as the core does, and
 * nothing more: one that is no address finds no user, never a 400. Only §8's length bound holds.
 */
export function lookupEmail(raw: string, name = 'email'): string {
  return checkLength(name, raw.trim().toLowerCase());
}

export const PHONE_FORMAT_MESSAGE = 'phoneNumber must be in international format, for example +14155552671';

/** Normalises a phone number in international format to E.164 (`+1 650-555-1234` → `+16505551234`). */
export function normalisePhoneNumber(raw: string): string {
  const trimmed = raw.trim();
  if (!trimmed.startsWith('+')) throw new BadRequestError(PHONE_FORMAT_MESSAGE);
  try {
    return toE164(trimmed);
  } catch (err) {
    throw new BadRequestError(PHONE_FORMAT_MESSAGE, { cause: err });
  }
}

/** A password: required string, at most `MAX_PASSWORD_BYTES` UTF-8 bytes. */
export function requiredPassword(fields: Fields, name = 'password'): string {
  const value = fields[name];
  if (typeof value !== 'string') throw invalidField(name);
  checkWellFormed(name, value);
  if (Buffer.byteLength(value, 'utf8') > MAX_PASSWORD_BYTES) {
    throw new BadRequestError(`Field name '${name}' is too long: the maximum is ${MAX_PASSWORD_BYTES} bytes`);
  }
  return value;
}

/** Reads the user id of a request: the seed's `userId` or the SDK's `recipeUserId`. */
export function requiredUserId(fields: Fields): string {
  const recipeUserId = optionalString(fields, 'recipeUserId');
  const userId = optionalString(fields, 'userId');
  const id = recipeUserId ?? userId;
  if (id === undefined) throw invalidField('recipeUserId');
  return id;
}
