import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { nameParam } from '../../lib/http/userroles-input';
import { getUsersThatHaveRole } from '../../lib/recipes/userroles/get-users-that-have-role';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `GET /<tenant>/recipe/role/users?role=`. */
export const handle: ApiHandler<'roles'> = (req, deps) => getUsersThatHaveRole(deps, req.tenantId, nameParam(req.query, 'role'));
export const handler = createHttpHandler('userroles-role-users', { roles: DynamoRoleStore }, handle);
