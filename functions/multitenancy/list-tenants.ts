import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { listTenants } from '../../lib/recipes/multitenancy/tenants';
import { DynamoTenantConfigStore } from '../../lib/storage/dynamo/dynamo-tenant-config-store';

/** `GET /recipe/multitenancy/tenant/list/v2`: every tenant with its providers (they carry client secrets: never logged). */
export const handle: ApiHandler<'tenantConfigs'> = (_req, deps) => listTenants(deps);
export const handler = createHttpHandler('tenant-list', { tenantConfigs: DynamoTenantConfigStore }, handle);
