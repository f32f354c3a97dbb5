import { isEmailVerified as verified } from '../../storage/auth-user';
import type { Deps } from '../deps';
import { findLogin } from '../users/find-login';

/**
 * `GET /recipe/user/email/verify` (SPEC §13): whether `email` is verified for the login method
 * `userId` names (`false` for an id that names none). The email is compared as given, as in the
 * core (stored emails are normalised).
 */
export async function isEmailVerified(deps: Pick<Deps, 'users'>, userId: string, email: string): Promise<{ status: 'OK'; isVerified: boolean }> {
  const login = await findLogin(deps, userId);
  return { status: 'OK', isVerified: login !== undefined && verified(login.loginMethod, email) };
}
