import type { RecipeId } from '../../storage/model';
import type { Deps } from '../deps';
import { PUBLIC_TENANT } from '../multitenancy/tenants';

export interface CountUsersInput {
  readonly recipeIds?: readonly RecipeId[];
  /** Count the users of every tenant of the app (what the SDK's `getUserCount()` asks without a tenant). */
  readonly allTenants: boolean;
}

/**
 * Counts the users of a tenant, or of the whole app (a primary user with login methods in several
 * tenants once, as the core counts distinct users); optionally only of some recipes.
 */
export async function countUsers(
  deps: Pick<Deps, 'userLists' | 'tenants'>,
  tenantId: string,
  input: CountUsersInput,
): Promise<{ status: 'OK'; count: number }> {
  // Every tenant's id (`public` always exists, stored or not), without their providers.
  const tenantIds = input.allTenants ? [...new Set([PUBLIC_TENANT, ...(await deps.tenants.listTenants()).map((t) => t.tenantId)])] : [tenantId];
  const counts = await Promise.all(tenantIds.map((t) => deps.userLists.countUsers(t, input.recipeIds, input.allTenants)));
  return { status: 'OK', count: counts.reduce((a, b) => a + b, 0) };
}
