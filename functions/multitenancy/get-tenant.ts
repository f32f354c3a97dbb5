import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { getTenantConfig } from '../../lib/recipes/multitenancy/tenants';
import { DynamoTenantConfigStore } from '../../lib/storage/dynamo/dynamo-tenant-config-store';

/** `GET [/<tenantId>]/recipe/multitenancy/tenant/v2`: the tenant with its providers (they carry client secrets: never logged). */
export const handle: ApiHandler<'tenantConfigs'> = (req, deps) => getTenantConfig(deps, req.tenantId);
export const handler = createHttpHandler('tenant-get', { tenantConfigs: DynamoTenantConfigStore }, handle);
