import type { ThirdPartyProvider } from '../../storage/model';
import { retryOnRace, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { duplicateClientType, invalidConfig, MAX_PROVIDERS, providersProblem, REASON, tooLarge } from './provider-config';
import { forgetTenant } from './tenant-cache';
import { PUBLIC_TENANT, TENANT_GONE } from './tenants';

/**
 * `PUT [/<t>]/recipe/multitenancy/config/thirdparty` (SPEC §22, the core's
 * `CreateOrUpdateThirdPartyConfigAPI`): the provider replaces the tenant's provider of its id, whole
 * and in its place, or is added last (`createdNew`). Unless `skipValidation`, the list it leaves
 * is checked as the core checks it (`providersProblem`); the bounds hold always. Read, then
 * written at the version read (another change meanwhile: read again). This container's cached
 * read of the tenant is dropped; others answer the change within `TENANT_CACHE_MS`.
 */
export async function createOrUpdateThirdPartyConfig(
  deps: Pick<Deps, 'tenants' | 'tenantConfigs' | 'clock'>,
  tenantId: string,
  provider: ThirdPartyProvider,
  skipValidation: boolean,
): Promise<{ status: 'OK'; createdNew: boolean }> {
  if (tooLarge(provider)) throw invalidConfig('the provider is too large');
  try {
    return await retryOnRace('Writing the third-party provider', async () => {
      const tenant = await deps.tenantConfigs.getTenantConfig(tenantId);
      // `public` always exists; its item is made with its first provider.
      if (!tenant && tenantId !== PUBLIC_TENANT) throw new InvalidInputError(TENANT_GONE);
      const stored = tenant?.providers ?? [];
      const at = stored.findIndex((p) => p.thirdPartyId === provider.thirdPartyId);
      const next = at < 0 ? [...stored, provider] : stored.map((p, i) => (i === at ? provider : p));
      if (next.length > MAX_PROVIDERS) throw invalidConfig('too many providers');
      const problem = skipValidation ? undefined : providersProblem(next);
      if (problem) throw invalidConfig(problem);
      // The core's storage keeps one client per type whatever the validation said.
      if (duplicateClientType(provider)) throw invalidConfig(REASON.duplicateClientType);
      const order = next.map((p) => p.thirdPartyId);
      const createdAt = tenant ? undefined : deps.clock.now();
      const written = await deps.tenantConfigs.putProvider(tenantId, tenant?.providersVersion ?? 0, order, provider, createdAt);
      return written === 'OK' ? { status: 'OK' as const, createdNew: at < 0 } : undefined;
    });
  } finally {
    forgetTenant(deps, tenantId);
  }
}
