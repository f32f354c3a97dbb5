import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { countPasswordMigrations } from '../../lib/recipes/emailpassword/count-password-migrations';
import { DynamoUserLists } from '../../lib/storage/dynamo/dynamo-user-lists';

/** `GET /recipe/user/passwordmigration/count` (SPEC §16). */
export const handle: ApiHandler<'userLists'> = (req, deps) => countPasswordMigrations(deps, req.tenantId);
export const handler = createHttpHandler('emailpassword-password-migration-count', { userLists: DynamoUserLists }, handle);
