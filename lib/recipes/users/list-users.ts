import type { RecipeId } from '../../storage/model';
import type { UserListCursor } from '../../storage/ports/user-lists';
import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from './api-user';
import { encodePaginationToken } from './pagination-token';
import { matchesSearch, MAX_SEARCH_RESULTS, type UserSearch } from './search-users';

export interface ListUsersInput {
  readonly limit: number;
  /** `ASC` (oldest first, the default of the SuperTokens core) or `DESC`. */
  readonly order: 'ASC' | 'DESC';
  /** From a decoded `paginationToken`: the page starts after this place. */
  readonly after?: UserListCursor;
  readonly recipeIds?: readonly RecipeId[];
  /**
   * The dashboard's search (SPEC §18b): when present, the answer is every matching user in
   * `order`, at most `MAX_SEARCH_RESULTS`, without a next page; `limit`, `after` and `recipeIds`
   * are not applied (as in the core, which checks them and then leaves them out of a search).
   */
  readonly search?: UserSearch;
}

export type ListUsersResult = { status: 'OK'; users: ApiUser[]; nextPaginationToken?: string };

/**
 * One page of a tenant's users in join order (a primary user once, at its oldest login method's
 * time, if any of its login methods is in the tenant). `nextPaginationToken` is present only when another
 * page follows, so a client pages until the key is absent and sees every user once.
 */
export async function listUsers(deps: Pick<Deps, 'userLists' | 'userSearch'>, tenantId: string, input: ListUsersInput): Promise<ListUsersResult> {
  const search = input.search;
  if (search !== undefined) {
    const users = await deps.userSearch.scanUsers(tenantId, {
      order: input.order,
      // A phone number is only a passwordless login method's, a provider only a third-party one's:
      // the list's own recipe filter drops the users that cannot match before they are sent.
      withRecipes: [...(search.phone ? ['passwordless' as const] : []), ...(search.provider ? ['thirdparty' as const] : [])],
      // A login method on its own matches only with a matching email and phone number of its own:
      // DynamoDB drops the others (a provider is compared case-insensitively, which it cannot do).
      loginFilter: { ...(search.email ? { emailPrefixes: search.email } : {}), ...(search.phone ? { phonePrefixes: search.phone } : {}) },
      accept: (user) => matchesSearch(user, tenantId, search),
      max: MAX_SEARCH_RESULTS,
    });
    return { status: 'OK', users: users.map(toApiUser) };
  }
  const page = await deps.userLists.listUsers(tenantId, input);
  return {
    status: 'OK',
    users: page.users.map(toApiUser),
    ...(page.next ? { nextPaginationToken: encodePaginationToken(page.next) } : {}),
  };
}
