import { knobFrom } from '../../lib/config/config';
import { createRuntimeDeps } from '../../lib/http/runtime';
import { createLogger } from '../../lib/log/logger';
import { recordRowsLeft, STALE_AFTER_MS, sweepRows } from '../../lib/recipes/bulkimport/worker';
import { DynamoBulkImportStore } from '../../lib/storage/dynamo/dynamo-bulk-import-store';
import { DynamoBulkWorkerStore } from '../../lib/storage/dynamo/dynamo-bulk-worker-store';

const loadDeps = createRuntimeDeps({ bulkImport: DynamoBulkImportStore, bulkWorker: DynamoBulkWorkerStore });
const log = createLogger({ function: 'bulkimport-sweeper' });

/** Runs on a schedule: hands rows a crash left `NEW` or `PROCESSING` to the worker again (SPEC §15). */
export async function handler(): Promise<{ redriven: number; failed: number }> {
  // `BULK_STALE_AFTER_MS` shortens the wait (tests); a row is stale after 10 minutes otherwise.
  const deps = await loadDeps();
  const result = await sweepRows(deps, knobFrom(process.env, 'BULK_STALE_AFTER_MS', STALE_AFTER_MS));
  log.info('bulk rows swept', result);
  await recordRowsLeft(deps);
  return result;
}
