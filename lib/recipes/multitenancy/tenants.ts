import { TENANT_FACTOR_LISTS, type TenantFactorsChange, type TenantRecord, type ThirdPartyProvider } from '../../storage/model';
import { answerBodyBytes, MAX_ANSWER_BODY_BYTES } from '../answer-size';
import type { Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { providerAnswer } from './provider-config';
import { cachedTenant, forgetTenant } from './tenant-cache';

/** The tenant every deployment has; it cannot be created or removed. */
export const PUBLIC_TENANT = 'public';

/** The core's 400 for a tenant that does not exist (SPEC §2), for one removed while a request ran. */
export const TENANT_GONE = 'AppId or tenantId not found';

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
  thirdParty: { providers: ThirdPartyProvider[] };
  coreConfig: Record<string, never>;
  firstFactors?: string[];
  requiredSecondaryFactors?: string[];
}

export type TenantConfigResult = ({ status: 'OK' } & TenantConfig) | { status: 'TENANT_NOT_FOUND_ERROR' };

/**
 * A tenant's login configuration (SPEC §18b, §22): its providers in their order, as the core
 * serialises them (`providerAnswer`: they are stored in the core's form), its
 * factors where set (absent, the SDK allows every first factor it has), and no core settings
 * (those are the deployment's).
 */
function tenantConfigOf(
  tenantId: string,
  tenant: Pick<TenantRecord, 'firstFactors' | 'requiredSecondaryFactors'> & { providers?: readonly ThirdPartyProvider[] },
): TenantConfig {
  const { firstFactors, requiredSecondaryFactors } = tenant;
  return {
    tenantId,
    thirdParty: { providers: (tenant.providers ?? []).map(providerAnswer) },
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
export async function getTenantConfig(deps: Pick<Deps, 'tenants' | 'tenantConfigs' | 'clock'>, tenantId: string): Promise<TenantConfigResult> {
  const tenant = await cachedTenant(deps, tenantId);
  if (tenantId === PUBLIC_TENANT) return { status: 'OK', ...tenantConfigOf(PUBLIC_TENANT, tenant ?? {}) };
  if (!tenant) return { status: 'TENANT_NOT_FOUND_ERROR' };
  return { status: 'OK', ...tenantConfigOf(tenantId, tenant) };
}

/**
 * `GET …/tenant/list/v2`: every tenant, `public` first, each as `GET …/tenant/v2` answers it (the
 * core's, which the dashboard's tenant pages read), from one Query of the tenants partition
 * (uncached; one call more per further MB of providers). Tenants whose providers take more than one
 * answer carries (`MAX_ANSWER_BODY_BYTES`) are a 400 saying to read them one by one.
 */
export async function listTenants(deps: Pick<Deps, 'tenantConfigs'>): Promise<{ status: 'OK'; tenants: TenantConfig[] }> {
  const stored = await deps.tenantConfigs.listTenantConfigs(MAX_ANSWER_BODY_BYTES);
  const others = (stored ?? [])
    .filter((t) => t.tenantId !== PUBLIC_TENANT)
    .sort((a, b) => (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0))
    .map((t) => tenantConfigOf(t.tenantId, t));
  const answer = {
    status: 'OK' as const,
    tenants: [tenantConfigOf(PUBLIC_TENANT, stored?.find((t) => t.tenantId === PUBLIC_TENANT) ?? {}), ...others],
  };
  if (!stored || answerBodyBytes(answer) > MAX_ANSWER_BODY_BYTES) {
    throw new InvalidInputError(
      `The tenants' third-party providers are more than one answer carries (${MAX_ANSWER_BODY_BYTES} bytes): read each tenant with GET /<tenantId>/recipe/multitenancy/tenant/v2`,
    );
  }
  return answer;
}

/**
 * Removes a tenant with its providers (SPEC §22: a tenant made again starts with none). Its users
 * stay stored but can no longer be reached through the tenant's
 * paths (every request on a missing tenant is refused); re-creating the tenant makes them
 * reachable again. This container's cached read of it is dropped.
 */
export async function removeTenant(deps: Pick<Deps, 'tenants' | 'tenantConfigs'>, tenantId: string): Promise<{ status: 'OK'; didExist: boolean }> {
  if (tenantId === PUBLIC_TENANT) throw new InvalidInputError("Field name 'tenantId' is invalid: the public tenant cannot be removed");
  try {
    return { status: 'OK', didExist: await deps.tenantConfigs.removeTenant(tenantId) };
  } finally {
    forgetTenant(deps, tenantId);
  }
}

/** Whether a tenant exists (`public` always does). */
export async function tenantExists(deps: Pick<Deps, 'tenants'>, tenantId: string): Promise<boolean> {
  return tenantId === PUBLIC_TENANT || deps.tenants.tenantExists(tenantId);
}
