import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredTenantId } from '../../lib/http/tenant-input';
import { removeTenant } from '../../lib/recipes/multitenancy/tenants';

/** `POST /recipe/multitenancy/tenant/remove`. */
export const handle: ApiHandler = (req, deps) => removeTenant(deps, requiredTenantId(req.body));
export const handler = createHttpHandler('tenant-remove', {}, handle);
