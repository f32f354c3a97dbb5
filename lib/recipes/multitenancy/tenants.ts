import { TENANT_FACTOR_LISTS, type TenantFactorsChange, type TenantRecord } from '../../storage/model';
import type { Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { cachedTenant, forgetTenant } from './tenant-cache';

/** The tenant every deployment has; it cannot be created or removed. */
export const PUBLIC_TENANT = 'public';

/**
 * Creates a tenant, or updates the factors of one that exists (SPEC §18b): `createdNew` is false
 * when it existed (and always for `public`, which always exists: its factors are stored as any
 * tenant's, SPEC §20, and it is written only when a factor list is given). This container's
 * cached read of the tenant is dropped (`forgetTenant`), so its next `GET …/tenant/v2` here reads.
 */
export async function createOrUpdateTenant(
  deps: Pick<Deps, 'tenants' | 'clock'>,
  tenantId: string,
  change: TenantFactorsChange = {},
): Promise<{ status: 'OK'; createdNew: boolean }> {
  try {
    if (tenantId !== PUBLIC_TENANT) return { status: 'OK', createdNew: await deps.tenants.putTenant(tenantId, deps.clock.now(), change) };
    if (TENANT_FACTOR_LISTS.some((name) => change[name] !== undefined)) await deps.tenants.putTenant(PUBLIC_TENANT, deps.clock.now(), change);
    return { status: 'OK', createdNew: false };
  } finally {
    forgetTenant(deps, tenantId);
  }
}

/** A tenant's login configuration as the core answers `GET …/recipe/multitenancy/tenant/v2` (without `status`). */
export interface TenantConfig {
  tenantId: string;
  thirdParty: { providers: never[] };
  coreConfig: Record<string, never>;
  firstFactors?: string[];
  requiredSecondaryFactors?: string[];
}

export type TenantConfigResult = ({ status: 'OK' } & TenantConfig) | { status: 'TENANT_NOT_FOUND_ERROR' };

/**
 * A tenant's login configuration (SPEC §18b): its factors where set (absent, the SDK allows every
 * first factor it has), no providers and no core settings (those live in the app's SDK and the
 * deployment).
 */
function tenantConfigOf(tenantId: string, tenant: Pick<TenantRecord, 'firstFactors' | 'requiredSecondaryFactors'>): TenantConfig {
  const { firstFactors, requiredSecondaryFactors } = tenant;
  return {
    tenantId,
    thirdParty: { providers: [] },
    coreConfig: {},
    ...(firstFactors ? { firstFactors: [...firstFactors] } : {}),
    ...(requiredSecondaryFactors ? { requiredSecondaryFactors: [...requiredSecondaryFactors] } : {}),
  };
}

/**
 * `GET …/tenant/v2`: a tenant's login configuration, from this container's cache of at most
 * `TENANT_CACHE_MS` (the SDK asks before every sign-in). `public` always exists: without a stored
 * item it has no factors. An unknown tenant: the core's `TENANT_NOT_FOUND_ERROR`.
 */
export async function getTenantConfig(deps: Pick<Deps, 'tenants' | 'clock'>, tenantId: string): Promise<TenantConfigResult> {
  const tenant = await cachedTenant(deps, tenantId);
  if (tenantId === PUBLIC_TENANT) return { status: 'OK', ...tenantConfigOf(PUBLIC_TENANT, tenant ?? {}) };
  if (!tenant) return { status: 'TENANT_NOT_FOUND_ERROR' };
  return { status: 'OK', ...tenantConfigOf(tenantId, tenant) };
}

/**
 * `GET …/tenant/list/v2`: every tenant, `public` first, each as `GET …/tenant/v2` answers it (the
 * core's, which the dashboard's tenant pages read), from the one Query of the tenant items.
 */
export async function listTenants(deps: Pick<Deps, 'tenants'>): Promise<{ status: 'OK'; tenants: TenantConfig[] }> {
  const stored = await deps.tenants.listTenants();
  const others = stored
    .filter((t) => t.tenantId !== PUBLIC_TENANT)
    .sort((a, b) => (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0))
    .map((t) => tenantConfigOf(t.tenantId, t));
  return { status: 'OK', tenants: [tenantConfigOf(PUBLIC_TENANT, stored.find((t) => t.tenantId === PUBLIC_TENANT) ?? {}), ...others] };
}

/**
 * Removes a tenant. Its users stay stored but can no longer be reached through the tenant's
 * paths (every request on a missing tenant is refused); re-creating the tenant makes them
 * reachable again. This container's cached read of it is dropped.
 */
export async function removeTenant(deps: Pick<Deps, 'tenants'>, tenantId: string): Promise<{ status: 'OK'; didExist: boolean }> {
  if (tenantId === PUBLIC_TENANT) throw new InvalidInputError("Field name 'tenantId' is invalid: the public tenant cannot be removed");
  try {
    return { status: 'OK', didExist: await deps.tenants.removeTenant(tenantId) };
  } finally {
    forgetTenant(deps, tenantId);
  }
}

/** Whether a tenant exists (`public` always does). */
export async function tenantExists(deps: Pick<Deps, 'tenants'>, tenantId: string): Promise<boolean> {
  return tenantId === PUBLIC_TENANT || deps.tenants.tenantExists(tenantId);
}
