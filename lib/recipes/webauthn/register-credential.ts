import { withLoginMethod } from '../../storage/auth-user';
import type { Refusal } from '../../webauthn/ceremony';
import { retryOnRace, type Deps } from '../deps';
import { findLogin } from '../users/find-login';
import { OPTIONS_NOT_FOUND, type InvalidOptions } from './options-rules';
import { judgeRegistration } from './registration';

export type RegisterCredentialResult =
  | { status: 'OK'; webauthnCredentialId: string; recipeUserId: string; email: string; relyingPartyId: string; relyingPartyName: string }
  | typeof OPTIONS_NOT_FOUND
  | InvalidOptions
  | Refusal
  | { status: 'CREDENTIAL_ALREADY_EXISTS_ERROR' }
  | { status: 'UNKNOWN_USER_ID_ERROR' };

/**
 * `POST /recipe/webauthn/user/credential/register` (SPEC §21): adds a passkey to a webauthn login
 * method (`recipeUserId`: its id or external id), from options of any tenant (the SDK calls it
 * without one). The core's order: options, the registration, then the user; the passkey's guard
 * and key are written with the login method, at the version read. The options and the user are
 * read at once.
 */
export function registerCredential(
  deps: Pick<Deps, 'webauthn' | 'users' | 'clock'>,
  recipeUserId: string,
  optionsId: string,
  credential: Readonly<Record<string, unknown>>,
): Promise<RegisterCredentialResult> {
  return retryOnRace<RegisterCredentialResult>('Registering a passkey', async () => {
    const [options, login] = await Promise.all([deps.webauthn.getOptions(optionsId), findLogin(deps, recipeUserId)]);
    if (!options) return OPTIONS_NOT_FOUND;
    const lm = login?.loginMethod;
    const passkey = judgeRegistration(options, credential, lm?.userId ?? recipeUserId, deps.clock.now());
    if ('status' in passkey) return passkey;
    if (!login || !lm || lm.recipeId !== 'webauthn') return { status: 'UNKNOWN_USER_ID_ERROR' };
    const after = withLoginMethod(login.user, { ...lm, webauthnCredentialIds: [...(lm.webauthnCredentialIds ?? []), passkey.credentialId] });
    const written = await deps.webauthn.writeUsersWithCredential([login.user], [after], passkey);
    if (written.status === 'STALE') return undefined;
    if (written.status !== 'OK') return { status: 'CREDENTIAL_ALREADY_EXISTS_ERROR' };
    return {
      status: 'OK',
      webauthnCredentialId: passkey.credentialId,
      recipeUserId,
      email: options.email as string,
      relyingPartyId: options.rpId,
      relyingPartyName: options.rpName,
    };
  });
}
