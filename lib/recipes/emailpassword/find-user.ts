import type { Deps } from '../deps';
import { findLogin, type UserLogin } from '../users/find-login';

/** The email-password login method with this email in the tenant and its user, read consistently through its guard. */
export async function findEmailPasswordUser(deps: Pick<Deps, 'users'>, tenantId: string, email: string): Promise<UserLogin | undefined> {
  return findLogin(deps, await deps.users.getLoginByEmail(tenantId, 'emailpassword', email));
}
