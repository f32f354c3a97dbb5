import { removeIdsOf } from '../../lib/http/bulkimport-input';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { removeBulkRows } from '../../lib/recipes/bulkimport/rows';
import { DynamoBulkImportStore } from '../../lib/storage/dynamo/dynamo-bulk-import-store';

/** `POST /bulk-import/users/remove` `{"ids":[…]}` (SPEC §15). */
export const handle: ApiHandler<'bulkImport'> = (req, deps) => removeBulkRows(deps, removeIdsOf(req.body));
export const handler = createHttpHandler('bulkimport-remove', { bulkImport: DynamoBulkImportStore }, handle);
