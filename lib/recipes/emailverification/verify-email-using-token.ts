import { isEmailVerified, withLoginMethod, withVerifiedEmail } from '../../storage/auth-user';
import { retryOnRace, type Deps } from '../deps';
import { findLogin } from '../users/find-login';
import { verificationTokenHash } from './tokens';

export type VerifyEmailUsingTokenResult = { status: 'OK'; userId: string; email: string } | { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' };

const INVALID = { status: 'EMAIL_VERIFICATION_INVALID_TOKEN_ERROR' } as const;

/**
 * `POST /<tenant>/recipe/user/email/verify` (SPEC §13): uses a token up and marks its email
 * verified for its login method, in one transaction (the token is deleted only if it still exists:
 * of two uses, one wins). Then, as the core, every other token of that login method and email in
 * the tenant is revoked. A token of another tenant, an unknown, used or expired one, or one whose
 * login method is gone, answers `EMAIL_VERIFICATION_INVALID_TOKEN_ERROR` (an expired one is
 * revoked with its siblings). Answers the user id as the token's request gave it.
 */
export async function verifyEmailUsingToken(
  deps: Pick<Deps, 'users' | 'emailVerification' | 'clock'>,
  tenantId: string,
  token: string,
): Promise<VerifyEmailUsingTokenResult> {
  const found = await deps.emailVerification.getToken(verificationTokenHash(token));
  if (!found || found.tenantId !== tenantId) return INVALID;
  const revokeOthers = () => deps.emailVerification.revokeTokens(found.tenantId, found.recipeUserId, found.email);
  if (found.expiresAt <= deps.clock.now()) {
    await revokeOthers();
    return INVALID;
  }
  return retryOnRace<VerifyEmailUsingTokenResult>('Verifying the email', async () => {
    const login = await findLogin(deps, found.recipeUserId);
    const lm = login?.loginMethod;
    const change =
      login && lm && !isEmailVerified(lm, found.email)
        ? { before: [login.user], after: [withLoginMethod(login.user, withVerifiedEmail(lm, found.email))] }
        : undefined;
    const used = await deps.emailVerification.useToken(found, change);
    if (used === 'STALE') return undefined;
    await revokeOthers();
    return used === 'OK' && login ? { status: 'OK', userId: found.userId, email: found.email } : INVALID;
  });
}
