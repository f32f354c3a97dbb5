import { bulkCursorParam, bulkListLimit, bulkPaginationToken, statusParam } from '../../lib/http/bulkimport-input';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { listBulkRows } from '../../lib/recipes/bulkimport/rows';
import { DynamoBulkImportStore } from '../../lib/storage/dynamo/dynamo-bulk-import-store';

/** `GET /bulk-import/users?status=&limit=&paginationToken=` (SPEC §15). */
export const handle: ApiHandler<'bulkImport'> = async (req, deps) => {
  const limit = bulkListLimit(req.query);
  const status = statusParam(req.query);
  const after = bulkCursorParam(req.query);
  const page = await listBulkRows(deps, { limit, ...(status ? { status } : {}), ...(after ? { after } : {}) });
  return { status: 'OK', users: page.rows, ...(page.next ? { nextPaginationToken: bulkPaginationToken(page.next) } : {}) };
};
export const handler = createHttpHandler('bulkimport-list', { bulkImport: DynamoBulkImportStore }, handle);
