import { loginMethodOf, standaloneUser, withoutLoginMethod } from '../../storage/auth-user';
import type { AuthUser, UserRecord } from '../../storage/model';
import { revokeSessionsOfLogins } from '../session/revoke-of-users';
import { retryOnRace, type Deps } from '../deps';
import { requireUser } from './create-primary-user';

export type UnlinkAccountResult = { status: 'OK'; wasRecipeUserDeleted: boolean; wasLinked: boolean };

/**
 * Unlinks a login method from its primary user (SPEC §11, the core's cases):
 * - not in a primary user: nothing changes (`false`/`false`);
 * - linked to another login method's primary user: it is a user on its own again, with its own id
 *   and time joined (`false`/`true`);
 * - the primary user's own login method while others are linked: it is deleted (two users cannot
 *   share one id), the primary user keeps its id, stays primary and keeps the others (`true`/`true`);
 * - the primary user's only login method: it stops being primary (`false`/`true`).
 * Claims the primary user no longer needs are released in the same transaction.
 */
export async function unlinkAccount(deps: Pick<Deps, 'users' | 'sessions'>, recipeUserId: string): Promise<UnlinkAccountResult> {
  let unlinked: UserRecord | undefined;
  const answer = await retryOnRace<UnlinkAccountResult>('Unlinking the account', async () => {
    const user = await requireUser(deps, recipeUserId);
    const lm = loginMethodOf(user, recipeUserId);
    // Not primary, or the primary user's id whose own login method is gone: nothing to unlink.
    if (!user.isPrimary || !lm) return { status: 'OK', wasRecipeUserDeleted: false, wasLinked: false };
    let after: AuthUser[];
    let deleted = false;
    if (user.id !== lm.userId) {
      const rest = withoutLoginMethod(user, lm.userId);
      after = [...(rest ? [rest] : []), standaloneUser(lm)];
    } else if (user.loginMethods.length > 1) {
      after = [withoutLoginMethod(user, lm.userId) as AuthUser];
      deleted = true;
    } else {
      after = [{ ...user, isPrimary: false }];
    }
    const result = await deps.users.writeUsers([user], after);
    if (result.status !== 'OK') return undefined;
    unlinked = lm;
    return { status: 'OK', wasRecipeUserDeleted: deleted, wasLinked: true };
  });
  // As the core: the unlinked login method's sessions end (the primary user's stay).
  if (unlinked) await revokeSessionsOfLogins(deps, [unlinked]);
  return answer;
}
