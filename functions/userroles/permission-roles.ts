import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { nameParam } from '../../lib/http/userroles-input';
import { getRolesThatHavePermission } from '../../lib/recipes/userroles/get-roles-that-have-permission';

/** `GET /recipe/permission/roles?permission=`. */
export const handle: ApiHandler = (req, deps) => getRolesThatHavePermission(deps, nameParam(req.query, 'permission'));
export const handler = createHttpHandler('userroles-permission-roles', handle);
