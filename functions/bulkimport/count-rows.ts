import { statusParam } from '../../lib/http/bulkimport-input';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { countBulkRows } from '../../lib/recipes/bulkimport/rows';
import { DynamoBulkImportStore } from '../../lib/storage/dynamo/dynamo-bulk-import-store';

/** `GET /bulk-import/users/count?status=` (SPEC §15). */
export const handle: ApiHandler<'bulkImport'> = (req, deps) => countBulkRows(deps, statusParam(req.query));
export const handler = createHttpHandler('bulkimport-count', { bulkImport: DynamoBulkImportStore }, handle);
