import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { getRoles } from '../../lib/recipes/userroles/get-roles';

/** `GET /recipe/roles`. */
export const handle: ApiHandler = (_req, deps) => getRoles(deps);
export const handler = createHttpHandler('userroles-list-roles', handle);
