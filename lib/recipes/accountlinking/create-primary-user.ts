import { tenantsOf } from '../../storage/auth-user';
import type { AuthUser } from '../../storage/model';
import { WRITE_TRIES, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findAccountInfoConflict } from './conflicts';

/** The core's 400 for an id that names no user. */
export const UNKNOWN_USER_ID = 'Unknown user ID provided';

export type CanCreatePrimaryUserResult =
  | { status: 'OK'; wasAlreadyAPrimaryUser: boolean }
  | { status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string }
  | { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string };

export type CreatePrimaryUserResult =
  | { status: 'OK'; wasAlreadyAPrimaryUser: boolean; user: ApiUser }
  | Exclude<CanCreatePrimaryUserResult, { status: 'OK' }>;

/** Reads the user of a recipe user id; an unknown id is the core's 400. */
export async function requireUser(deps: Pick<Deps, 'users'>, userId: string): Promise<AuthUser> {
  const user = await deps.users.getUser(userId);
  if (!user) throw new InvalidInputError(UNKNOWN_USER_ID);
  return user;
}

/**
 * Whether the user can become a primary user, in the core's order of checks: already primary with
 * this id (`OK`, `wasAlreadyAPrimaryUser`); linked to another primary user; another primary user
 * sharing one of its tenants holds its email, phone number or third-party identity.
 */
async function check(deps: Pick<Deps, 'users'>, user: AuthUser, recipeUserId: string): Promise<CanCreatePrimaryUserResult> {
  if (user.isPrimary) {
    if (user.id === recipeUserId) return { status: 'OK', wasAlreadyAPrimaryUser: true };
    return {
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_PRIMARY_USER_ID_ERROR',
      primaryUserId: user.id,
      description: 'This user ID is already linked to another user ID',
    };
  }
  const conflict = await findAccountInfoConflict(deps, undefined, tenantsOf(user), user.loginMethods);
  if (conflict) return { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', ...conflict };
  return { status: 'OK', wasAlreadyAPrimaryUser: false };
}

/** `GET /recipe/accountlinking/user/primary/check`: what creating a primary user would answer, changing nothing. */
export async function canCreatePrimaryUser(deps: Pick<Deps, 'users'>, recipeUserId: string): Promise<CanCreatePrimaryUserResult> {
  return check(deps, await requireUser(deps, recipeUserId), recipeUserId);
}

/**
 * Makes a login method a primary user (SPEC §11), so that others can be linked to it. Its account
 * info is claimed in its tenants in the same transaction, conditional on no other primary user
 * holding it: of two login methods racing to become primary for one email, exactly one wins and
 * the other answers `ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR`.
 */
export async function createPrimaryUser(deps: Pick<Deps, 'users'>, recipeUserId: string): Promise<CreatePrimaryUserResult> {
  for (let attempt = 0; attempt < WRITE_TRIES; attempt++) {
    const user = await requireUser(deps, recipeUserId);
    const verdict = await check(deps, user, recipeUserId);
    if (verdict.status !== 'OK') return verdict;
    if (verdict.wasAlreadyAPrimaryUser) return { ...verdict, user: toApiUser(user) };
    const primary: AuthUser = { ...user, isPrimary: true };
    const result = await deps.users.writeUsers([user], [primary]);
    if (result.status === 'OK') return { status: 'OK', wasAlreadyAPrimaryUser: false, user: toApiUser(primary) };
    // STALE, or a claim taken since the check: the next round reads again and tells which.
  }
  throw new Error('Creating the primary user lost the race too often');
}
