import { withLoginMethod } from '../../storage/auth-user';
import { retryOnRace, type Deps } from '../deps';
import { findLogin } from '../users/find-login';
import { findOwnCredential } from './credentials';

/**
 * `DELETE /recipe/webauthn/user/credential/remove` (SPEC §21): the passkey leaves its login
 * method, whose write deletes its guard and the key beside it (the login method stays, with or
 * without passkeys, as in the core). Written at the version read; a race reads again.
 */
export function removeCredential(
  deps: Pick<Deps, 'webauthn' | 'users'>,
  recipeUserId: string,
  credentialId: string,
): Promise<{ status: 'OK' } | { status: 'CREDENTIAL_NOT_FOUND_ERROR' }> {
  return retryOnRace<{ status: 'OK' } | { status: 'CREDENTIAL_NOT_FOUND_ERROR' }>('Removing a passkey', async () => {
    const found = await findOwnCredential(deps, recipeUserId, credentialId);
    const login = found && (await findLogin(deps, found.login));
    const id = found?.credential.credentialId;
    const ids = login?.loginMethod.webauthnCredentialIds ?? [];
    if (!login || id === undefined || !ids.includes(id)) return { status: 'CREDENTIAL_NOT_FOUND_ERROR' };
    const after = withLoginMethod(login.user, { ...login.loginMethod, webauthnCredentialIds: ids.filter((c) => c !== id) });
    const written = await deps.users.writeUsers([login.user], [after]);
    return written.status === 'OK' ? { status: 'OK' } : undefined;
  });
}
