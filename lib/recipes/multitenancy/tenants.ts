import type { Deps } from '../deps';
import { InvalidInputError } from '../errors';

/** The tenant every deployment has; it cannot be created or removed. */
export const PUBLIC_TENANT = 'public';

/** Creates a tenant; `createdNew` is false when it existed (and always for `public`). */
export async function createTenant(deps: Pick<Deps, 'tenants' | 'clock'>, tenantId: string): Promise<{ status: 'OK'; createdNew: boolean }> {
  if (tenantId === PUBLIC_TENANT) return { status: 'OK', createdNew: false };
  const createdNew = await deps.tenants.createTenant({ tenantId, createdAt: deps.clock.now() });
  return { status: 'OK', createdNew };
}

/** Lists tenants, `public` first. */
export async function listTenants(deps: Pick<Deps, 'tenants'>): Promise<{ status: 'OK'; tenants: { tenantId: string }[] }> {
  const stored = await deps.tenants.listTenants();
  const ids = stored.map((t) => t.tenantId).sort();
  return { status: 'OK', tenants: [PUBLIC_TENANT, ...ids].map((tenantId) => ({ tenantId })) };
}

/**
 * Removes a tenant. Its users stay stored but can no longer be reached through the tenant's
 * paths (every request on a missing tenant is refused); re-creating the tenant makes them
 * reachable again.
 */
export async function removeTenant(deps: Pick<Deps, 'tenants'>, tenantId: string): Promise<{ status: 'OK'; didExist: boolean }> {
  if (tenantId === PUBLIC_TENANT) throw new InvalidInputError("Field name 'tenantId' is invalid: the public tenant cannot be removed");
  return { status: 'OK', didExist: await deps.tenants.removeTenant(tenantId) };
}

/** Whether a tenant exists (`public` always does). */
export async function tenantExists(deps: Pick<Deps, 'tenants'>, tenantId: string): Promise<boolean> {
  return tenantId === PUBLIC_TENANT || deps.tenants.tenantExists(tenantId);
}
