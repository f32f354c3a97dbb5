import type { Deps } from '../deps';

/** `GET /recipe/role/permissions`: the permissions of a role, or `UNKNOWN_ROLE_ERROR`. */
export async function getPermissionsForRole(
  deps: Pick<Deps, 'roles'>,
  role: string,
): Promise<{ status: 'OK'; permissions: string[] } | { status: 'UNKNOWN_ROLE_ERROR' }> {
  if (!(await deps.roles.getRole(role))) return { status: 'UNKNOWN_ROLE_ERROR' };
  return { status: 'OK', permissions: await deps.roles.permissionsOf(role) };
}
