import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { roleOf } from '../../lib/http/userroles-input';
import { removeRole } from '../../lib/recipes/userroles/remove-role';

/** `POST /recipe/role/remove` `{"role"}`. */
export const handle: ApiHandler = (req, deps) => removeRole(deps, roleOf(req.body));
export const handler = createHttpHandler('userroles-remove-role', handle);
