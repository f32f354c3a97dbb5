import { isEmailVerified } from '../../storage/auth-user';
import { UNKNOWN_USER_ID } from '../accountlinking/create-primary-user';
import type { Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { findLogin } from '../users/find-login';
import { newVerificationToken, verificationTokenHash } from './tokens';

export type CreateEmailVerificationTokenResult = { status: 'OK'; token: string } | { status: 'EMAIL_ALREADY_VERIFIED_ERROR' };

/**
 * `POST /<tenant>/recipe/user/email/verify/token` (SPEC §13): a single-use token proving `email`
 * for the login method `userId` names (recipe user id or external id), valid in this tenant for
 * the configured lifetime. Verification state belongs to a login method here, so an id that
 * names none is the core's 400 `Unknown user ID provided` (the core would keep a row for any id).
 */
export async function createEmailVerificationToken(
  deps: Pick<Deps, 'users' | 'emailVerification' | 'clock' | 'random' | 'config'>,
  tenantId: string,
  userId: string,
  email: string,
): Promise<CreateEmailVerificationTokenResult> {
  const login = await findLogin(deps, userId);
  if (!login) throw new InvalidInputError(UNKNOWN_USER_ID);
  if (isEmailVerified(login.loginMethod, email)) return { status: 'EMAIL_ALREADY_VERIFIED_ERROR' };
  const token = newVerificationToken(deps.random);
  await deps.emailVerification.createToken({
    tokenHash: verificationTokenHash(token),
    tenantId,
    recipeUserId: login.loginMethod.userId,
    userId,
    email,
    expiresAt: deps.clock.now() + deps.config.emailVerification.tokenLifetimeMs,
  });
  return { status: 'OK', token };
}
