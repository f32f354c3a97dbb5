import { sameSecret, sha256hex } from '../../digest';
import type { JsonObject, SessionRecord } from '../../storage/model';
import type { Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { keyRingOf } from './key-ring';
import {
  decodeAccessTokenUnverified,
  hasProtectedClaim,
  InvalidAccessToken,
  mintAccessToken,
  openRefreshToken,
  PROTECTED_FIELD_TEXT,
  sealRefreshToken,
  verifyAccessToken,
  type AccessTokenInfo,
  type TokenInfo,
} from './tokens';

export type SessionDeps = Pick<Deps, 'sessions' | 'config' | 'clock' | 'random'>;

/** The `session` of an answer (the core's `SessionInfo`). */
export interface SessionView {
  readonly handle: string;
  readonly userId: string;
  readonly recipeUserId: string;
  readonly userDataInJWT: JsonObject;
  readonly tenantId: string;
}

export type Unauthorised = { status: 'UNAUTHORISED'; message: string };
const unauthorised = (message: string): Unauthorised => ({ status: 'UNAUTHORISED', message });

/** JSON equality as the core's Gson `JsonObject.equals`: member order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  const ak = Object.keys(a);
  const bk = Object.keys(b);
  const bo = b as Record<string, unknown>;
  return ak.length === bk.length && ak.every((k) => Object.hasOwn(bo, k) && jsonEqual((a as Record<string, unknown>)[k], bo[k]));
}

const viewOf = (s: Pick<SessionRecord, 'handle' | 'userId' | 'recipeUserId' | 'tenantId'>, userDataInJWT: JsonObject): SessionView => ({
  handle: s.handle,
  userId: s.userId,
  recipeUserId: s.recipeUserId,
  userDataInJWT,
  tenantId: s.tenantId,
});

/** A new refresh token for a session, and the hashes the session and the access token keep of it. */
async function newRefreshToken(deps: SessionDeps, handle: string, parentHash1: string | undefined, antiCsrfToken: string | undefined, now: number) {
  const key = await keyRingOf(deps).refreshTokenKey();
  const token = sealRefreshToken(
    key,
    { sessionHandle: handle, ...(parentHash1 ? { parentRefreshTokenHash1: parentHash1 } : {}), ...(antiCsrfToken ? { antiCsrfToken } : {}) },
    deps.random,
  );
  const hash1 = sha256hex(token);
  return { info: { token, expiry: now + deps.config.sessions.refreshTokenValidityMs, createdTime: now } as TokenInfo, hash1, hash2: sha256hex(hash1) };
}

/** Where an access token stands in its session's refresh-token chain. */
interface ChainClaims {
  readonly refreshTokenHash1: string;
  readonly parentRefreshTokenHash1: string | null;
  readonly antiCsrfToken: string | null;
}

/** Signs an access token of a session: its ids and tenant, its place in the chain, a payload. */
function signFor(
  deps: SessionDeps,
  s: Pick<SessionRecord, 'handle' | 'userId' | 'recipeUserId' | 'tenantId'>,
  chain: ChainClaims,
  userData: JsonObject,
  times: { now: number; expMs: number },
  useStaticKey: boolean,
): Promise<TokenInfo> {
  const claims = { sessionHandle: s.handle, userId: s.userId, recipeUserId: s.recipeUserId, tenantId: s.tenantId, ...chain, userData };
  return mintAccessToken(keyRingOf(deps), claims, times.now, times.expMs, useStaticKey);
}

/**
 * The answer of create and refresh: the session, an access token of a whole lifetime carrying
 * the new refresh token's hash (and its parent's, after a refresh), the refresh token, and the
 * anti-CSRF token when one was made.
 */
async function newTokens(
  deps: SessionDeps,
  session: SessionRecord,
  refresh: { info: TokenInfo; hash1: string },
  parentHash1: string | null,
  antiCsrfToken: string | undefined,
  useStaticKey: boolean,
  now: number,
) {
  const chain = { refreshTokenHash1: refresh.hash1, parentRefreshTokenHash1: parentHash1, antiCsrfToken: antiCsrfToken ?? null };
  const times = { now, expMs: now + deps.config.sessions.accessTokenValidityMs };
  const accessToken = await signFor(deps, session, chain, session.userDataInJWT, times, useStaticKey);
  return {
    status: 'OK' as const,
    session: viewOf(session, session.userDataInJWT),
    accessToken,
    refreshToken: refresh.info,
    ...(antiCsrfToken ? { antiCsrfToken } : {}),
  };
}

export function checkUserPayload(payload: JsonObject): void {
  if (hasProtectedClaim(payload)) throw new InvalidInputError(PROTECTED_FIELD_TEXT);
}

export interface CreateSessionInput {
  readonly userId: string;
  readonly userDataInJWT: JsonObject;
  readonly userDataInDatabase: JsonObject;
  readonly enableAntiCsrf: boolean;
  readonly useDynamicSigningKey: boolean;
}

/** `POST /<t>/recipe/session`: a session for any user id (its existence is not checked, as in the core). */
export async function createSession(deps: SessionDeps, tenantId: string, input: CreateSessionInput) {
  checkUserPayload(input.userDataInJWT);
  const now = deps.clock.now();
  const handle = tenantId === 'public' ? deps.random.uuid() : `${deps.random.uuid()}_${tenantId}`;
  const antiCsrfToken = input.enableAntiCsrf ? deps.random.uuid() : undefined;
  const useStaticKey = !input.useDynamicSigningKey;
  const [user, refresh] = await Promise.all([deps.sessions.sessionUserOf(input.userId), newRefreshToken(deps, handle, undefined, antiCsrfToken, now)]);
  const session: SessionRecord = {
    handle,
    tenantId,
    userId: user.userId,
    recipeUserId: user.recipeUserId,
    refreshTokenHash2: refresh.hash2,
    userDataInJWT: input.userDataInJWT,
    userDataInDatabase: input.userDataInDatabase,
    createdAt: now,
    expiresAt: refresh.info.expiry,
    useStaticKey,
  };
  await deps.sessions.createSession(session);
  return newTokens(deps, session, refresh, null, antiCsrfToken, useStaticKey, now);
}

export interface VerifySessionInput {
  readonly accessToken: string;
  readonly antiCsrfToken?: string;
  readonly doAntiCsrfCheck: boolean;
  readonly enableAntiCsrf: boolean;
  readonly checkDatabase: boolean;
}

/** A fresh access token for a session in its current state: no parent, the stored payload, a whole lifetime. */
function reissue(deps: SessionDeps, token: AccessTokenInfo, session: SessionRecord, now: number): Promise<TokenInfo> {
  const chain = { refreshTokenHash1: token.refreshTokenHash1, parentRefreshTokenHash1: null, antiCsrfToken: token.antiCsrfToken };
  return signFor(deps, session, chain, session.userDataInJWT, { now, expMs: now + deps.config.sessions.accessTokenValidityMs }, session.useStaticKey);
}

/**
 * `POST /recipe/session/verify`. A token without a parent hash whose payload needs no update is
 * answered from the token alone (no read); the first use of a token after a refresh promotes its
 * refresh token to the session's current one (the core's hash chain, `reference/sessions.md` §3.4).
 */
export async function verifySession(deps: SessionDeps, input: VerifySessionInput) {
  const now = deps.clock.now();
  let token: AccessTokenInfo;
  try {
    token = await verifyAccessToken(keyRingOf(deps), input.accessToken, now);
  } catch (err) {
    if (err instanceof InvalidAccessToken) return { status: 'TRY_REFRESH_TOKEN' as const, message: err.message };
    throw err;
  }
  if (input.doAntiCsrfCheck && input.enableAntiCsrf) {
    if (token.antiCsrfToken === null) {
      return {
        status: 'TRY_REFRESH_TOKEN' as const,
        message: 'Access token does not contain all the information. Maybe the structure has changed? antiCsrfToken',
      };
    }
    if (input.antiCsrfToken === undefined || !sameSecret(input.antiCsrfToken, token.antiCsrfToken)) {
      return { status: 'TRY_REFRESH_TOKEN' as const, message: 'anti-csrf check failed' };
    }
  }
  const fromToken = viewOf({ handle: token.sessionHandle, userId: token.userId, recipeUserId: token.recipeUserId, tenantId: token.tenantId }, token.userData);
  const currentHash2 = sha256hex(token.refreshTokenHash1);

  if (token.parentRefreshTokenHash1 === null) {
    if (!input.checkDatabase) return { status: 'OK' as const, session: fromToken };
    const stored = await deps.sessions.getSession(token.sessionHandle);
    if (!stored || stored.expiresAt <= now) return unauthorised('Either the session has ended or has been blacklisted');
    if (jsonEqual(stored.userDataInJWT, token.userData)) return { status: 'OK' as const, session: fromToken };
    return { status: 'OK' as const, session: viewOf(stored, stored.userDataInJWT), accessToken: await reissue(deps, token, stored, now) };
  }

  // The first use after a refresh: make this token's refresh token the current one (idempotent).
  const promoted = await deps.sessions.promote(
    token.sessionHandle,
    sha256hex(token.parentRefreshTokenHash1),
    currentHash2,
    now,
    now + deps.config.sessions.refreshTokenValidityMs,
  );
  if (promoted.status === 'MISSING') {
    return unauthorised(input.checkDatabase ? 'Either the session has ended or has been blacklisted' : 'Session missing in db');
  }
  const stored = promoted.session;
  const needsUpdate = !jsonEqual(stored.userDataInJWT, token.userData);
  if (promoted.status === 'OK' || needsUpdate) {
    return { status: 'OK' as const, session: viewOf(stored, stored.userDataInJWT), accessToken: await reissue(deps, token, stored, now) };
  }
  // The session already moved on to a newer refresh token: this token stays as it is.
  return { status: 'OK' as const, session: fromToken };
}

export interface RefreshSessionInput {
  readonly refreshToken: string;
  readonly antiCsrfToken?: string;
  readonly enableAntiCsrf: boolean;
  readonly useDynamicSigningKey: boolean;
}

/**
 * `POST /recipe/session/refresh`: the current refresh token, or a child of it never promoted,
 * gets new tokens; any older one is theft (`TOKEN_THEFT_DETECTED`; the SDK then revokes).
 */
export async function refreshSession(deps: SessionDeps, input: RefreshSessionInput) {
  const now = deps.clock.now();
  const content = openRefreshToken(await keyRingOf(deps).refreshTokenKey(), input.refreshToken);
  if (!content) return unauthorised('Invalid refresh token');
  if (input.enableAntiCsrf && content.antiCsrfToken !== undefined) {
    if (input.antiCsrfToken === undefined || !sameSecret(input.antiCsrfToken, content.antiCsrfToken))
      return unauthorised('Anti CSRF token missing, or not matching');
  }
  let session = await deps.sessions.getSession(content.sessionHandle);
  if (!session || session.expiresAt < now) return unauthorised('Session missing in db or has expired');
  const useStaticKey = !input.useDynamicSigningKey;
  const hash1 = sha256hex(input.refreshToken);
  const hash2 = sha256hex(hash1);

  if (sameSecret(session.refreshTokenHash2, hash2)) {
    if (session.useStaticKey !== useStaticKey) await deps.sessions.setUseStaticKey(session.handle, useStaticKey);
  } else if (content.parentRefreshTokenHash1 !== undefined && sameSecret(session.refreshTokenHash2, sha256hex(content.parentRefreshTokenHash1))) {
    const promoted = await deps.sessions.promote(
      session.handle,
      session.refreshTokenHash2,
      hash2,
      now,
      now + deps.config.sessions.refreshTokenValidityMs,
      useStaticKey,
    );
    if (promoted.status === 'MISSING') return unauthorised('Session missing in db or has expired');
    if (promoted.status === 'MOVED') return theft(promoted.session);
    session = promoted.session;
  } else {
    return theft(session);
  }

  const antiCsrfToken = input.enableAntiCsrf ? deps.random.uuid() : undefined;
  const refresh = await newRefreshToken(deps, session.handle, hash1, antiCsrfToken, now);
  return newTokens(deps, session, refresh, hash1, antiCsrfToken, useStaticKey, now);
}

const theft = (s: SessionRecord) => ({
  status: 'TOKEN_THEFT_DETECTED' as const,
  session: { handle: s.handle, userId: s.userId, recipeUserId: s.recipeUserId },
});

/**
 * `POST /recipe/session/regenerate`: stores a new payload (when given) and mints a token with the
 * same expiry and hashes; an expired token gets the session without a token. The signature is not
 * checked (the SDK verified the token), as in the core.
 */
export async function regenerateSession(deps: SessionDeps, accessToken: string, userDataInJWT: JsonObject | undefined) {
  if (userDataInJWT) checkUserPayload(userDataInJWT);
  let token: AccessTokenInfo;
  try {
    token = decodeAccessTokenUnverified(accessToken);
  } catch (err) {
    if (err instanceof InvalidAccessToken) return unauthorised(err.message);
    throw err;
  }
  const now = deps.clock.now();
  // Without a new payload nothing is written: the session is read (live ones only).
  const session = userDataInJWT
    ? await deps.sessions.updateSession(token.sessionHandle, { userDataInJWT }, now)
    : await deps.sessions.getSession(token.sessionHandle).then((s) => (s && s.expiresAt > now ? s : undefined));
  if (!session) return unauthorised('Session does not exist.');
  const view = viewOf(session, session.userDataInJWT);
  if (token.exp * 1000 < now) return { status: 'OK' as const, session: view };
  const chain = { refreshTokenHash1: token.refreshTokenHash1, parentRefreshTokenHash1: token.parentRefreshTokenHash1, antiCsrfToken: token.antiCsrfToken };
  const minted = await signFor(deps, session, chain, session.userDataInJWT, { now, expMs: token.exp * 1000 }, session.useStaticKey);
  return { status: 'OK' as const, session: view, accessToken: minted };
}
