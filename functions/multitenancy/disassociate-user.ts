import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { associatedUserId } from '../../lib/http/tenant-input';
import { disassociateUserFromTenant } from '../../lib/recipes/multitenancy/disassociate-user-from-tenant';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST [/<tenantId>]/recipe/multitenancy/tenant/user/remove` `{"recipeUserId"}` (SPEC §22). */
export const handle: ApiHandler<'users' | 'roles' | 'sessions'> = (req, deps) => disassociateUserFromTenant(deps, req.tenantId, associatedUserId(req.body));
export const handler = createHttpHandler('tenant-user-disassociate', { users: DynamoUserStore, roles: DynamoRoleStore, sessions: DynamoSessionStore }, handle);
