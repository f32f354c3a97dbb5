import { createReadStream } from 'node:fs';
import { chain } from 'stream-chain';
import { parser } from 'stream-json';
import { nonEmpty } from '../mapping';
import type { ReadPasskey } from '../model';
import { PARSER_OPTIONS } from '../read';

/**
 * Keycloak's passkeys (SPEC §21): credentials of type `webauthn-passwordless` (passkeys) and
 * `webauthn` (security keys as a second factor) in a user's `credentials[]`, their
 * `credentialData` a JSON string `{credentialId (standard base64), credentialPublicKey (base64url
 * COSE_Key), counter, transports, aaguid, …}` (Keycloak's `WebAuthnCredentialData`). Each type has
 * its realm policy's RP id (`webAuthnPolicyPasswordlessRpId`, `webAuthnPolicyRpId`); an empty one
 * (Keycloak then uses its own host) is `--webauthn-rp-id`.
 */

type Obj = Record<string, unknown>;

export const PASSKEY_TYPES: ReadonlySet<string> = new Set(['webauthn', 'webauthn-passwordless']);

/** The realm's WebAuthn policies' RP ids (empty or absent: undefined). */
export interface KeycloakRpIds {
  readonly passwordless?: string;
  readonly twoFactor?: string;
}

const POLICY_KEYS: Readonly<Record<string, keyof KeycloakRpIds>> = {
  webAuthnPolicyPasswordlessRpId: 'passwordless',
  webAuthnPolicyRpId: 'twoFactor',
};

/**
 * The RP ids of an export's realm file(s), read when the first WebAuthn credential is met: the
 * top-level tokens of each file that is not a `<realm>-users-<n>.json` (those hold no policy),
 * until both policies were seen. A file that cannot be read is refused when its users are.
 */
export async function readKeycloakRpIds(files: readonly string[]): Promise<KeycloakRpIds> {
  const found: { passwordless?: string; twoFactor?: string } = {};
  for (const file of files.filter((f) => !/-users-\d+\.json$/.test(f))) {
    let depth = 0;
    let key: string | undefined;
    const seen = new Set<string>();
    try {
      for await (const token of chain([createReadStream(file), parser(PARSER_OPTIONS)]) as AsyncIterable<{ name: string; value?: unknown }>) {
        if (depth === 1 && token.name === 'keyValue') key = String(token.value);
        else if (depth === 1 && key !== undefined && POLICY_KEYS[key] !== undefined) {
          const rpId = typeof token.value === 'string' ? nonEmpty(token.value.trim().toLowerCase()) : undefined;
          if (rpId !== undefined) found[POLICY_KEYS[key]] = rpId;
          seen.add(key);
          if (seen.size === 2) break;
        }
        if (token.name === 'startObject' || token.name === 'startArray') depth++;
        if (token.name === 'endObject' || token.name === 'endArray') depth--;
      }
    } catch {
      // Refused with its reason when its users are read.
    }
  }
  return found;
}

/** The RP id of each credential type, and the one the export's passkeys need (the report's `rpId`). */
export function keycloakRpIdsOf(realm: KeycloakRpIds, option: string | undefined): { byType: Record<string, string | undefined>; head?: string } {
  const passwordless = realm.passwordless ?? option;
  const twoFactor = realm.twoFactor ?? option;
  const head = passwordless ?? twoFactor;
  return { byType: { 'webauthn-passwordless': passwordless, webauthn: twoFactor }, ...(head !== undefined ? { head } : {}) };
}

/** `credentialData`: a JSON string in exports, an object in some tools' output. */
function dataOf(v: unknown): Obj | undefined {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Obj;
  if (typeof v !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(v);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Obj) : undefined;
  } catch {
    return undefined;
  }
}

const STANDARD_BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** Bytes of base64 text in the given alphabet (either when `either`), strictly; undefined otherwise. */
function bytesOf(text: unknown, either: boolean): Buffer | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  const t = text.trim();
  if (!STANDARD_BASE64.test(t) && !(either && BASE64URL.test(t))) return undefined;
  const bare = t.replace(/=+$/, '');
  if (bare.length % 4 === 1) return undefined;
  return Buffer.from(bare.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** One Keycloak WebAuthn credential as the passkey plan reads it, or why it is unreadable (its id when it has one). */
export function keycloakPasskey(credential: Obj, rpId: string | undefined): ReadPasskey {
  const data = dataOf(credential.credentialData);
  const label = nonEmpty(credential.id) ?? '?';
  if (data === undefined) return { id: `(credential ${label})`, why: 'its credentialData is not a JSON object' };
  const credentialId = bytesOf(data.credentialId, true);
  if (credentialId === undefined) return { id: `(credential ${label})`, why: 'its credentialId is not base64' };
  const publicKey = bytesOf(data.credentialPublicKey, true);
  if (publicKey === undefined) return { id: credentialId.toString('base64url'), why: 'its credentialPublicKey is not base64url' };
  const counter = data.counter ?? 0;
  const transports = Array.isArray(data.transports) ? data.transports.filter((t): t is string => typeof t === 'string') : [];
  const aaguid = nonEmpty(data.aaguid);
  const created = credential.createdDate;
  return {
    credentialId,
    publicKey,
    ...(rpId !== undefined ? { rpId } : {}),
    counter: typeof counter === 'number' ? counter : Number.NaN,
    transports,
    ...(aaguid !== undefined ? { aaguid } : {}),
    ...(typeof created === 'number' && Number.isSafeInteger(created) && created >= 0 ? { createdAt: created } : {}),
  };
}

/** The user's WebAuthn credentials (both types), read: each a passkey, or why it is unreadable. */
export function keycloakPasskeys(credentials: readonly Obj[], rpIds: Record<string, string | undefined>): ReadPasskey[] {
  return credentials.filter((c) => typeof c.type === 'string' && PASSKEY_TYPES.has(c.type)).map((c) => keycloakPasskey(c, rpIds[c.type as string]));
}
