import type { Logger } from '../../log/logger';
import { inPool } from '../../pool';
import { describeError } from '../../log/logger';
import { isThrottlingError, whileThrottled } from '../../storage/errors';
import type { BulkRowRef } from '../../storage/ports/bulk-import';
import type { BulkRowHandOver } from '../../storage/ports/bulk-worker';
import { BULK_IMPORT_STATUSES, type BulkImportRow } from '../../storage/model';
import { MetricUnit, recordMetrics } from '../../log/metrics';
import type { Deps } from '../deps';
import { importBulkUser } from './import-user';
import { LaneRoles } from './lane-roles';
import { STALE_AFTER_MS, THROTTLED_RETRY_WINDOW_MS } from './limits';

type WorkerDeps = Pick<Deps, 'userAccounts' | 'bulkUserImport' | 'bulkWorker' | 'metadata' | 'roleReader' | 'config' | 'clock'>;

/** Lanes one invocation works on at once (each lane's rows one after another). */
export const LANES_IN_FLIGHT = 16;
/** A row whose import ended in an internal error this often is failed by the sweeper. */
export const MAX_ATTEMPTS = 3;
/** Rows the sweeper handles per run. */
export const SWEEP_LIMIT = 1000;

export type RowOutcome = 'IMPORTED' | 'FAILED' | 'SKIPPED';

/**
 * Imports one staged row (SPEC §15): its user in one transaction that also deletes the row, or
 * the row marked `FAILED` with the core's text. A row gone or already failed is skipped, so a
 * record handed over twice does nothing the second time. An internal error marks the row
 * `PROCESSING` (one attempt more) and is thrown, for the stream to hand the row over again; a
 * refusal for load (`isThrottlingError`) is thrown without marking anything.
 * `seen` is the row as the stream record showed it: it saves reading the row, and every write is
 * conditional on the status it shows; when the row has moved since (an attempt that ended in an
 * internal error marked it `PROCESSING`), it is read and tried again.
 */
export async function processRow(deps: WorkerDeps, id: string, laneRoles = new LaneRoles(deps), seen?: BulkImportRow): Promise<RowOutcome> {
  let row = seen ?? (await deps.bulkWorker.getRow(id));
  for (let fresh = seen === undefined; ; fresh = true) {
    if (!row || row.status === 'FAILED') return 'SKIPPED';
    const ref: BulkRowRef = { id, status: row.status };
    try {
      const outcome = await importBulkUser(deps, row.user, ref, laneRoles);
      // Every write below is conditional on the row's status: `ROW_GONE` from a status the stream
      // record showed may be a row that moved since, so the row is read and tried again.
      let done: 'OK' | 'ROW_GONE' = 'ROW_GONE';
      if (outcome.status === 'FAILED') done = await deps.bulkWorker.failRow(ref, outcome.errors.join(' '), deps.clock.now());
      else if (outcome.status === 'OK') done = outcome.rowDone ? 'OK' : await deps.bulkWorker.finishRow(ref);
      if (done === 'OK') return outcome.status === 'FAILED' ? 'FAILED' : 'IMPORTED';
      if (fresh) return 'SKIPPED';
      row = await deps.bulkWorker.getRow(id);
    } catch (err) {
      // Refused for load: nothing was written, and the caller waits and tries again.
      if (isThrottlingError(err)) throw err;
      const marked = await deps.bulkWorker.markProcessing(ref, deps.clock.now()).catch(() => undefined);
      if (marked === 'ROW_GONE' && !fresh) {
        // The record's status was old: count the attempt on the row as it is.
        const now = await deps.bulkWorker.getRow(id).catch(() => undefined);
        if (now && now.status !== 'FAILED') await deps.bulkWorker.markProcessing({ id, status: now.status }, deps.clock.now()).catch(() => undefined);
      }
      throw err;
    }
  }
}

/**
 * The rows of an invocation in flight at once, across its lanes: halved at each wait for capacity
 * and grown back by one for about as many rows done (additive increase, multiplicative decrease),
 * so a worker DynamoDB refuses sends less, and what else writes to the table (staging, sign-ins)
 * gets through, instead of every lane trying again at once.
 */
export class CapacityGate {
  private inFlight = 0;
  private limit: number;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {
    this.limit = max;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    while (this.inFlight >= Math.floor(this.limit)) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.inFlight++;
    try {
      return await work();
    } finally {
      this.inFlight--;
      this.waiting.shift()?.();
    }
  }

  refused(): void {
    this.limit = Math.max(1, this.limit / 2);
  }

  done(): void {
    this.limit = Math.min(this.max, this.limit + 1 / this.limit);
  }
}

