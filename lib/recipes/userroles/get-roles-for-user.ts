import type { Deps } from '../deps';

/** `GET /<tenant>/recipe/user/roles`: the roles of a user id in the tenant (never an error). */
export async function getRolesForUser(deps: Pick<Deps, 'roles'>, tenantId: string, userId: string): Promise<{ status: 'OK'; roles: string[] }> {
  return { status: 'OK', roles: await deps.roles.rolesOfUser(tenantId, userId) };
}
