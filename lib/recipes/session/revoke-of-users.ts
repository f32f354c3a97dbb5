import type { UserRecord } from '../../storage/model';
import type { Deps } from '../deps';

/** The id a login method's sessions were created with: its external id where mapped (as the SDK sends it). */
export const sessionIdOf = (lm: Pick<UserRecord, 'userId' | 'externalUserId'>): string => lm.externalUserId ?? lm.userId;

/**
 * Revokes every session of these login methods, in every tenant, expired or not (the core deletes
 * them in the user's removal, and revokes a recipe user's sessions when it is linked or unlinked:
 * their `sub` would name the wrong user). Runs after the user write committed: a crash in between
 * leaves sessions that the same call, tried again, removes. A user's sessions are found through an
 * index, which lags its table by a moment: a session created in that moment may survive.
 */
export async function revokeSessionsOfLogins(deps: Pick<Deps, 'sessions'>, logins: readonly Pick<UserRecord, 'userId' | 'externalUserId'>[]): Promise<void> {
  if (logins.length === 0) return;
  const sessions = await deps.sessions.sessionsOfUsers(logins.map(sessionIdOf), undefined, Number.NEGATIVE_INFINITY);
  await deps.sessions.removeSessions(sessions.map((s) => s.handle));
}
