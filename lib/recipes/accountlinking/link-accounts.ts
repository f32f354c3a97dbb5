import { byJoinOrder, tenantsOf } from '../../storage/auth-user';
import type { AuthUser } from '../../storage/model';
import { WRITE_TRIES, type Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findAccountInfoConflict } from './conflicts';
import { requireUser } from './create-primary-user';

type LinkFailure =
  | { status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string }
  | { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string }
  | { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' };

export type CanLinkAccountsResult = { status: 'OK'; accountsAlreadyLinked: boolean } | LinkFailure;

export type LinkAccountsResult =
  | { status: 'OK'; accountsAlreadyLinked: boolean; user: ApiUser }
  | Exclude<LinkFailure, { status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR' }>
  /** With the user the recipe user is in now: the SDK reads it. */
  | (Extract<LinkFailure, { status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR' }> & { user: ApiUser });

type Verdict =
  | { status: 'OK'; accountsAlreadyLinked: true; primary: AuthUser }
  | { status: 'OK'; accountsAlreadyLinked: false; primary: AuthUser; recipe: AuthUser }
  | (LinkFailure & { recipe?: AuthUser });

/**
 * The core's order of checks: the primary user exists and is primary; the recipe user exists; it
 * is in this primary user already (`OK`, `accountsAlreadyLinked`), or in another one, or primary
 * itself; then no other primary user may hold the account info of the recipe user or of the
 * primary user's login methods in any tenant of either (the union: linking must not leave two
 * primary users with one email in a tenant).
 */
async function check(deps: Pick<Deps, 'users'>, recipeUserId: string, primaryUserId: string): Promise<Verdict> {
  const primary = await requireUser(deps, primaryUserId);
  if (!primary.isPrimary) return { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' };
  const recipe = await requireUser(deps, recipeUserId);
  if (recipe.isPrimary) {
    if (recipe.id === primary.id) return { status: 'OK', accountsAlreadyLinked: true, primary };
    return {
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: recipe.id,
      description: 'The input recipe user ID is already linked to another user ID',
      recipe,
    };
  }
  const tenantIds = [...new Set([...tenantsOf(recipe), ...tenantsOf(primary)])];
  const conflict = await findAccountInfoConflict(deps, primary.id, tenantIds, [...recipe.loginMethods, ...primary.loginMethods]);
  if (conflict) return { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', ...conflict };
  return { status: 'OK', accountsAlreadyLinked: false, primary, recipe };
}

/** `GET /recipe/accountlinking/user/link/check`: what linking would answer, changing nothing. */
export async function canLinkAccounts(deps: Pick<Deps, 'users'>, recipeUserId: string, primaryUserId: string): Promise<CanLinkAccountsResult> {
  const verdict = await check(deps, recipeUserId, primaryUserId);
  if (verdict.status === 'OK') return { status: 'OK', accountsAlreadyLinked: verdict.accountsAlreadyLinked };
  const { recipe: _recipe, ...failure } = verdict;
  return failure;
}

/**
 * Links a login method to a primary user (SPEC §11): the login method moves into the primary
 * user's partition, leaves a link behind, and its account info is claimed in every tenant of the
 * primary user (and the primary user's in the login method's tenant), all in one transaction
 * conditional on both users being as read and on the claims being free. `primaryUserId` may be any
 * id of the primary user. The answer carries the primary user after linking, read back from the
 * write (the SDK reads `/user/id` at once; reads of the partition are consistent).
 */
export async function linkAccounts(deps: Pick<Deps, 'users'>, recipeUserId: string, primaryUserId: string): Promise<LinkAccountsResult> {
  for (let attempt = 0; attempt < WRITE_TRIES; attempt++) {
    const verdict = await check(deps, recipeUserId, primaryUserId);
    if (verdict.status === 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR') {
      const { recipe, ...failure } = verdict;
      return { ...failure, user: toApiUser(recipe as AuthUser) };
    }
    if (verdict.status !== 'OK') return verdict;
    if (verdict.accountsAlreadyLinked) return { status: 'OK', accountsAlreadyLinked: true, user: toApiUser(verdict.primary) };
    const { primary, recipe } = verdict;
    const linked: AuthUser = { ...primary, loginMethods: [...primary.loginMethods, ...recipe.loginMethods].sort(byJoinOrder) };
    const result = await deps.users.writeUsers([primary, recipe], [linked]);
    if (result.status === 'OK') return { status: 'OK', accountsAlreadyLinked: false, user: toApiUser(linked) };
    // STALE, or a claim taken since the check: the next round reads again and tells which.
  }
  throw new Error('Linking the accounts lost the race too often');
}
