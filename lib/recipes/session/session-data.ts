import type { JsonObject } from '../../storage/model';
import type { Deps } from '../deps';
import { checkUserPayload, type SessionDeps } from './sessions';

const NO_SESSION = { status: 'UNAUTHORISED' as const, message: 'Session does not exist.' };

/** `GET /recipe/session?sessionHandle=`: a live session, as the core answers it. */
export async function getSessionInformation(deps: Pick<Deps, 'sessions' | 'clock'>, sessionHandle: string) {
  const s = await deps.sessions.getSession(sessionHandle);
  if (!s || s.expiresAt <= deps.clock.now()) return NO_SESSION;
  return {
    status: 'OK' as const,
    sessionHandle: s.handle,
    userId: s.userId,
    recipeUserId: s.recipeUserId,
    userDataInDatabase: s.userDataInDatabase,
    userDataInJWT: s.userDataInJWT,
    expiry: s.expiresAt,
    timeCreated: s.createdAt,
    tenantId: s.tenantId,
  };
}

/** `PUT /recipe/session/data`: replaces the session's data. */
export async function updateSessionData(deps: Pick<SessionDeps, 'sessions' | 'clock'>, sessionHandle: string, userDataInDatabase: JsonObject) {
  const s = await deps.sessions.updateSession(sessionHandle, { userDataInDatabase }, deps.clock.now());
  return s ? { status: 'OK' as const } : NO_SESSION;
}

/** `PUT /recipe/jwt/data`: replaces the stored access-token payload (issued tokens are unchanged). */
export async function updateAccessTokenPayload(deps: Pick<SessionDeps, 'sessions' | 'clock'>, sessionHandle: string, userDataInJWT: JsonObject) {
  checkUserPayload(userDataInJWT);
  const s = await deps.sessions.updateSession(sessionHandle, { userDataInJWT }, deps.clock.now());
  return s ? { status: 'OK' as const } : NO_SESSION;
}

/**
 * The user ids whose sessions a call about `userId` covers: the id itself, and with
 * `linkedAccounts` every login method of the user holding it (each by its external id where
 * mapped, as sessions are created with it).
 */
async function sessionUserIds(deps: Pick<Deps, 'users'>, userId: string, linkedAccounts: boolean): Promise<string[]> {
  if (!linkedAccounts) return [userId];
  const user = await deps.users.getUser(userId);
  return [userId, ...(user?.loginMethods.map((lm) => lm.externalUserId ?? lm.userId) ?? [])];
}

export interface UserSessionsQuery {
  readonly userId: string;
  /** `undefined`: every tenant. */
  readonly tenantId: string | undefined;
  readonly linkedAccounts: boolean;
}

/** `GET [/<t>]/recipe/session/user`: the handles of a user's live sessions. */
export async function sessionHandlesOfUser(deps: Pick<Deps, 'sessions' | 'users' | 'clock'>, q: UserSessionsQuery) {
  const ids = await sessionUserIds(deps, q.userId, q.linkedAccounts);
  const sessions = await deps.sessions.sessionsOfUsers(ids, q.tenantId, deps.clock.now());
  return { status: 'OK' as const, sessionHandles: sessions.map((s) => s.handle) };
}

/** `POST [/<t>]/recipe/session/remove` by user: revokes a user's live sessions; answers their handles. */
export async function revokeSessionsOfUser(deps: Pick<Deps, 'sessions' | 'users' | 'clock'>, q: UserSessionsQuery) {
  const { sessionHandles } = await sessionHandlesOfUser(deps, q);
  return { status: 'OK' as const, sessionHandlesRevoked: await deps.sessions.removeSessions(sessionHandles) };
}

/** `POST /recipe/session/remove` by handles: answers the handles that existed. */
export async function revokeSessions(deps: Pick<Deps, 'sessions'>, handles: readonly string[]) {
  return { status: 'OK' as const, sessionHandlesRevoked: await deps.sessions.removeSessions(handles) };
}
