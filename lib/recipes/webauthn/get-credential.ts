import type { Deps } from '../deps';
import { findOwnCredential } from './credentials';

export type GetCredentialResult =
  | { status: 'OK'; webauthnCredentialId: string; recipeUserId: string; relyingPartyId: string; createdAt: number; updatedAt: number }
  | { status: 'CREDENTIAL_NOT_FOUND_ERROR' };

/** `GET /recipe/webauthn/user/credential[/]` (SPEC §21): one passkey of a login method, in one Query. */
export async function getCredential(deps: Pick<Deps, 'webauthn'>, recipeUserId: string, credentialId: string): Promise<GetCredentialResult> {
  const found = await findOwnCredential(deps, recipeUserId, credentialId);
  if (!found) return { status: 'CREDENTIAL_NOT_FOUND_ERROR' };
  const c = found.credential;
  return { status: 'OK', webauthnCredentialId: c.credentialId, recipeUserId, relyingPartyId: c.rpId, createdAt: c.createdAt, updatedAt: c.updatedAt };
}
