import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { countPasswordMigrations } from '../../lib/recipes/emailpassword/count-password-migrations';

/** `GET /recipe/user/passwordmigration/count` (SPEC §16). */
export const handle: ApiHandler = (req, deps) => countPasswordMigrations(deps, req.tenantId);
export const handler = createHttpHandler('emailpassword-password-migration-count', handle);
