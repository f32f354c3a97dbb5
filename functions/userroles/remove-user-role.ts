import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { roleOf } from '../../lib/http/userroles-input';
import { removeUserRole } from '../../lib/recipes/userroles/remove-user-role';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `POST /<tenant>/recipe/user/role/remove` `{"userId","role"}`. */
export const handle: ApiHandler<'roles'> = (req, deps) => removeUserRole(deps, req.tenantId, requiredString(req.body, 'userId'), roleOf(req.body));
export const handler = createHttpHandler('userroles-remove-user-role', { roles: DynamoRoleStore }, handle);
