import type { Deps } from '../deps';

/**
 * `POST /recipe/role/permissions/remove`: removes the given permissions of a role (unknown ones are
 * ignored; `undefined` removes them all, `[]` none), or `UNKNOWN_ROLE_ERROR`.
 */
export async function removePermissionsFromRole(
  deps: Pick<Deps, 'roles'>,
  role: string,
  permissions: readonly string[] | undefined,
): Promise<{ status: 'OK' } | { status: 'UNKNOWN_ROLE_ERROR' }> {
  if (!(await deps.roles.getRole(role))) return { status: 'UNKNOWN_ROLE_ERROR' };
  await deps.roles.removePermissions(role, permissions ?? (await deps.roles.permissionsOf(role)));
  return { status: 'OK' };
}
