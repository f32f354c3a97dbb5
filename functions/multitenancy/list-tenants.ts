import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { listTenants } from '../../lib/recipes/multitenancy/tenants';

/** `GET /recipe/multitenancy/tenant/list/v2`. */
export const handle: ApiHandler = (_req, deps) => listTenants(deps);
export const handler = createHttpHandler('tenant-list', {}, handle);
