import { internalIdOf, withoutLoginMethod } from '../../storage/auth-user';
import type { UserRecord } from '../../storage/model';
import { retryOnRace, type Deps } from '../deps';
import { revokeSessionsOfLogins } from '../session/revoke-of-users';

/**
 * Removes a user (SPEC §9, §11). With `removeAllLinkedAccounts` (the default), the whole user: a
 * primary user with every login method linked to it, whichever of their ids is given. Without it,
 * only the login method with that id (a user of one login method goes entirely); the primary user
 * keeps its id and stays primary when its own login method goes. Every uniqueness guard, link and
 * primary-user claim goes in the same transaction, so each identity can be used again at once.
 * Pending passwordless devices are not the user's (they belong to an email or phone) and stay:
 * consuming one later signs up a new user.
 */
export async function removeUser(
  deps: Pick<Deps, 'users' | 'sessions'>,
  userId: string,
  removeAllLinkedAccounts = true,
): Promise<{ status: 'OK'; didUserExist: boolean }> {
  let removed: readonly UserRecord[] = [];
  const answer = await retryOnRace('Removing the user', async () => {
    const user = await deps.users.getUser(userId);
    if (!user) return { status: 'OK', didUserExist: false } as const;
    const rest = removeAllLinkedAccounts || user.loginMethods.length === 1 ? undefined : withoutLoginMethod(user, internalIdOf(user, userId));
    const result = await deps.users.writeUsers([user], rest ? [rest] : []);
    if (result.status !== 'OK') return undefined;
    // The primary user's own login method leaving while others stay: the user keeps its id, and
    // the sessions of that id stay, as in the core.
    removed = user.loginMethods.filter((lm) => !rest || (lm.userId !== rest.id && !rest.loginMethods.some((kept) => kept.userId === lm.userId)));
    return { status: 'OK', didUserExist: true } as const;
  });
  // Their sessions go too (SPEC §18), after the user: a retry of a removal that stopped in between
  // finds no user and removes nothing more, so an id given again still has its sessions removed.
  await revokeSessionsOfLogins(deps, removed.length > 0 ? removed : [{ userId }]);
  return answer;
}
