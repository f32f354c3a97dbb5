import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from './api-user';

export type GetUserResult = { status: 'OK'; user: ApiUser } | { status: 'UNKNOWN_USER_ID_ERROR' };

/** Reads a user by id, any recipe: by a primary user's id or any of its login methods' ids, the primary user. */
export async function getUserById(deps: Pick<Deps, 'users'>, userId: string): Promise<GetUserResult> {
  const user = await deps.users.getUser(userId);
  return user ? { status: 'OK', user: toApiUser(user) } : { status: 'UNKNOWN_USER_ID_ERROR' };
}
