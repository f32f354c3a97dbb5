import { fromBase64Url, toBase64Url } from '../../webauthn/base64url';
import { isSnapshot } from '../../storage/ports/users';
import type { FoundCredential } from '../../storage/ports/webauthn';
import type { Deps } from '../deps';

/**
 * A passkey of the login method `recipeUserId` names (its own id, or its external id: SPEC §12),
 * by credential id: one Query of the passkey's partition, whose guard's snapshot holds the login
 * method's external id.
 */
export async function findOwnCredential(deps: Pick<Deps, 'webauthn'>, recipeUserId: string, credentialId: string): Promise<FoundCredential | undefined> {
  const bytes = fromBase64Url(credentialId);
  const found = bytes && bytes.length > 0 ? await deps.webauthn.getCredential(toBase64Url(bytes)) : undefined;
  if (!found) return undefined;
  const mapped = isSnapshot(found.login) ? found.login.loginMethod.externalUserId : undefined;
  return found.credential.recipeUserId === recipeUserId || mapped === recipeUserId ? found : undefined;
}
