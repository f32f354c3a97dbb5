import { fromBase64Url } from './base64url';
import {
  authenticatorDataOf,
  checkCeremony,
  clientDataOf,
  invalidAuthenticator,
  isRefusal,
  loadCoseKey,
  responseBytes,
  responseOf,
  signedData,
  verifySignature,
  type Expected,
  type Refusal,
} from './ceremony';

/** A stored credential as an assertion needs it. */
export interface StoredKey {
  /** COSE key, base64url. */
  readonly publicKey: string;
  readonly counter: number;
}

/** The core's (webauthn4j's) text for a counter that did not go up. */
export const COUNTER_REFUSAL = 'Malicious counter value is detected. Cloned authenticators exist in parallel.';

/**
 * Verifies an assertion (`AuthenticationResponseJSON`) against its options and the stored key
 * (SPEC §21): the ceremony checks, the signature over authenticatorData ‖ SHA-256(clientDataJSON)
 * (ES256 DER, EdDSA, RS256), then the counter: with `c` presented and `s` stored, refused when
 * `c ≤ s` and either is above 0. `repeat`: the one byte-identical repeat the double call allows,
 * whose counter the first call already stored, so the counter is not judged. The counter to store.
 */
export function verifyAssertion(
  credential: Readonly<Record<string, unknown>>,
  expected: Expected,
  stored: StoredKey,
  repeat: boolean,
): { counter: number } | Refusal {
  const response = responseOf(credential);
  if (isRefusal(response)) return response;
  const client = clientDataOf(response);
  if (isRefusal(client)) return client;
  const authBytes = responseBytes(response, 'authenticatorData');
  if (isRefusal(authBytes)) return authBytes;
  const signature = responseBytes(response, 'signature');
  if (isRefusal(signature)) return signature;
  const auth = authenticatorDataOf(authBytes, 'response.authenticatorData');
  if (isRefusal(auth)) return auth;

  const refused = checkCeremony('webauthn.get', client.data, auth, expected);
  if (refused) return refused;
  const key = loadCoseKey(fromBase64Url(stored.publicKey) ?? Buffer.alloc(0));
  if (isRefusal(key)) return key;
  if (!verifySignature(key, signedData(authBytes, client.bytes), signature)) return invalidAuthenticator('The assertion signature is invalid');
  const presented = auth.signCount;
  if (!repeat && presented <= stored.counter && (presented > 0 || stored.counter > 0)) return invalidAuthenticator(COUNTER_REFUSAL);
  return { counter: repeat ? stored.counter : presented };
}
