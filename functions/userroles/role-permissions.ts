import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { nameParam } from '../../lib/http/userroles-input';
import { getPermissionsForRole } from '../../lib/recipes/userroles/get-permissions-for-role';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `GET /recipe/role/permissions?role=`. */
export const handle: ApiHandler<'roles'> = (req, deps) => getPermissionsForRole(deps, nameParam(req.query, 'role'));
export const handler = createHttpHandler('userroles-role-permissions', { roles: DynamoRoleStore }, handle);
