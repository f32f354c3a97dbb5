import { internalIdOf } from '../../storage/auth-user';
import type { Deps } from '../deps';
import { newResetToken, resetTokenHash } from './reset-tokens';

export type CreatePasswordResetTokenResult = { status: 'OK'; token: string } | { status: 'UNKNOWN_USER_ID_ERROR' };

/**
 * `POST /<tenant>/recipe/user/password/reset/token` (SPEC §18b): a single-use token to reset the
 * password of `email` for the user `userId` names (a recipe user id, a primary user's id, or an
 * external id), valid in the whole app for the configured lifetime. As the core, the user need
 * not have an email-password login method with that email (the SDK makes one when the token is
 * used); an external id is stored as the SuperTokens id it maps to, as the core stores it.
 */
export async function createPasswordResetToken(
  deps: Pick<Deps, 'users' | 'passwordReset' | 'clock' | 'random' | 'config'>,
  userId: string,
  email: string,
): Promise<CreatePasswordResetTokenResult> {
  const user = await deps.users.getUser(userId, 'ANY');
  if (!user) return { status: 'UNKNOWN_USER_ID_ERROR' };
  const token = newResetToken(deps.random);
  await deps.passwordReset.createToken({
    tokenHash: resetTokenHash(token),
    userId: internalIdOf(user, userId),
    email,
    expiresAt: deps.clock.now() + deps.config.passwordReset.tokenLifetimeMs,
  });
  return { status: 'OK', token };
}
