import { retryOnRace, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { MAX_ROLES_PER_USER } from './limits';

export type AddRoleToUserResult = { status: 'OK'; didUserAlreadyHaveRole: boolean } | { status: 'UNKNOWN_ROLE_ERROR' };

/**
 * `PUT /<tenant>/recipe/user/role` (SPEC §14): gives a user id a role in the tenant. The role must
 * exist (checked in the same transaction as the assignment); the user id is taken as given, as in
 * the core. At most `MAX_ROLES_PER_USER` roles per user id (400 beyond).
 */
export function addRoleToUser(deps: Pick<Deps, 'roles'>, tenantId: string, userId: string, role: string): Promise<AddRoleToUserResult> {
  return retryOnRace<AddRoleToUserResult>('Assigning the role', async () => {
    const current = await deps.roles.getRole(role);
    if (!current) return { status: 'UNKNOWN_ROLE_ERROR' };
    const held = await deps.roles.rolesOfUser(tenantId, userId);
    if (held.includes(role)) return { status: 'OK', didUserAlreadyHaveRole: true };
    if ((await deps.roles.countAssignments(userId)) >= MAX_ROLES_PER_USER) {
      throw new InvalidInputError(`Field name 'userId' already holds ${MAX_ROLES_PER_USER} roles in all tenants together: the maximum`);
    }
    const result = await deps.roles.assignRole(tenantId, userId, current);
    if (result === 'ROLE_GONE') return undefined;
    return { status: 'OK', didUserAlreadyHaveRole: result === 'ALREADY' };
  });
}
