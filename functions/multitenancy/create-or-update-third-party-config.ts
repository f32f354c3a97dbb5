import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseProviderConfig } from '../../lib/http/provider-input';
import { createOrUpdateThirdPartyConfig } from '../../lib/recipes/multitenancy/create-or-update-third-party-config';
import { DynamoTenantConfigStore } from '../../lib/storage/dynamo/dynamo-tenant-config-store';

/** `PUT [/<tenantId>]/recipe/multitenancy/config/thirdparty` (SPEC §22): its body holds client secrets, never logged. */
export const handle: ApiHandler<'tenantConfigs'> = (req, deps) => {
  const { provider, skipValidation } = parseProviderConfig(req.body);
  return createOrUpdateThirdPartyConfig(deps, req.tenantId, provider, skipValidation);
};
export const handler = createHttpHandler('tenant-thirdparty-config-put', { tenantConfigs: DynamoTenantConfigStore }, handle);
