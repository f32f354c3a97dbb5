import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseProviderId } from '../../lib/http/provider-input';
import { removeThirdPartyConfig } from '../../lib/recipes/multitenancy/remove-third-party-config';
import { DynamoTenantConfigStore } from '../../lib/storage/dynamo/dynamo-tenant-config-store';

/** `POST [/<tenantId>]/recipe/multitenancy/config/thirdparty/remove` (SPEC §22). */
export const handle: ApiHandler<'tenantConfigs'> = (req, deps) => removeThirdPartyConfig(deps, req.tenantId, parseProviderId(req.body));
export const handler = createHttpHandler('tenant-thirdparty-config-remove', { tenantConfigs: DynamoTenantConfigStore }, handle);
