import type { Deps } from '../deps';
import { findLogin } from '../users/find-login';

export interface ListedCredential {
  webauthnCredentialId: string;
  recipeUserId: string;
  relyingPartyId: string;
  createdAt: number;
}

/**
 * `GET /recipe/webauthn/user/credential/list` (SPEC §21): the passkeys of a webauthn login method,
 * oldest first, each with the id the request gave (as the core); none for any other id. The user,
 * then its passkeys' keys in one BatchGetItem.
 */
export async function listCredentials(
  deps: Pick<Deps, 'webauthn' | 'users'>,
  recipeUserId: string,
): Promise<{ status: 'OK'; credentials: ListedCredential[] }> {
  const lm = (await findLogin(deps, recipeUserId))?.loginMethod;
  const ids = lm?.recipeId === 'webauthn' ? (lm.webauthnCredentialIds ?? []) : [];
  const stored = ids.length > 0 ? await deps.webauthn.getCredentials(ids) : [];
  return {
    status: 'OK',
    credentials: stored.map((c) => ({ webauthnCredentialId: c.credentialId, recipeUserId, relyingPartyId: c.rpId, createdAt: c.createdAt })),
  };
}
