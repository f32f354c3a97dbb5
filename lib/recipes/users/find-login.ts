import { isWholeLoginMethod, loginMethodOf, standaloneUser, withLoginMethod } from '../../storage/auth-user';
import type { AuthUser, LoginMethodView, UserRecord } from '../../storage/model';
import type { LoginRef, UserWithLogin, UserWriteResult } from '../../storage/ports';
import type { Deps } from '../deps';

/** A user together with one of its login methods: the one a request named or signed in with. */
export type UserLogin = UserWithLogin;

/**
 * The user holding a login method (read consistently), with that login method. `ref` is the
 * recipe user id, or what a guard names (login method and user), which saves following a link.
 */
export async function findLogin(deps: Pick<Deps, 'users'>, ref: string | LoginRef | undefined): Promise<UserLogin | undefined> {
  if (ref === undefined) return undefined;
  const { recipeUserId, userId } = typeof ref === 'string' ? { recipeUserId: ref, userId: ref } : ref;
  // A request's id may be an external one; what a guard names is always a SuperTokens id.
  const as = typeof ref === 'string' ? 'ANY' : 'SUPERTOKENS';
  const read = async (id: string) => {
    const user = await deps.users.getUser(id, as);
    const loginMethod = user && loginMethodOf(user, recipeUserId);
    return user && loginMethod ? { user, loginMethod } : undefined;
  };
  // Linked or unlinked since the guard was read: its own id still finds it.
  return (await read(userId)) ?? (userId !== recipeUserId ? read(recipeUserId) : undefined);
}

/**
 * The login a guard names (`ref`, with the copy of a login method on its own it may hold): from
 * the copy alone when it is whole (storage format 7: it holds the version, and the guard is
 * written with the login method and read consistently), else read with its user (`findLogin`).
 */
export async function findLoginOfGuard(
  deps: Pick<Deps, 'users'>,
  ref: (LoginRef & { readonly loginMethod?: LoginMethodView }) | undefined,
): Promise<UserLogin | undefined> {
  const copy = ref?.loginMethod;
  return copy && isWholeLoginMethod(copy) ? { user: standaloneUser(copy), loginMethod: copy } : findLogin(deps, ref);
}

/** Stores a changed login method of a user (see `UserStore.writeUsers` for the guarantees). */
export function updateLoginMethod(deps: Pick<Deps, 'users'>, login: UserLogin, after: UserRecord): Promise<UserWriteResult> {
  return deps.users.writeUsers([login.user], [withLoginMethod(login.user, after)]);
}

/**
 * The primary user after a write of its login method `lm` made without the user (a
 * `PrimaryLoginMark`, at the version after `lm`'s), from the user read beside the write: the
 * login method as written where the read came before the write; as read where it came after (the
 * same, or a later change). A user no longer holding it (unlinked or removed since the write, or a
 * failed read) is read again by the login method's id; one removed since is answered as the login
 * method written.
 */
export async function userAfterMark(deps: Pick<Deps, 'users'>, read: AuthUser | undefined, lm: UserRecord): Promise<AuthUser> {
  const heldBy = (u: AuthUser | undefined) => u?.loginMethods.find((m) => m.userId === lm.userId);
  const user = heldBy(read) ? read : await deps.users.getUser(lm.userId, 'SUPERTOKENS');
  const held = heldBy(user);
  if (!user || !held) return standaloneUser(lm);
  return held.version > lm.version ? user : withLoginMethod(user, lm);
}
