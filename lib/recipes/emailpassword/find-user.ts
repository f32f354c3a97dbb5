import type { Deps } from '../deps';
import { findLoginOfGuard, type UserLogin } from '../users/find-login';

/**
 * The email-password login method with this email in the tenant and its user, read consistently
 * through its guard: from the guard alone when it holds a whole copy of a login method on its own
 * (storage format 7), else with its user's partition.
 */
export async function findEmailPasswordUser(deps: Pick<Deps, 'users'>, tenantId: string, email: string): Promise<UserLogin | undefined> {
  return findLoginOfGuard(deps, await deps.users.getEmailPasswordLogin(tenantId, email));
}
