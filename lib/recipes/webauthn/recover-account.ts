import { sha256hex } from '../../digest';
import { internalIdOf, publicIdOf } from '../../storage/auth-user';
import type { AuthUser, WebauthnRecoveryTokenRecord } from '../../storage/model';
import { toBase64Url } from '../../webauthn/base64url';
import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';

/**
 * Account recovery tokens of the WebAuthn recipe (SPEC §21): made for a user and an email in a
 * tenant, found only in that tenant, good up to and including their expiry millisecond (judged on
 * every read, never by DynamoDB's TTL), consumed once. Only the SHA-256 of a token is stored, and
 * no token is logged: the token itself is in generate's answer alone.
 */

const INVALID = { status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' } as const;

/** What is stored of a token: its SHA-256, hex. A leaked table holds no usable token. */
export const recoveryTokenHash = (token: string): string => sha256hex(token);

/** 32 random bytes, base64url unpadded (the core's). */
const TOKEN_BYTES = 32;

export type GenerateRecoverTokenResult = { status: 'OK'; token: string } | { status: 'UNKNOWN_USER_ID_ERROR' };

/**
 * `POST [/<t>]/recipe/webauthn/user/recover/token` `{"userId","email"}`: a token for the user
 * `userId` names (any recipe, a primary user's id, or an external id, stored as the SuperTokens id
 * it maps to) and `email` (normalised), valid in this tenant for the configured lifetime. As the
 * core: the user need not hold the email nor be in the tenant (the SDK checks what it needs).
 * Two calls: the user, then the token and its entry in one transaction.
 */
export async function generateRecoverAccountToken(
  deps: Pick<Deps, 'users' | 'webauthnRecovery' | 'clock' | 'random' | 'config'>,
  tenantId: string,
  userId: string,
  email: string,
): Promise<GenerateRecoverTokenResult> {
  const user = await deps.users.getUser(userId, 'ANY');
  if (!user) return { status: 'UNKNOWN_USER_ID_ERROR' };
  const token = toBase64Url(deps.random.bytes(TOKEN_BYTES));
  await deps.webauthnRecovery.createToken({
    tokenHash: recoveryTokenHash(token),
    tenantId,
    userId: internalIdOf(user, userId),
    email,
    expiresAt: deps.clock.now() + deps.config.webauthn.recoverAccountTokenLifetimeMs,
  });
  return { status: 'OK', token };
}

/** A token of this tenant that has not expired. */
async function liveToken(deps: Pick<Deps, 'webauthnRecovery' | 'clock'>, tenantId: string, token: string): Promise<WebauthnRecoveryTokenRecord | undefined> {
  const found = await deps.webauthnRecovery.getToken(tenantId, recoveryTokenHash(token));
  // The core's test: a token is good up to and including its expiry millisecond.
  return found && found.expiresAt >= deps.clock.now() ? found : undefined;
}

/** The id the outside sees for the login method a token was made for (its external id when mapped now). */
const mappedIdOf = (user: AuthUser, userId: string): string => {
  const lm = user.loginMethods.find((m) => m.userId === userId);
  return lm ? publicIdOf(lm) : userId;
};

export type ConsumeRecoverTokenResult = { status: 'OK'; userId: string; email: string } | typeof INVALID;

/**
 * `POST [/<t>]/recipe/webauthn/user/recover/token/consume` `{"token"}`: uses a token up, and with
 * it every other token of its email in the tenant, in one transaction conditional on the token
 * still existing (of racing consumes, exactly one is `OK`). Answers the user id it was made for,
 * as the outside sees it now (its external id when mapped, as the core reads the mapping at
 * consume), and the email. Unknown, another tenant's, used or expired: invalid (an expired token
 * is left to TTL, as the core leaves it); a token whose user was removed since: invalid, and
 * deleted all the same (the SDK's recovery answers the same for a user it cannot find). Calls: the
 * token; the email's tokens beside the user; the transaction: 4 in 3 round trips.
 */
export async function consumeRecoverAccountToken(
  deps: Pick<Deps, 'users' | 'webauthnRecovery' | 'clock'>,
  tenantId: string,
  token: string,
): Promise<ConsumeRecoverTokenResult> {
  const found = await liveToken(deps, tenantId, token);
  if (!found) return INVALID;
  const [user, used] = await Promise.all([deps.users.getUser(found.userId, 'SUPERTOKENS'), deps.webauthnRecovery.useToken(found)]);
  if (used !== 'OK' || !user) return INVALID;
  return { status: 'OK', userId: mappedIdOf(user, found.userId), email: found.email };
}

export type GetUserFromRecoverTokenResult = { status: 'OK'; user: ApiUser; recipeUserId?: string } | typeof INVALID;

/**
 * `GET [/<t>]/recipe/webauthn/user/recover?token=`: the user a live token of this tenant was made
 * for (its primary user when linked), not consuming it, and `recipeUserId`, the user's webauthn
 * login method in this tenant (its external id when mapped): the one holding the token's email,
 * else the newest, as the core picks the last; left out when there is none (the SDK then signs
 * up). A removed user: invalid. Calls: the token, then the user.
 */
export async function getUserFromRecoverAccountToken(
  deps: Pick<Deps, 'users' | 'webauthnRecovery' | 'clock'>,
  tenantId: string,
  token: string,
): Promise<GetUserFromRecoverTokenResult> {
  const found = await liveToken(deps, tenantId, token);
  const user = found && (await deps.users.getUser(found.userId, 'SUPERTOKENS'));
  if (!found || !user) return INVALID;
  const inTenant = user.loginMethods.filter((lm) => lm.recipeId === 'webauthn' && lm.tenantIds.includes(tenantId));
  const lm = inTenant.find((m) => m.email === found.email) ?? inTenant.at(-1);
  return { status: 'OK', user: toApiUser(user), ...(lm ? { recipeUserId: publicIdOf(lm) } : {}) };
}
