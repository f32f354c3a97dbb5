import type { Deps } from '../deps';
import { ROLE_REMOVAL_BUDGET_MS } from './limits';

/** `POST /recipe/role/remove`: removes a role, its permissions, and it from every user (`didRoleExist`). */
export async function removeRole(deps: Pick<Deps, 'roles'>, role: string): Promise<{ status: 'OK'; didRoleExist: boolean }> {
  return { status: 'OK', didRoleExist: await deps.roles.removeRole(role, Date.now() + ROLE_REMOVAL_BUDGET_MS) };
}
