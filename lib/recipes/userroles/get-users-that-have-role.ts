import type { Deps } from '../deps';

/** `GET /<tenant>/recipe/role/users`: the user ids holding a role in the tenant, or `UNKNOWN_ROLE_ERROR`. */
export async function getUsersThatHaveRole(
  deps: Pick<Deps, 'roles'>,
  tenantId: string,
  role: string,
): Promise<{ status: 'OK'; users: string[] } | { status: 'UNKNOWN_ROLE_ERROR' }> {
  const current = await deps.roles.getRole(role);
  if (!current) return { status: 'UNKNOWN_ROLE_ERROR' };
  return { status: 'OK', users: await deps.roles.usersWithRole(tenantId, current) };
}
