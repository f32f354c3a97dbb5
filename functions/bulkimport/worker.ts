import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { createRuntimeDeps } from '../../lib/http/runtime';
import { createLogger } from '../../lib/log/logger';
import { processRecords } from '../../lib/recipes/bulkimport/worker';
import { bulkRowHandOversOf } from '../../lib/storage/dynamo/bulk-row-stream';
import { DynamoBulkRowImportStore } from '../../lib/storage/dynamo/dynamo-bulk-row-import-store';
import { DynamoBulkWorkerStore } from '../../lib/storage/dynamo/dynamo-bulk-worker-store';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';
import { DynamoRoleReader } from '../../lib/storage/dynamo/dynamo-role-reader';
import { DynamoUserAccounts } from '../../lib/storage/dynamo/dynamo-user-accounts';

const loadDeps = createRuntimeDeps({
  userAccounts: DynamoUserAccounts,
  bulkUserImport: DynamoBulkRowImportStore,
  bulkWorker: DynamoBulkWorkerStore,
  metadata: DynamoMetadataStore,
  roleReader: DynamoRoleReader,
});
const log = createLogger({ function: 'bulkimport-worker' });

/**
 * The bulk-import worker (SPEC §15): fed by the table's DynamoDB Stream (staged rows, and rows the
 * sweeper hands on), it imports each row's user in one transaction. Locally, `npm start`'s stream
 * poller invokes this very bundle with the same event.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const deps = await loadDeps();
  return processRecords(deps, bulkRowHandOversOf(event.Records), log, deps.config.bulkImport.throttledRetryWindowMs);
}
