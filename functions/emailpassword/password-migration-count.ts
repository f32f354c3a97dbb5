import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { countPasswordMigrations } from '../../lib/recipes/emailpassword/count-password-migrations';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `GET /recipe/user/passwordmigration/count` (SPEC §16). */
export const handle: ApiHandler<'users'> = (req, deps) => countPasswordMigrations(deps, req.tenantId);
export const handler = createHttpHandler('emailpassword-password-migration-count', { users: DynamoUserStore }, handle);
