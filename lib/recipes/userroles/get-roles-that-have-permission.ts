import type { Deps } from '../deps';

/** `GET /recipe/permission/roles`: the roles holding a permission. */
export async function getRolesThatHavePermission(deps: Pick<Deps, 'roles'>, permission: string): Promise<{ status: 'OK'; roles: string[] }> {
  return { status: 'OK', roles: await deps.roles.rolesWithPermission(permission) };
}