/**
 * Handles the rows a batch of stream records hands over (`BulkRowHandOver`): grouped by lane, the
 * lanes at once and each lane's rows in order, so a lane's counter has one writer. A row DynamoDB
 * refuses for load is tried again after a wait (`THROTTLED_RETRY_WINDOW_MS`). A lane stops at its
 * first internal error, or refusal past that window; that hand-over's `recordId` is reported
 * (Lambda's batch item failures), and the stream hands it and what follows over again (rows done
 * by then are skipped).
 */
export async function processRecords(
  deps: WorkerDeps,
  handOvers: readonly BulkRowHandOver[],
  log: Logger,
  throttledRetryWindowMs = THROTTLED_RETRY_WINDOW_MS,
): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const lanes = new Map<number, BulkRowHandOver[]>();
  for (const handOver of handOvers) {
    const lane = lanes.get(handOver.lane);
    if (lane) lane.push(handOver);
    else lanes.set(handOver.lane, [handOver]);
  }
  const started = Date.now();
  const failures: { itemIdentifier: string }[] = [];
  const counts: Record<RowOutcome, number> = { IMPORTED: 0, FAILED: 0, SKIPPED: 0 };
  let throttled = 0;
  // Roles are read once per invocation, and checked on each lane's copy of them.
  const laneRoles = new LaneRoles(deps);
  const gate = new CapacityGate(LANES_IN_FLIGHT);
  await inPool([...lanes.values()], LANES_IN_FLIGHT, async (lane) => {
    for (const { id, recordId, seen } of lane) {
      try {
        // Tried again after a wait while DynamoDB refuses it for load, within the window.
        const outcome = await gate.run(() =>
          whileThrottled(
            () => processRow(deps, id, laneRoles, seen),
            started + throttledRetryWindowMs,
            () => {
              throttled++;
              gate.refused();
            },
          ),
        );
        gate.done();
        counts[outcome]++;
      } catch (err) {
        if (isThrottlingError(err)) log.warn('bulk row handed back to the stream: storage still throttled', { rowId: id, ...describeError(err) });
        else log.error('bulk row import failed', { rowId: id, ...describeError(err) });
        failures.push({ itemIdentifier: recordId });
        break;
      }
    }
  });
  log.info('bulk rows processed', {
    records: handOvers.length,
    ...counts,
    failures: failures.length,
    throttled,
    lanes: lanes.size,
    durationMs: Date.now() - started,
  });
  // Imports per minute and failures, on the migration dashboard; internal errors are handed over again.
  recordMetrics(
    [
      { name: 'BulkRowsImported', value: counts.IMPORTED, unit: MetricUnit.Count },
      { name: 'BulkRowsFailed', value: counts.FAILED, unit: MetricUnit.Count },
      { name: 'BulkRowErrors', value: failures.length, unit: MetricUnit.Count },
      // Waits for capacity: the table sets the pace (its ThrottledRequests show where).
      { name: 'BulkRowThrottles', value: throttled, unit: MetricUnit.Count },
    ],
    {},
  );
  return { batchItemFailures: failures };
}

/**
 * The rows left by status, as metrics (the dashboard's "rows left"): the sweeper writes them after
 * each sweep (every 5 minutes in AWS), apart from the sweep, so a failed count never hides what
 * the sweep did.
 */
export async function recordRowsLeft(deps: Pick<Deps, 'bulkImport'>): Promise<void> {
  const counts = await deps.bulkImport.countRowsByStatus();
  recordMetrics(
    BULK_IMPORT_STATUSES.map((status) => ({ name: `BulkRowsLeft${status[0]}${status.slice(1).toLowerCase()}`, value: counts[status], unit: MetricUnit.Count })),
    {},
  );
}

/**
 * The sweeper (SPEC §15: a row left `NEW` or `PROCESSING` by a crash is picked up again within
 * minutes): rows unchanged for `STALE_AFTER_MS` are handed to the worker again, and a row that
 * already ended in an internal error `MAX_ATTEMPTS` times is failed with a sentence saying so.
 */
export async function sweepRows(deps: Pick<Deps, 'bulkWorker' | 'clock'>, staleAfterMs = STALE_AFTER_MS): Promise<{ redriven: number; failed: number }> {
  const now = deps.clock.now();
  let redriven = 0;
  let failed = 0;
  for (const row of await deps.bulkWorker.staleRows(now - staleAfterMs, SWEEP_LIMIT)) {
    const ref: BulkRowRef = { id: row.user.id, status: row.status };
    if ((row.attempts ?? 0) >= MAX_ATTEMPTS) {
      const text = `The import of this user ended in an internal error ${row.attempts} times: see the worker's log for the row id, then stage the user again.`;
      if ((await deps.bulkWorker.failRow(ref, text, now)) === 'OK') failed++;
    } else if ((await deps.bulkWorker.redrive(ref, now)) === 'OK') {
      redriven++;
    }
  }
  return { redriven, failed };
}
