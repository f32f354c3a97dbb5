import { retryOnRace, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { MAX_PERMISSIONS_PER_ROLE, MAX_ROLES } from './limits';

/**
 * `PUT /recipe/role` (SPEC §14): creates the role if it does not exist and adds the permissions
 * (idempotently; none is ever taken away here). The permissions are written only while the role
 * is the incarnation read, so a role removed meanwhile leaves no permission behind. At most
 * `MAX_ROLES` roles and `MAX_PERMISSIONS_PER_ROLE` permissions a role (400 beyond, nothing
 * written); requests racing at the bound may pass it by a few, which the bounds leave room for.
 */
export function createOrUpdateRole(
  deps: Pick<Deps, 'roles' | 'random'>,
  role: string,
  permissions: readonly string[],
  bounds: { readonly roles: number; readonly permissions: number } = { roles: MAX_ROLES, permissions: MAX_PERMISSIONS_PER_ROLE },
): Promise<{ status: 'OK'; createdNewRole: boolean }> {
  return retryOnRace('Creating the role', async () => {
    let current = await deps.roles.getRole(role);
    if (permissions.length > 0) {
      const after = new Set([...(current ? await deps.roles.permissionsOf(role) : []), ...permissions]).size;
      if (after > bounds.permissions)
        throw new InvalidInputError(`Field name 'permissions' would give the role ${after} permissions: the maximum is ${bounds.permissions}`);
    }
    let createdNewRole = false;
    if (!current) {
      if ((await deps.roles.countRoles()) >= bounds.roles)
        throw new InvalidInputError(`Field name 'role' names a new role, and the app already has ${bounds.roles} roles: the maximum`);
      const fresh = { role, roleUid: deps.random.uuid() };
      if (!(await deps.roles.createRole(fresh))) return undefined;
      current = fresh;
      createdNewRole = true;
    }
    if ((await deps.roles.addPermissions(current, permissions)) === 'ROLE_GONE') return undefined;
    return { status: 'OK' as const, createdNewRole };
  });
}
