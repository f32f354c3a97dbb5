import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { roleOf } from '../../lib/http/userroles-input';
import { removeRole } from '../../lib/recipes/userroles/remove-role';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `POST /recipe/role/remove` `{"role"}`. */
export const handle: ApiHandler<'roles'> = (req, deps) => removeRole(deps, roleOf(req.body));
export const handler = createHttpHandler('userroles-remove-role', { roles: DynamoRoleStore }, handle);
