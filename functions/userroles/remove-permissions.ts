import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { permissionsOf, roleOf } from '../../lib/http/userroles-input';
import { removePermissionsFromRole } from '../../lib/recipes/userroles/remove-permissions-from-role';

/** `POST /recipe/role/permissions/remove` `{"role","permissions"?}` (absent: all of them). */
export const handle: ApiHandler = (req, deps) => removePermissionsFromRole(deps, roleOf(req.body), permissionsOf(req.body));
export const handler = createHttpHandler('userroles-remove-permissions', handle);
