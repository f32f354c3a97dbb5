import { uuidOf } from './authenticator-data';
import { toBase64Url } from './base64url';
import { decodeCborWhole } from './cbor';
import {
  authenticatorDataOf,
  checkCeremony,
  clientDataOf,
  invalidAuthenticator,
  invalidCredentials,
  isRefusal,
  loadCoseKey,
  responseBytes,
  responseOf,
  signedData,
  verifySignature,
  type Expected,
  type Refusal,
} from './ceremony';

/** A new credential as registration proved it: what is stored beside its guard. */
export interface RegisteredCredential {
  /** The COSE key, base64url. */
  readonly publicKey: string;
  readonly counter: number;
  readonly transports: readonly string[];
  /** The authenticator model, as a UUID (all zeros for `none` attestation). */
  readonly aaguid: string;
}

/**
 * Verifies a registration (`RegistrationResponseJSON`) whose `id` and `type` `credentialIdOf`
 * checked, against its options (SPEC §21): the attestation object decodes (`fmt`, `attStmt`,
 * `authData`); the ceremony checks; AT set, the attested id equal to `credential.id`, its COSE key
 * one of the three algorithms; then the statement: `none` must be empty, `packed` without a
 * certificate chain (self attestation) must verify with the credential's own key over authData ‖
 * SHA-256(clientDataJSON); `packed` with a chain and other formats are not judged (no trust
 * anchors, as the core's non-strict manager).
 */
export function verifyRegistration(credential: Readonly<Record<string, unknown>>, credentialId: Buffer, expected: Expected): RegisteredCredential | Refusal {
  const response = responseOf(credential);
  if (isRefusal(response)) return response;
  const client = clientDataOf(response);
  if (isRefusal(client)) return client;
  const attestationBytes = responseBytes(response, 'attestationObject');
  if (isRefusal(attestationBytes)) return attestationBytes;
  let attestation: unknown;
  try {
    attestation = decodeCborWhole(attestationBytes);
  } catch {
    return invalidCredentials('response.attestationObject is not CBOR');
  }
  const fmt = attestation instanceof Map ? attestation.get('fmt') : undefined;
  const attStmt = attestation instanceof Map ? attestation.get('attStmt') : undefined;
  const authBytes = attestation instanceof Map ? attestation.get('authData') : undefined;
  if (typeof fmt !== 'string' || !(attStmt instanceof Map) || !Buffer.isBuffer(authBytes)) {
    return invalidCredentials('response.attestationObject lacks its fmt, attStmt or authData');
  }
  const auth = authenticatorDataOf(authBytes, 'authData');
  if (isRefusal(auth)) return auth;

  const refused = checkCeremony('webauthn.create', client.data, auth, expected);
  if (refused) return refused;
  if (!auth.attested) return invalidAuthenticator('Attested credential data is missing (AT flag not set)');
  if (!auth.attested.credentialId.equals(credentialId)) return invalidAuthenticator('The attested credential id does not match credential.id');
  const key = loadCoseKey(auth.attested.publicKey);
  if (isRefusal(key)) return key;

  if (fmt === 'none' && attStmt.size > 0) return invalidAuthenticator("attStmt of fmt 'none' must be empty");
  if (fmt === 'packed' && !attStmt.has('x5c')) {
    const sig = attStmt.get('sig');
    if (attStmt.get('alg') !== key.alg) return invalidAuthenticator("packed self attestation's alg does not match the credential key's");
    if (!Buffer.isBuffer(sig) || !verifySignature(key, signedData(authBytes, client.bytes), sig)) {
      return invalidAuthenticator('packed self attestation signature is invalid');
    }
  }
  const transports = Array.isArray(response.transports) ? response.transports.filter((t): t is string => typeof t === 'string').slice(0, 16) : [];
  return {
    publicKey: toBase64Url(auth.attested.publicKey),
    counter: auth.signCount,
    transports: transports.map((t) => t.slice(0, 64)),
    aaguid: uuidOf(auth.attested.aaguid),
  };
}
