import { retryOnRace, type Deps } from '../deps';

/**
 * `PUT /recipe/role` (SPEC §14): creates the role if it does not exist and adds the permissions
 * (idempotently; none is ever taken away here). The permissions are written only while the role
 * is the incarnation read, so a role removed meanwhile leaves no permission behind.
 */
export function createOrUpdateRole(deps: Pick<Deps, 'roles' | 'random'>, role: string, permissions: readonly string[]): Promise<{ status: 'OK'; createdNewRole: boolean }> {
  return retryOnRace('Creating the role', async () => {
    let current = await deps.roles.getRole(role);
    let createdNewRole = false;
    if (!current) {
      const fresh = { role, roleUid: deps.random.uuid() };
      if (!(await deps.roles.createRole(fresh))) return undefined;
      current = fresh;
      createdNewRole = true;
    }
    if ((await deps.roles.addPermissions(current, permissions)) === 'ROLE_GONE') return undefined;
    return { status: 'OK' as const, createdNewRole };
  });
}
