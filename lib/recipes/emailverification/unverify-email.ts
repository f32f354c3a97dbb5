import { isEmailVerified, withoutVerifiedEmail } from '../../storage/auth-user';
import { retryOnRace, type Deps } from '../deps';
import { findLogin, updateLoginMethod } from '../users/find-login';

/** `POST /recipe/user/email/verify/remove` (SPEC §13): `email` is no longer verified for the login method (`OK` also when it was not). */
export function unverifyEmail(deps: Pick<Deps, 'users'>, userId: string, email: string): Promise<{ status: 'OK' }> {
  return retryOnRace('Unverifying the email', async () => {
    const login = await findLogin(deps, userId);
    if (!login || !isEmailVerified(login.loginMethod, email)) return { status: 'OK' as const };
    const result = await updateLoginMethod(deps, login, withoutVerifiedEmail(login.loginMethod, email));
    return result.status === 'OK' ? { status: 'OK' as const } : undefined;
  });
}
