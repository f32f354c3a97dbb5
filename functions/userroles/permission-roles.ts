import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { nameParam } from '../../lib/http/userroles-input';
import { getRolesThatHavePermission } from '../../lib/recipes/userroles/get-roles-that-have-permission';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `GET /recipe/permission/roles?permission=`. */
export const handle: ApiHandler<'roles'> = (req, deps) => getRolesThatHavePermission(deps, nameParam(req.query, 'permission'));
export const handler = createHttpHandler('userroles-permission-roles', { roles: DynamoRoleStore }, handle);
