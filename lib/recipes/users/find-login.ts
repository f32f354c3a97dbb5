import { isLoginMark, loginMethodOf, standaloneUser, withLoginMethod } from '../../storage/auth-user';
import type { AuthUser, UserRecord } from '../../storage/model';
import { isSnapshot, refOf, type FoundLogin, type LoginWrite, type UserWithLogin, type UserWriteResult } from '../../storage/ports/users';
import type { Deps } from '../deps';

/** A user together with one of its login methods: the one a request named or signed in with. */
export type UserLogin = UserWithLogin;

/**
 * A login method a request signs in with, as far as it was read: with its whole user, or (a
 * primary user's, from a snapshot) with only the primary user's id, the rest of the user unread.
 */
export type Login = UserLogin | { readonly primaryUserId: string; readonly loginMethod: UserRecord };

/**
 * The user holding a login method (read consistently), with that login method. `ref` is the
 * recipe user id, or what a lookup by identity found, which saves following a link.
 */
export async function findLogin(deps: Pick<Deps, 'users'>, ref: string | FoundLogin | undefined): Promise<UserLogin | undefined> {
  if (ref === undefined) return undefined;
  const { recipeUserId, userId } = typeof ref === 'string' ? { recipeUserId: ref, userId: ref } : refOf(ref);
  // A request's id may be an external one; what a lookup found is always a SuperTokens id.
  const as = typeof ref === 'string' ? 'ANY' : 'SUPERTOKENS';
  const read = async (id: string) => {
    const user = await deps.users.getUser(id, as);
    const loginMethod = user && loginMethodOf(user, recipeUserId);
    return user && loginMethod ? { user, loginMethod } : undefined;
  };
  // Linked or unlinked since the lookup: its own id still finds it.
  return (await read(userId)) ?? (userId !== recipeUserId ? read(recipeUserId) : undefined);
}

/**
 * The login a lookup by identity found, read no further than a sign-in needs: a snapshot answers
 * as it is (the login method on its own is its user; a primary user's is read only when the
 * answer or a write needs the user); where it lives is read with its user. With `fromSnapshot`
 * false (after a write from a snapshot was refused), the user behind a snapshot is read too.
 */
export async function loginOf(deps: Pick<Deps, 'users'>, found: FoundLogin | undefined, fromSnapshot = true): Promise<Login | undefined> {
  if (found === undefined) return undefined;
  if (!fromSnapshot || !isSnapshot(found)) return findLogin(deps, found);
  const { loginMethod, primaryUserId } = found;
  return primaryUserId === undefined ? { user: standaloneUser(loginMethod), loginMethod } : { primaryUserId, loginMethod };
}

/** The user a login answers as: its user, read when only its primary user's id is known. */
export async function userOf(deps: Pick<Deps, 'users'>, login: Login): Promise<UserLogin | undefined> {
  return 'user' in login ? login : findLogin(deps, { recipeUserId: login.loginMethod.userId, userId: login.primaryUserId });
}

/** What a change of a login method wrote, and, once written, the user after it. */
export type LoginChangeResult<W> = { readonly result: W; readonly user?: AuthUser; readonly loginMethod: UserRecord };

/** Sends a login write to the user store. */
export const storeWrite =
  (deps: Pick<Deps, 'users'>) =>
  (write: LoginWrite): Promise<UserWriteResult> =>
    'primaryUserId' in write ? deps.users.writeLoginMark(write) : deps.users.writeUsers(write.before, write.after);

/**
 * Writes `change` of a login's login method in the fewest round trips it allows, through `send`
 * (the user store's write, or a consume's transaction): with its whole user, the user after;
 * a mark on a primary user's login method from its snapshot, the user read beside the write
 * (`userAfterMark`); any other change of one, after reading the whole user, since its claims
 * depend on every login method and tenant of the user. `user` is set once the write succeeded.
 */
export async function changeLogin<W extends { readonly status: string }>(
  deps: Pick<Deps, 'users'>,
  login: Login,
  change: (lm: UserRecord) => UserRecord,
  send: (write: LoginWrite) => Promise<W>,
): Promise<LoginChangeResult<W | { readonly status: 'STALE' }>> {
  if (!('user' in login)) {
    const after = change(login.loginMethod);
    if (!isLoginMark(login.loginMethod, after)) {
      const whole = await userOf(deps, login);
      return whole ? changeLogin(deps, whole, change, send) : { result: { status: 'STALE' }, loginMethod: after };
    }
    // The write needs the login method alone, so the user costs no round trip of its own: it is
    // read while the write runs (a failed read is made again after it).
    const read = deps.users.getUser(login.primaryUserId, 'SUPERTOKENS').catch(() => undefined);
    const result = await send({ primaryUserId: login.primaryUserId, before: login.loginMethod, after });
    if (result.status !== 'OK') {
      await read;
      return { result, loginMethod: after };
    }
    return { result, user: await userAfterMark(deps, await read, after), loginMethod: after };
  }
  const after = change(login.loginMethod);
  const user = withLoginMethod(login.user, after);
  const result = await send({ before: [login.user], after: [user] });
  return result.status === 'OK' ? { result, user, loginMethod: after } : { result, loginMethod: after };
}

/** Writes a new login method on its own through `send`; `user` is set once it is written. */
export async function createLogin<W extends { readonly status: string }>(
  lm: UserRecord,
  send: (write: LoginWrite) => Promise<W>,
): Promise<LoginChangeResult<W>> {
  const user = standaloneUser(lm);
  const result = await send({ before: [], after: [user] });
  return result.status === 'OK' ? { result, user, loginMethod: lm } : { result, loginMethod: lm };
}

/** Stores a changed login method of a user (see `UserStore.writeUsers` for the guarantees). */
export function updateLoginMethod(deps: Pick<Deps, 'users'>, login: UserLogin, after: UserRecord): Promise<UserWriteResult> {
  return deps.users.writeUsers([login.user], [withLoginMethod(login.user, after)]);
}

/**
 * The primary user after a mark on its login method `lm` written without the user (at the
 * version after `lm`'s), from the user read beside the write: the login method as written where
 * the read came before the write; as read where it came after (the same, or a later change). A
 * user no longer holding it (unlinked or removed since the write, or a failed read) is read again
 * by the login method's id; one removed since is answered as the login method written.
 */
export async function userAfterMark(deps: Pick<Deps, 'users'>, read: AuthUser | undefined, lm: UserRecord): Promise<AuthUser> {
  const heldBy = (u: AuthUser | undefined) => u?.loginMethods.find((m) => m.userId === lm.userId);
  const user = heldBy(read) ? read : await deps.users.getUser(lm.userId, 'SUPERTOKENS');
  const held = heldBy(user);
  if (!user || !held) return standaloneUser(lm);
  return held.version > lm.version ? user : withLoginMethod(user, lm);
}
