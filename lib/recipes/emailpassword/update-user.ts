import { hashPassword } from '../../password';
import type { UserRecord } from '../../storage/model';
import { WRITE_TRIES, type Deps } from '../deps';

export interface UpdateEmailPasswordUserInput {
  readonly userId: string;
  readonly email?: string;
  readonly password?: string;
}

export type UpdateEmailPasswordUserResult =
  | { status: 'OK' }
  | { status: 'UNKNOWN_USER_ID_ERROR' }
  | { status: 'EMAIL_ALREADY_EXISTS_ERROR' };

/** Changes an email-password user's email (the guard moves atomically) and/or password (own Argon2id). */
export async function updateEmailPasswordUser(
  deps: Pick<Deps, 'users' | 'config'>,
  input: UpdateEmailPasswordUserInput,
): Promise<UpdateEmailPasswordUserResult> {
  const first = await deps.users.getUser(input.userId);
  if (!first || first.recipeId !== 'emailpassword') return { status: 'UNKNOWN_USER_ID_ERROR' };
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password, deps.config.password.ownHash);
  let user: UserRecord | undefined = first;
  for (let attempt = 0; attempt < WRITE_TRIES; attempt++) {
    if (!user || user.recipeId !== 'emailpassword') return { status: 'UNKNOWN_USER_ID_ERROR' };
    const emailChanged = input.email !== undefined && input.email !== user.email;
    const after: UserRecord = {
      ...user,
      ...(emailChanged ? { email: input.email, emailVerified: false } : {}),
      ...(passwordHash !== undefined ? { passwordHash } : {}),
    };
    const result = await deps.users.updateUser(user, after);
    if (result.status === 'OK') return { status: 'OK' };
    if (result.status === 'IDENTITY_TAKEN') return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
    user = await deps.users.getUser(input.userId);
  }
  throw new Error('Updating the user lost the race too often');
}
