import type { BulkRowRef } from '../ports/bulk-import';
import type { BulkUserWriteResult } from '../ports/bulk-user-import';
import { DynamoBulkUserImportStore } from './dynamo-bulk-user-import-store';
import { rowDone } from './dynamo-bulk-worker-store';
import type { TaggedWrite } from './transact';

/**
 * Importing one bulk user as the worker does (see `BulkUserImportStore`): with its staged row,
 * deleted and counted in the same transaction. Apart from `DynamoBulkUserImportStore`, so that
 * `POST /bulk-import/import`, which imports no row, bundles none of the rows' writes.
 */
export class DynamoBulkRowImportStore extends DynamoBulkUserImportStore {
  protected override rowWrites(row: BulkRowRef): TaggedWrite<BulkUserWriteResult>[] {
    return rowDone(this.ctx, row);
  }
}
