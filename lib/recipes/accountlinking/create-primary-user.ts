import { internalIdOf, publicUserIdOf, sameUserState, tenantsOf } from '../../storage/auth-user';
import type { AuthUser } from '../../storage/model';
import { retryOnRace, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findAccountInfoConflict } from './conflicts';

/** The core's 400 for an id that names no user. */
export const UNKNOWN_USER_ID = 'Unknown user ID provided';

export type CanCreatePrimaryUserResult =
  | { status: 'OK'; wasAlreadyAPrimaryUser: boolean }
  | { status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string }
  | { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string };

export type CreatePrimaryUserResult = { status: 'OK'; wasAlreadyAPrimaryUser: boolean; user: ApiUser } | Exclude<CanCreatePrimaryUserResult, { status: 'OK' }>;

/** The user read for an id; none is the core's 400 for an unknown id. */
export function existing(user: AuthUser | undefined): AuthUser {
  if (!user) throw new InvalidInputError(UNKNOWN_USER_ID);
  return user;
}

/** Reads the user of an id; an unknown id is the core's 400. */
export async function requireUser(deps: Pick<Deps, 'users'>, userId: string): Promise<AuthUser> {
  return existing(await deps.users.getUser(userId));
}

/**
 * Whether the user can become a primary user, in the core's order of checks: already primary with
 * this id (`OK`, `wasAlreadyAPrimaryUser`); linked to another primary user; another primary user
 * sharing one of its tenants holds its email, phone number or third-party identity. `undefined`
 * when the user changed while it was checked (read again).
 */
async function check(deps: Pick<Deps, 'users'>, recipeUserId: string): Promise<{ verdict: CanCreatePrimaryUserResult; user: AuthUser } | undefined> {
  const user = await requireUser(deps, recipeUserId);
  if (user.isPrimary) {
    if (user.id === internalIdOf(user, recipeUserId)) return { verdict: { status: 'OK', wasAlreadyAPrimaryUser: true }, user };
    return {
      verdict: {
        status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
        primaryUserId: publicUserIdOf(user),
        description: 'This user ID is already linked to another user ID',
      },
      user,
    };
  }
  const conflict = await findAccountInfoConflict(deps, undefined, tenantsOf(user), user.loginMethods);
  if (!conflict) return { verdict: { status: 'OK', wasAlreadyAPrimaryUser: false }, user };
  // The claims were read after the user: the conflict stands only if the user did not change
  // meanwhile (linked by a concurrent request, say, which would answer otherwise).
  if (!sameUserState(user, await deps.users.getUser(recipeUserId))) return undefined;
  return { verdict: { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', ...conflict }, user };
}

/** `GET /recipe/accountlinking/user/primary/check`: what creating a primary user would answer, changing nothing. */
export function canCreatePrimaryUser(deps: Pick<Deps, 'users'>, recipeUserId: string): Promise<CanCreatePrimaryUserResult> {
  return retryOnRace('Checking the primary user', async () => (await check(deps, recipeUserId))?.verdict);
}

/**
 * Makes a login method a primary user (SPEC §11), so that others can be linked to it. Its account
 * info is claimed in its tenants in the same transaction, conditional on no other primary user
 * holding it: of two login methods racing to become primary for one email, exactly one wins and
 * the other answers `ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR`.
 */
export function createPrimaryUser(deps: Pick<Deps, 'users'>, recipeUserId: string): Promise<CreatePrimaryUserResult> {
  return retryOnRace<CreatePrimaryUserResult>('Creating the primary user', async () => {
    const checked = await check(deps, recipeUserId);
    if (!checked) return undefined;
    const { verdict, user } = checked;
    if (verdict.status !== 'OK') return verdict;
    if (verdict.wasAlreadyAPrimaryUser) return { ...verdict, user: toApiUser(user) };
    const primary: AuthUser = { ...user, isPrimary: true };
    const result = await deps.users.writeUsers([user], [primary]);
    // STALE, or a claim taken since the check: the next round reads again and tells which.
    return result.status === 'OK' ? { status: 'OK', wasAlreadyAPrimaryUser: false, user: toApiUser(primary) } : undefined;
  });
}
