import { byJoinOrder, publicUserIdOf, sameUserState, tenantsOf } from '../../storage/auth-user';
import type { AuthUser, UserRecord } from '../../storage/model';
import { retryOnRace, type Deps } from '../deps';
import { revokeSessionsOfLogins } from '../session/revoke-of-users';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findAccountInfoConflict } from './conflicts';
import { existing } from './create-primary-user';

type AlreadyLinked = { status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string };
type Refusal =
  | AlreadyLinked
  | { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR'; primaryUserId: string; description: string }
  | { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' };

export type CanLinkAccountsResult = { status: 'OK'; accountsAlreadyLinked: boolean } | Refusal;

export type LinkAccountsResult =
  | { status: 'OK'; accountsAlreadyLinked: boolean; user: ApiUser }
  | Exclude<Refusal, AlreadyLinked>
  /** With the user the recipe user is in now: the SDK reads it. */
  | (AlreadyLinked & { user: ApiUser });

type Verdict =
  | { status: 'OK'; accountsAlreadyLinked: true; primary: AuthUser }
  | { status: 'OK'; accountsAlreadyLinked: false; primary: AuthUser; recipe: AuthUser }
  | (AlreadyLinked & { recipe: AuthUser })
  | Exclude<Refusal, AlreadyLinked>;

/**
 * The core's order of checks: both users exist (the recipe user's id first, as the core's API looks
 * both ids up before anything else: `Unknown user ID provided`); the primary user is primary; the
 * recipe user is in this primary user already (`OK`, `accountsAlreadyLinked`), or in another one, or primary
 * itself; then no other primary user may hold the account info of the recipe user or of the
 * primary user's login methods in any tenant of either (the union: linking must not leave two
 * primary users with one email in a tenant). `undefined` when a user changed while it was checked.
 */
async function check(deps: Pick<Deps, 'users'>, recipeUserId: string, primaryUserId: string): Promise<Verdict | undefined> {
  const [recipeRead, primaryRead] = await Promise.all([deps.users.getUser(recipeUserId), deps.users.getUser(primaryUserId)]);
  const recipe = existing(recipeRead);
  const primary = existing(primaryRead);
  if (!primary.isPrimary) return { status: 'INPUT_USER_IS_NOT_A_PRIMARY_USER' };
  if (recipe.isPrimary) {
    if (recipe.id === primary.id) return { status: 'OK', accountsAlreadyLinked: true, primary };
    return {
      status: 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR',
      primaryUserId: publicUserIdOf(recipe),
      description: 'The input recipe user ID is already linked to another user ID',
      recipe,
    };
  }
  const tenantIds = [...new Set([...tenantsOf(recipe), ...tenantsOf(primary)])];
  const conflict = await findAccountInfoConflict(deps, primary.id, tenantIds, [...recipe.loginMethods, ...primary.loginMethods]);
  if (!conflict) return { status: 'OK', accountsAlreadyLinked: false, primary, recipe };
  // The claims were read after the users: the conflict stands only if neither changed meanwhile
  // (the recipe user linked to that very primary user by a concurrent request answers otherwise).
  const [primaryNow, recipeNow] = await Promise.all([deps.users.getUser(primaryUserId), deps.users.getUser(recipeUserId)]);
  if (!sameUserState(primary, primaryNow) || !sameUserState(recipe, recipeNow)) return undefined;
  return { status: 'ACCOUNT_INFO_ALREADY_ASSOCIATED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR', ...conflict };
}

/** `GET /recipe/accountlinking/user/link/check`: what linking would answer, changing nothing. */
export function canLinkAccounts(deps: Pick<Deps, 'users'>, recipeUserId: string, primaryUserId: string): Promise<CanLinkAccountsResult> {
  return retryOnRace<CanLinkAccountsResult>('Checking the link', async () => {
    const verdict = await check(deps, recipeUserId, primaryUserId);
    if (verdict === undefined) return undefined;
    if (verdict.status === 'OK') return { status: 'OK', accountsAlreadyLinked: verdict.accountsAlreadyLinked };
    if (verdict.status !== 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR') return verdict;
    const { recipe: _recipe, ...refusal } = verdict;
    return refusal;
  });
}

/**
 * Links a login method to a primary user (SPEC §11): the login method moves into the primary
 * user's partition, leaves a link behind, and its account info is claimed in every tenant of the
 * primary user (and the primary user's in the login method's tenant), all in one transaction
 * conditional on both users being as read and on the claims being free. `primaryUserId` may be any
 * id of the primary user. The answer carries the primary user after linking; the SDK reads
 * `/user/id` at once, and that read is consistent (a Query of the primary user's partition).
 */
export async function linkAccounts(deps: Pick<Deps, 'users' | 'sessions'>, recipeUserId: string, primaryUserId: string): Promise<LinkAccountsResult> {
  let linkedLogins: readonly UserRecord[] = [];
  const answer = await retryOnRace<LinkAccountsResult>('Linking the accounts', async () => {
    const verdict = await check(deps, recipeUserId, primaryUserId);
    if (verdict === undefined) return undefined;
    if (verdict.status === 'RECIPE_USER_ID_ALREADY_LINKED_WITH_ANOTHER_PRIMARY_USER_ID_ERROR') {
      const { recipe, ...refusal } = verdict;
      return { ...refusal, user: toApiUser(recipe) };
    }
    if (verdict.status !== 'OK') return verdict;
    if (verdict.accountsAlreadyLinked) return { status: 'OK', accountsAlreadyLinked: true, user: toApiUser(verdict.primary) };
    const { primary, recipe } = verdict;
    const linked: AuthUser = { ...primary, loginMethods: [...primary.loginMethods, ...recipe.loginMethods].sort(byJoinOrder) };
    const result = await deps.users.writeUsers([primary, recipe], [linked]);
    // STALE, or a claim taken since the check: the next round reads again and tells which.
    if (result.status !== 'OK') return undefined;
    linkedLogins = recipe.loginMethods;
    return { status: 'OK', accountsAlreadyLinked: false, user: toApiUser(linked) };
  });
  // As the core: the newly linked login method's sessions end (their `sub` names the old user).
  await revokeSessionsOfLogins(deps, linkedLogins);
  return answer;
}
