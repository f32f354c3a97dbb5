import type { AuthUser, RecipeId } from '../model';

/** A place in a tenant's join order: users are ordered by `timeJoined`, then by id. */
export interface UserListCursor {
  readonly timeJoined: number;
  readonly userId: string;
}

/** One page of a tenant's users. */
export interface UserListQuery {
  /** At most this many users. */
  readonly limit: number;
  /** `ASC`: oldest first; `DESC`: newest first. */
  readonly order: 'ASC' | 'DESC';
  /** Start strictly after this place (in `order`); from the first user when absent. */
  readonly after?: UserListCursor;
  /** Only users with a login method of one of these recipes in the tenant; every user when absent. */
  readonly recipeIds?: readonly RecipeId[];
}

/** One page of a tenant's users; `next` (the place of its last user) only when another page follows. */
export interface UserListPage {
  readonly users: AuthUser[];
  readonly next?: UserListCursor;
}

/**
 * A tenant's users in join order and their counts, read off the list index (gsi1, 16 shards):
 * apart from `UserStore`, so only the functions that list or count carry it.
 */
export interface UserLists {
  /**
   * A page of a tenant's users in join order (a primary user once, at its oldest login method's
   * time); `next` tells where another page follows.
   */
  listUsers(tenantId: string, query: UserListQuery): Promise<UserListPage>;
  /**
   * How many users a tenant has (a primary user once; of the given recipes, or all). With
   * `oncePerApp`, only the users whose oldest login method is in this tenant: summed over every
   * tenant, each user of the app counts once, also a primary user with login methods in several.
   */
  countUsers(tenantId: string, recipeIds?: readonly RecipeId[], oncePerApp?: boolean): Promise<number>;
  /**
   * How many email-password login methods in the tenant still wait for password migration at
   * sign-in (SPEC §16). Read off an index: a mark set or cleared a moment ago may not show yet.
   */
  countPasswordMigrations(tenantId: string): Promise<number>;
}
