import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredTenantId } from '../../lib/http/tenant-input';
import { removeTenant } from '../../lib/recipes/multitenancy/tenants';
import { DynamoTenantConfigStore } from '../../lib/storage/dynamo/dynamo-tenant-config-store';

/** `POST /recipe/multitenancy/tenant/remove`: the tenant with its providers. */
export const handle: ApiHandler<'tenantConfigs'> = (req, deps) => removeTenant(deps, requiredTenantId(req.body));
export const handler = createHttpHandler('tenant-remove', { tenantConfigs: DynamoTenantConfigStore }, handle);
