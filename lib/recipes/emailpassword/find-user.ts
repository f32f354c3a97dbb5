import type { Deps } from '../deps';
import { loginOf, userOf, type UserLogin } from '../users/find-login';

/**
 * The email-password login method with this email in the tenant and its user, read consistently
 * through its guard: from the guard alone when it holds a snapshot of a login method on its own,
 * else with its user's partition.
 */
export async function findEmailPasswordUser(deps: Pick<Deps, 'users'>, tenantId: string, email: string): Promise<UserLogin | undefined> {
  const login = await loginOf(deps, await deps.users.getEmailPasswordLogin(tenantId, email));
  return login && userOf(deps, login);
}
