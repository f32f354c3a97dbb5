import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredTenantId } from '../../lib/http/tenant-input';
import { createTenant } from '../../lib/recipes/multitenancy/tenants';

/** `PUT /recipe/multitenancy/tenant/v2`. */
export const handle: ApiHandler = (req, deps) => createTenant(deps, requiredTenantId(req.body));
export const handler = createHttpHandler('tenant-create', {}, handle);
