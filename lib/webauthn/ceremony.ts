import { createHash, timingSafeEqual } from 'node:crypto';
import { parseAuthenticatorData, type AuthenticatorData } from './authenticator-data';
import { fromBase64Url, toBase64Url } from './base64url';
import { decodeCborWhole } from './cbor';
import { coseKeyOf, verifySignature, type CoseKey } from './cose-key';
import { MAX_CREDENTIAL_ID_BYTES } from './limits';

/**
 * What both WebAuthn ceremonies share (SPEC §21, "Verification"): the credential's outer shape,
 * the decoding of `response`, and the checks of clientDataJSON and authenticator data against the
 * stored options, in the core's (webauthn4j's) order. Every refusal is a value with a reason;
 * nothing here throws on what a caller sends.
 */

export type Refusal = { readonly status: 'INVALID_CREDENTIALS_ERROR' | 'INVALID_AUTHENTICATOR_ERROR'; readonly reason: string };

export const invalidCredentials = (reason: string): Refusal => ({ status: 'INVALID_CREDENTIALS_ERROR', reason });
export const invalidAuthenticator = (reason: string): Refusal => ({ status: 'INVALID_AUTHENTICATOR_ERROR', reason });

export const isRefusal = (v: object): v is Refusal => 'reason' in v;

/** What the stored options say a ceremony must match. */
export interface Expected {
  /** base64url, as the options answered it. */
  readonly challenge: string;
  readonly origin: string;
  readonly rpId: string;
  readonly userVerification: string;
  readonly userPresence: boolean;
}

type Json = Readonly<Record<string, unknown>>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The credential's id (canonical base64url: unpadded) after the core's checks of `id` and `type`
 * (`CredentialsValidator`, its texts), or the refusal.
 */
export function credentialIdOf(credential: Json): string | Refusal {
  const { id, type } = credential;
  if (id === undefined || id === null) return invalidCredentials('credential id is missing!');
  if (id === '') return invalidCredentials('credential id is empty!');
  const bytes = typeof id === 'string' ? fromBase64Url(id) : undefined;
  if (!bytes || bytes.length === 0) return invalidCredentials('Credential ID has to be base64 url encoded');
  if (bytes.length > MAX_CREDENTIAL_ID_BYTES) return invalidCredentials(`credential id is longer than ${MAX_CREDENTIAL_ID_BYTES} bytes`);
  if (type === undefined || type === null) return invalidCredentials('credential type is missing!');
  if (type === '') return invalidCredentials('credential type is empty!');
  if (typeof type !== 'string' || type.toLowerCase() !== 'public-key')
    return invalidCredentials(`not supported credential type: '${String(type).slice(0, 64)}'`);
  if (credential.rawId !== undefined && (typeof credential.rawId !== 'string' || !fromBase64Url(credential.rawId)?.equals(bytes))) {
    return invalidCredentials('credential rawId does not match its id');
  }
  return toBase64Url(bytes);
}

/** A base64url field of `response`, decoded, or the refusal naming it. */
export function responseBytes(response: Json, field: string): Buffer | Refusal {
  const value = response[field];
  const bytes = typeof value === 'string' ? fromBase64Url(value) : undefined;
  return bytes ?? invalidCredentials(`response.${field} is missing or not base64url`);
}

/** `credential.response`, or the refusal. */
export function responseOf(credential: Json): Json | Refusal {
  return isObject(credential.response) ? credential.response : invalidCredentials('credential response is missing!');
}

/** The parsed clientDataJSON. */
interface ClientData {
  readonly type: string;
  readonly challenge: string;
  readonly origin: string;
}

/** clientDataJSON decoded (bytes kept: the signatures cover their hash), or the refusal. */
export function clientDataOf(response: Json): { readonly bytes: Buffer; readonly data: ClientData } | Refusal {
  const bytes = responseBytes(response, 'clientDataJSON');
  if (isRefusal(bytes)) return bytes;
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch {
    return invalidCredentials('response.clientDataJSON is not JSON');
  }
  if (!isObject(data) || typeof data.type !== 'string' || typeof data.challenge !== 'string' || typeof data.origin !== 'string') {
    return invalidCredentials('response.clientDataJSON lacks its type, challenge or origin');
  }
  return { bytes, data: { type: data.type, challenge: data.challenge, origin: data.origin } };
}

/** Authenticator data parsed from bytes, or the refusal (malformed bytes are the caller's). */
export function authenticatorDataOf(bytes: Buffer, field: string): AuthenticatorData | Refusal {
  try {
    return parseAuthenticatorData(bytes);
  } catch (err) {
    return invalidCredentials(`${field} is malformed: ${err instanceof Error ? err.message : 'unreadable'}`);
  }
}

function sameChallenge(given: string, stored: string): boolean {
  const a = fromBase64Url(given);
  const b = fromBase64Url(stored);
  return a !== undefined && b !== undefined && a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The checks both ceremonies make, in webauthn4j's order: clientData type, challenge, origin;
 * rpIdHash; UP when the options require presence; UV when they require verification.
 */
export function checkCeremony(type: 'webauthn.create' | 'webauthn.get', client: ClientData, auth: AuthenticatorData, expected: Expected): Refusal | undefined {
  if (client.type !== type) return invalidAuthenticator(`clientDataJSON type must be '${type}'`);
  if (!sameChallenge(client.challenge, expected.challenge)) return invalidAuthenticator('The actual challenge does not match the expected challenge');
  if (client.origin !== expected.origin) return invalidAuthenticator(`The origin '${client.origin.slice(0, 256)}' does not match the expected origin`);
  if (!auth.rpIdHash.equals(sha256(Buffer.from(expected.rpId, 'utf8'))))
    return invalidAuthenticator('rpIdHash does not match the hash of the relying party id');
  if (expected.userPresence && !auth.userPresent) return invalidAuthenticator('User presence is required, but the UP flag is not set');
  if (expected.userVerification === 'required' && !auth.userVerified) return invalidAuthenticator('User verification is required, but the UV flag is not set');
  return undefined;
}

export const sha256 = (bytes: Buffer): Buffer => createHash('sha256').update(bytes).digest();

/** The data a WebAuthn signature covers: authenticator data ‖ SHA-256(clientDataJSON). */
export const signedData = (authData: Buffer, clientDataJSON: Buffer): Buffer => Buffer.concat([authData, sha256(clientDataJSON)]);

/** A stored or attested COSE key (bytes), loaded, or a refusal naming what is wrong. */
export function loadCoseKey(bytes: Buffer): CoseKey | Refusal {
  let decoded: unknown;
  try {
    decoded = decodeCborWhole(bytes);
  } catch {
    return invalidAuthenticator('The credential public key is not a COSE key');
  }
  const key = coseKeyOf(decoded);
  return typeof key === 'string'
    ? invalidAuthenticator(`Unsupported credential public key: ${key}. The recipe verifies COSE keys with alg -7, -8 or -257`)
    : key;
}

export { verifySignature };
