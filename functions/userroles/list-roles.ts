import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { getRoles } from '../../lib/recipes/userroles/get-roles';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';

/** `GET /recipe/roles`. */
export const handle: ApiHandler<'roles'> = (_req, deps) => getRoles(deps);
export const handler = createHttpHandler('userroles-list-roles', { roles: DynamoRoleStore }, handle);
