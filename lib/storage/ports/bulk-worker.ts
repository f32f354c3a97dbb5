import type { BulkImportRow, RoleRecord } from '../model';
import type { BulkRowRef } from './bulk-import';

/**
 * What only the worker and the sweeper do to staged rows (see `BulkImportStore` for the rows and
 * their counters): every write is conditional on the status read, and counts on the row's lane's
 * counter. A port of its own so that the bulk API's functions and the synchronous import, which
 * run none of it, do not bundle it.
 */
export interface BulkWorkerStore {
  /**
   * Makes sure the lane's copy of a role (which the worker's imports of that lane check instead of
   * the role itself) is this incarnation; `false` when the role is no longer it.
   */
  ensureRoleLane(role: RoleRecord, lane: number): Promise<boolean>;
  /** A row, read consistently. */
  getRow(id: string): Promise<BulkImportRow | undefined>;
  /** Deletes a row whose user is already here, with its count; `ROW_GONE` if it moved or went. */
  finishRow(row: BulkRowRef): Promise<'OK' | 'ROW_GONE'>;
  /** Marks a row `FAILED` with the reason (its passwords dropped), with its counts; `ROW_GONE` if it moved or went. */
  failRow(row: BulkRowRef, errorMessage: string, now: number): Promise<'OK' | 'ROW_GONE'>;
  /** Marks a row `PROCESSING` after an attempt that did not finish (and counts the attempt). */
  markProcessing(row: BulkRowRef, now: number): Promise<'OK' | 'ROW_GONE'>;
  /** Rows `NEW` or `PROCESSING` last changed before `before` (at most `limit`), oldest first. */
  staleRows(before: number, limit: number): Promise<BulkImportRow[]>;
  /** Touches a row so that the stream hands it to the worker again (`ROW_GONE` if it moved or went). */
  redrive(row: BulkRowRef, now: number): Promise<'OK' | 'ROW_GONE'>;
}

/**
 * A staged row handed to the worker (staged, or handed on again by the sweeper), as the adapter
 * reads it from the change feed that carries it (the table's stream). Rows of one lane come in the
 * order they changed.
 */
export interface BulkRowHandOver {
  readonly id: string;
  /** The row's lane (see `BULK_LANES`): the worker handles a lane's rows one at a time. */
  readonly lane: number;
  /** What names this hand-over when the worker gives it back to be handed over again (Lambda's batch item failure). */
  readonly recordId: string;
  /** The row as it was when handed over, when the feed shows it whole: saves reading it. */
  readonly seen?: BulkImportRow;
}
