import { statusParam } from '../../lib/http/bulkimport-input';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { countBulkRows } from '../../lib/recipes/bulkimport/rows';

/** `GET /bulk-import/users/count?status=` (SPEC §15). */
export const handle: ApiHandler = (req, deps) => countBulkRows(deps, statusParam(req.query));
export const handler = createHttpHandler('bulkimport-count', handle);
