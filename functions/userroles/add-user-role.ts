import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { roleOf } from '../../lib/http/userroles-input';
import { addRoleToUser } from '../../lib/recipes/userroles/add-role-to-user';

/** `PUT /<tenant>/recipe/user/role` `{"userId","role"}`. */
export const handle: ApiHandler = (req, deps) => addRoleToUser(deps, req.tenantId, requiredString(req.body, 'userId'), roleOf(req.body));
export const handler = createHttpHandler('userroles-add-user-role', handle);
