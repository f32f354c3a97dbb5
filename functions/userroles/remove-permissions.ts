import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { permissionsOf, roleOf } from '../../lib/http/userroles-input';
import { removePermissionsFromRole } from '../../lib/recipes/userroles/remove-permissions-from-role';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `POST /recipe/role/permissions/remove` `{"role","permissions"?}` (absent: all of them). */
export const handle: ApiHandler<'roles'> = (req, deps) => removePermissionsFromRole(deps, roleOf(req.body), permissionsOf(req.body));
export const handler = createHttpHandler('userroles-remove-permissions', { roles: DynamoRoleStore }, handle);
