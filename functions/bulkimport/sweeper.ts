import { createRuntimeDeps } from '../../lib/http/runtime';
import { createLogger } from '../../lib/log/logger';
import { recordRowsLeft, sweepRows } from '../../lib/recipes/bulkimport/worker';
import { DynamoBulkImportStore } from '../../lib/storage/dynamo/dynamo-bulk-import-store';
import { DynamoBulkWorkerStore } from '../../lib/storage/dynamo/dynamo-bulk-worker-store';

const loadDeps = createRuntimeDeps({ bulkImport: DynamoBulkImportStore, bulkWorker: DynamoBulkWorkerStore });
const log = createLogger({ function: 'bulkimport-sweeper' });

/** Runs on a schedule: hands rows a crash left `NEW` or `PROCESSING` to the worker again (SPEC §15). */
export async function handler(): Promise<{ redriven: number; failed: number }> {
  const deps = await loadDeps();
  const result = await sweepRows(deps, deps.config.bulkImport.staleAfterMs);
  log.info('bulk rows swept', result);
  await recordRowsLeft(deps);
  return result;
}
