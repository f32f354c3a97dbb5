import type { Deps } from '../deps';
import { resetTokenHash } from './reset-tokens';

export type ConsumePasswordResetTokenResult = { status: 'OK'; userId: string; email: string } | { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' };

const INVALID = { status: 'RESET_PASSWORD_INVALID_TOKEN_ERROR' } as const;

/**
 * `POST /<tenant>/recipe/user/password/reset/token/consume` (SPEC §18b): uses a token up, in any
 * tenant, and with it every other reset token of its user, in one transaction (the token is
 * deleted only if it still exists: of concurrent uses, one wins). Changes no password: the SDK
 * does that next (`PUT /recipe/user`). An unknown or used token, an expired one (its user's
 * tokens are deleted then too, as the core does), or one whose user was removed since (a removal
 * leaves the tokens to their expiry, as it leaves email verification tokens), answers
 * `RESET_PASSWORD_INVALID_TOKEN_ERROR`. Answers the user id the token was made for, as the
 * outside sees it now (its external id when mapped, as the core reads the mapping at consume).
 */
export async function consumePasswordResetToken(
  deps: Pick<Deps, 'users' | 'passwordReset' | 'clock'>,
  token: string,
): Promise<ConsumePasswordResetTokenResult> {
  const found = await deps.passwordReset.getToken(resetTokenHash(token));
  if (!found) return INVALID;
  // The core's test: a token is good up to and including its expiry millisecond.
  if (found.expiresAt < deps.clock.now()) {
    await deps.passwordReset.revokeTokens(found.userId);
    return INVALID;
  }
  // The user is read beside the write (one round trip less): a removed user's tokens go all the same.
  const [user, used] = await Promise.all([deps.users.getUser(found.userId, 'SUPERTOKENS'), deps.passwordReset.useToken(found)]);
  if (used !== 'OK' || !user) return INVALID;
  const userId = user.loginMethods.find((lm) => lm.userId === found.userId)?.externalUserId ?? found.userId;
  return { status: 'OK', userId, email: found.email };
}
