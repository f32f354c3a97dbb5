import { hashPassword } from '../../password/own-hash';
import { publicIdOf, standaloneUser } from '../../storage/auth-user';
import type { UserRecord } from '../../storage/model';
import type { Deps } from '../deps';
import { toApiUser, type ApiUser } from '../users/api-user';
import { findEmailPasswordUser } from './find-user';

export type SignUpResult = { status: 'OK'; user: ApiUser; recipeUserId: string } | { status: 'EMAIL_ALREADY_EXISTS_ERROR' };

/**
 * Creates an email-password user, hashing the password with the service's own Argon2id parameters.
 * Only another email-password login method with the email in the tenant blocks it (a primary user
 * holding the email through another recipe does not), and the new user is never linked: linking is
 * the SDK's decision (SPEC §11).
 */
export async function signUp(
  deps: Pick<Deps, 'users' | 'clock' | 'random' | 'config'>,
  tenantId: string,
  email: string,
  password: string,
): Promise<SignUpResult> {
  if (await findEmailPasswordUser(deps, tenantId, email)) return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
  const user: UserRecord = {
    userId: deps.random.uuid(),
    recipeId: 'emailpassword',
    tenantIds: [tenantId],
    timeJoined: deps.clock.now(),
    email,
    verifiedEmails: [],
    phoneVerified: false,
    passwordHash: await hashPassword(password, deps.config.password.ownHash),
    version: 1,
  };
  const result = await deps.users.createUser(user);
  if (result.status !== 'OK') return { status: 'EMAIL_ALREADY_EXISTS_ERROR' };
  return { status: 'OK', user: toApiUser(standaloneUser(user)), recipeUserId: publicIdOf(user) };
}
