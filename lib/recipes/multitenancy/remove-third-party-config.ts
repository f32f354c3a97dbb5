import { retryOnRace, type Deps } from '../deps';
import { InvalidInputError } from '../errors';
import { invalidConfig, providersProblem } from './provider-config';
import { forgetTenant } from './tenant-cache';
import { PUBLIC_TENANT, TENANT_GONE } from './tenants';

/**
 * `POST [/<t>]/recipe/multitenancy/config/thirdparty/remove` (SPEC §22, the core's
 * `RemoveThirdPartyConfigAPI`): removes the tenant's provider of that id (`didConfigExist`). As the
 * core, the list it leaves is validated like any change's (so a provider stored with
 * `skipValidation` that the validation refuses blocks removing the others, not itself).
 */
export async function removeThirdPartyConfig(
  deps: Pick<Deps, 'tenants' | 'tenantConfigs'>,
  tenantId: string,
  thirdPartyId: string,
): Promise<{ status: 'OK'; didConfigExist: boolean }> {
  try {
    return await retryOnRace('Removing the third-party provider', async () => {
      const tenant = await deps.tenantConfigs.getTenantConfig(tenantId);
      if (!tenant && tenantId !== PUBLIC_TENANT) throw new InvalidInputError(TENANT_GONE);
      const stored = tenant?.providers ?? [];
      const rest = stored.filter((p) => p.thirdPartyId !== thirdPartyId);
      const problem = providersProblem(rest);
      if (problem) throw invalidConfig(problem);
      if (!tenant || rest.length === stored.length) return { status: 'OK' as const, didConfigExist: false };
      const order = rest.map((p) => p.thirdPartyId);
      const written = await deps.tenantConfigs.removeProvider(tenantId, tenant.providersVersion, order, thirdPartyId);
      return written === 'OK' ? { status: 'OK' as const, didConfigExist: true } : undefined;
    });
  } finally {
    forgetTenant(deps, tenantId);
  }
}
