import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { permissionsOf, roleOf } from '../../lib/http/userroles-input';
import { createOrUpdateRole } from '../../lib/recipes/userroles/create-or-update-role';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `PUT /recipe/role` `{"role","permissions"?}`. */
export const handle: ApiHandler<'roles'> = (req, deps) => createOrUpdateRole(deps, roleOf(req.body), permissionsOf(req.body) ?? []);
export const handler = createHttpHandler('userroles-create-role', { roles: DynamoRoleStore }, handle);
