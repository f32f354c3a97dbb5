import type { Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { MAX_ROLE_USERS_BYTES } from './limits';

/**
 * `GET /<tenant>/recipe/role/users`: the user ids holding a role in the tenant, or
 * `UNKNOWN_ROLE_ERROR`; a 400 when they are more than one answer carries (`MAX_ROLE_USERS_BYTES`).
 */
export async function getUsersThatHaveRole(
  deps: Pick<Deps, 'roles'>,
  tenantId: string,
  role: string,
): Promise<{ status: 'OK'; users: string[] } | { status: 'UNKNOWN_ROLE_ERROR' }> {
  const current = await deps.roles.getRole(role);
  if (!current) return { status: 'UNKNOWN_ROLE_ERROR' };
  const users = await deps.roles.usersWithRole(tenantId, current, MAX_ROLE_USERS_BYTES);
  if (!users) {
    throw new InvalidInputError(
      `Field name 'role' names a role held by more users in this tenant than one answer can carry (${MAX_ROLE_USERS_BYTES} bytes of user ids, about 120,000 users)`,
    );
  }
  return { status: 'OK', users };
}
