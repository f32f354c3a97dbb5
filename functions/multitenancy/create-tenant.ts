import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredTenantId, tenantFactorsChange } from '../../lib/http/tenant-input';
import { createOrUpdateTenant } from '../../lib/recipes/multitenancy/tenants';

/** `PUT /recipe/multitenancy/tenant/v2`. */
export const handle: ApiHandler = (req, deps) => createOrUpdateTenant(deps, requiredTenantId(req.body), tenantFactorsChange(req.body));
export const handler = createHttpHandler('tenant-create', {}, handle);
