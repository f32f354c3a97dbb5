import type { UserRecord } from '../../storage/model';
import type { Deps } from '../deps';

/** The email-password user with this email in the tenant, read consistently through its guard. */
export async function findEmailPasswordUser(
  deps: Pick<Deps, 'users'>,
  tenantId: string,
  email: string,
): Promise<UserRecord | undefined> {
  const userId = await deps.users.getUserIdByEmail(tenantId, 'emailpassword', email);
  return userId === undefined ? undefined : deps.users.getUser(userId);
}
