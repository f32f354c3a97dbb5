import { fromBase64Url } from '../../webauthn/base64url';
import { credentialIdOf, isRefusal, type Refusal } from '../../webauthn/ceremony';
import { verifyRegistration } from '../../webauthn/verify-registration';
import type { WebauthnCredentialRecord, WebauthnOptionsRecord } from '../../storage/model';
import { expectedOf, expired, invalidOptions, type InvalidOptions } from './options-rules';

/**
 * A registration (sign-up, or a credential added to a user) judged against its options, after they
 * were found (SPEC §21's order): the credential's id and type, expiry, options made for a
 * registration, then the attestation. The passkey to store, for `recipeUserId`.
 */
export function judgeRegistration(
  options: WebauthnOptionsRecord,
  credential: Readonly<Record<string, unknown>>,
  recipeUserId: string,
  now: number,
): WebauthnCredentialRecord | Refusal | InvalidOptions {
  const credentialId = credentialIdOf(credential);
  if (typeof credentialId !== 'string') return credentialId;
  const refused =
    expired(options, now) ?? (options.email === undefined ? invalidOptions('Options were generated for a sign-in, not a registration') : undefined);
  if (refused) return refused;
  const registered = verifyRegistration(credential, fromBase64Url(credentialId) as Buffer, expectedOf(options));
  if (isRefusal(registered)) return registered;
  return { credentialId, recipeUserId, ...registered, rpId: options.rpId, createdAt: now, updatedAt: now };
}
