import { loginMethodOf, withLoginMethod } from '../../storage/auth-user';
import type { AuthUser, UserRecord } from '../../storage/model';
import type { UserWriteResult } from '../../storage/ports';
import type { Deps } from '../deps';

/** A user together with one of its login methods: the one a request named or signed in with. */
export interface UserLogin {
  readonly user: AuthUser;
  readonly loginMethod: UserRecord;
}

/** The user holding the login method `recipeUserId` (read consistently), with that login method. */
export async function findLogin(deps: Pick<Deps, 'users'>, recipeUserId: string | undefined): Promise<UserLogin | undefined> {
  if (recipeUserId === undefined) return undefined;
  const user = await deps.users.getUser(recipeUserId);
  const loginMethod = user && loginMethodOf(user, recipeUserId);
  return user && loginMethod ? { user, loginMethod } : undefined;
}

/** Stores a changed login method of a user (see `UserStore.writeUsers` for the guarantees). */
export function updateLoginMethod(deps: Pick<Deps, 'users'>, login: UserLogin, after: UserRecord): Promise<UserWriteResult> {
  return deps.users.writeUsers([login.user], [withLoginMethod(login.user, after)]);
}
