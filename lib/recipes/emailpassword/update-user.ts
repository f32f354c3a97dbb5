import { hashPassword } from '../../password/own-hash';
import { withPasswordHash } from '../../storage/auth-user';
import type { UserRecord } from '../../storage/model';
import { CHANGE_NOT_ALLOWED_REASON } from '../accountlinking/conflicts';
import { retryOnRace, type Deps } from '../deps';
import { findLogin, updateLoginMethod, type UserLogin } from '../users/find-login';

export interface UpdateEmailPasswordUserInput {
  /** The email-password login method's recipe user id. */
  readonly userId: string;
  readonly email?: string;
  readonly password?: string;
}

export type UpdateEmailPasswordUserResult =
  | { status: 'OK' }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' }
  | { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR'; reason: string };

/**
 * Changes an email-password login method's email (the guard moves atomically) and/or password (own
 * Argon2id). The id must name an email-password login method. When the login method belongs to a
 * primary user, a new email that another primary user sharing one of its tenants holds is refused
 * (`EMAIL_CHANGE_NOT_ALLOWED_ERROR`, checked before a same-recipe duplicate, as in the core).
 */
export async function updateEmailPasswordUser(
  deps: Pick<Deps, 'users' | 'config'>,
  input: UpdateEmailPasswordUserInput,
): Promise<UpdateEmailPasswordUserResult> {
  const first = await findLogin(deps, input.userId);
  if (!first || first.loginMethod.recipeId !== 'emailpassword') return { status: 'UNKNOWN_USER_ID_ERROR' };
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password, deps.config.password.ownHash);
  let login: UserLogin | undefined = first;
  return retryOnRace<UpdateEmailPasswordUserResult>('Updating the user', async () => {
    login ??= await findLogin(deps, input.userId);
    if (!login || login.loginMethod.recipeId !== 'emailpassword') return { status: 'UNKNOWN_USER_ID_ERROR' };
    const lm = login.loginMethod;
    const emailChanged = input.email !== undefined && input.email !== lm.email;
    // A new password also ends a wait for password migration at sign-in (SPEC §16).
    const after: UserRecord = {
      ...(passwordHash !== undefined ? withPasswordHash(lm, passwordHash) : lm),
      ...(emailChanged ? { email: input.email } : {}),
    };
    const result = await updateLoginMethod(deps, login, after);
    if (result.status === 'OK') return { status: 'OK' };
    if (result.status === 'ACCOUNT_INFO_TAKEN') return { status: 'EMAIL_CHANGE_NOT_ALLOWED_ERROR', reason: CHANGE_NOT_ALLOWED_REASON.updateEmail };
    if (result.status === 'IDENTITY_TAKEN') return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
    login = undefined;
    return undefined;
  });
}
