import { retryOnRace, type Deps } from '../deps';
import { findLogin, updateLoginMethod } from '../users/find-login';

export type UpdateWebauthnEmailResult =
  | { status: 'OK' }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'USER_WITH_EMAIL_ALREADY_EXISTS_ERROR' };

/**
 * `PUT [/<t>]/recipe/webauthn/user/email` `{"recipeUserId","email"}` (SPEC §21): changes a webauthn
 * login method's email (`recipeUserId`: its id or external id), in every tenant it is in, as the
 * core finds the login method app-wide. Its email guards move in the same transaction; a new email
 * starts unverified (§13). Another webauthn login method with the email in one of its tenants:
 * `EMAIL_ALREADY_EXISTS_ERROR`; when it belongs to a primary user, another primary user sharing one
 * of its tenants with the email: `USER_WITH_EMAIL_ALREADY_EXISTS_ERROR` (the core's answer where
 * §11 refuses the change, checked first, as for the other recipes). The same email: `OK`, nothing
 * written. Calls: the user, then the transaction.
 */
export function updateWebauthnEmail(deps: Pick<Deps, 'users'>, recipeUserId: string, email: string): Promise<UpdateWebauthnEmailResult> {
  return retryOnRace<UpdateWebauthnEmailResult>('Updating the email', async () => {
    const login = await findLogin(deps, recipeUserId);
    if (!login || login.loginMethod.recipeId !== 'webauthn') return { status: 'UNKNOWN_USER_ID_ERROR' };
    if (login.loginMethod.email === email) return { status: 'OK' };
    const result = await updateLoginMethod(deps, login, { ...login.loginMethod, email });
    if (result.status === 'OK') return { status: 'OK' };
    if (result.status === 'ACCOUNT_INFO_TAKEN') return { status: 'USER_WITH_EMAIL_ALREADY_EXISTS_ERROR' };
    if (result.status === 'IDENTITY_TAKEN') return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
    return undefined;
  });
}
