import type { Deps } from '../deps';

/** `POST /<tenant>/recipe/user/role/remove`: takes a role from a user id in the tenant (`didUserHaveRole`), or `UNKNOWN_ROLE_ERROR`. */
export async function removeUserRole(
  deps: Pick<Deps, 'roles'>,
  tenantId: string,
  userId: string,
  role: string,
): Promise<{ status: 'OK'; didUserHaveRole: boolean } | { status: 'UNKNOWN_ROLE_ERROR' }> {
  const current = await deps.roles.getRole(role);
  if (!current) return { status: 'UNKNOWN_ROLE_ERROR' };
  return { status: 'OK', didUserHaveRole: await deps.roles.unassignRole(tenantId, userId, current) };
}
