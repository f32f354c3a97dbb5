import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { importUserNow } from '../../lib/recipes/bulkimport/import-now';

/** `POST /bulk-import/import` with one bulk user as the body (SPEC §15). */
export const handle: ApiHandler = (req, deps) => importUserNow(deps, req.body);
export const handler = createHttpHandler('bulkimport-import', handle);
