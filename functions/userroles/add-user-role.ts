import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { roleOf } from '../../lib/http/userroles-input';
import { addRoleToUser } from '../../lib/recipes/userroles/add-role-to-user';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `PUT /<tenant>/recipe/user/role` `{"userId","role"}`. */
export const handle: ApiHandler<'roles'> = (req, deps) => addRoleToUser(deps, req.tenantId, requiredString(req.body, 'userId'), roleOf(req.body));
export const handler = createHttpHandler('userroles-add-user-role', { roles: DynamoRoleStore }, handle);
