import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { associatedUserId } from '../../lib/http/tenant-input';
import { associateUserToTenant } from '../../lib/recipes/multitenancy/associate-user-to-tenant';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST [/<tenantId>]/recipe/multitenancy/tenant/user` `{"recipeUserId"}` (SPEC §22). */
export const handle: ApiHandler<'users'> = (req, deps) => associateUserToTenant(deps, req.tenantId, associatedUserId(req.body));
export const handler = createHttpHandler('tenant-user-associate', { users: DynamoUserStore }, handle);
