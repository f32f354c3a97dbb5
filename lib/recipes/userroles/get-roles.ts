import type { Deps } from '../deps';

/** `GET /recipe/roles`: every role of the app. */
export async function getRoles(deps: Pick<Deps, 'roles'>): Promise<{ status: 'OK'; roles: string[] }> {
  return { status: 'OK', roles: await deps.roles.listRoles() };
}
