import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { getTenantConfig } from '../../lib/recipes/multitenancy/tenants';

/** `GET [/<tenantId>]/recipe/multitenancy/tenant/v2`. */
export const handle: ApiHandler = (req, deps) => getTenantConfig(deps, req.tenantId);
export const handler = createHttpHandler('tenant-get', {}, handle);
