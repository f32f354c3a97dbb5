import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { nameParam } from '../../lib/http/userroles-input';
import { getUsersThatHaveRole } from '../../lib/recipes/userroles/get-users-that-have-role';

/** `GET /<tenant>/recipe/role/users?role=`. */
export const handle: ApiHandler = (req, deps) => getUsersThatHaveRole(deps, req.tenantId, nameParam(req.query, 'role'));
export const handler = createHttpHandler('userroles-role-users', handle);
