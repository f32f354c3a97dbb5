import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { getRolesForUser } from '../../lib/recipes/userroles/get-roles-for-user';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `GET /<tenant>/recipe/user/roles?userId=`. */
export const handle: ApiHandler<'roles'> = (req, deps) => getRolesForUser(deps, req.tenantId, requiredQueryParam(req.query, 'userId'));
export const handler = createHttpHandler('userroles-user-roles', { roles: DynamoRoleStore }, handle);
