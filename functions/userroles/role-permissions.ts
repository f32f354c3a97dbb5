import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { nameParam } from '../../lib/http/userroles-input';
import { getPermissionsForRole } from '../../lib/recipes/userroles/get-permissions-for-role';

/** `GET /recipe/role/permissions?role=`. */
export const handle: ApiHandler = (req, deps) => getPermissionsForRole(deps, nameParam(req.query, 'role'));
export const handler = createHttpHandler('userroles-role-permissions', handle);
