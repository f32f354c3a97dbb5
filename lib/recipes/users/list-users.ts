import type { RecipeId } from '../../storage/model';
import type { UserListCursor } from '../../storage/ports';
import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from './api-user';
import { encodePaginationToken } from './pagination-token';

export interface ListUsersInput {
  readonly limit: number;
  /** `ASC` (oldest first, the default of the SuperTokens core) or `DESC`. */
  readonly order: 'ASC' | 'DESC';
  /** From a decoded `paginationToken`: the page starts after this place. */
  readonly after?: UserListCursor;
  readonly recipeIds?: readonly RecipeId[];
}

export type ListUsersResult = { status: 'OK'; users: ApiUser[]; nextPaginationToken?: string };

/**
 * One page of a tenant's users in join order (a primary user once, at its oldest login method's
 * time, if any of its login methods is in the tenant). `nextPaginationToken` is present only when another
 * page follows, so a client pages until the key is absent and sees every user once.
 */
export async function listUsers(deps: Pick<Deps, 'users'>, tenantId: string, input: ListUsersInput): Promise<ListUsersResult> {
  const page = await deps.users.listUsers(tenantId, input);
  return {
    status: 'OK',
    users: page.users.map(toApiUser),
    ...(page.next ? { nextPaginationToken: encodePaginationToken(page.next) } : {}),
  };
}
