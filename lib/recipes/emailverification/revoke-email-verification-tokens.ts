import type { Deps } from '../deps';
import { findLogin } from '../users/find-login';

/** `POST /<tenant>/recipe/user/email/verify/token/remove` (SPEC §13): revokes every token of the login method and email in this tenant. */
export async function revokeEmailVerificationTokens(
  deps: Pick<Deps, 'users' | 'emailVerification'>,
  tenantId: string,
  userId: string,
  email: string,
): Promise<{ status: 'OK' }> {
  const login = await findLogin(deps, userId);
  if (login) await deps.emailVerification.revokeTokens(tenantId, login.loginMethod.userId, email);
  return { status: 'OK' };
}
