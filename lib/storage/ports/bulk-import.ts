import type { BulkImportRow, BulkImportStatus } from '../model';

/** A place in the list of bulk rows (newest first: staging time, then row id). */
export interface BulkRowCursor {
  readonly createdAt: number;
  readonly id: string;
}

/** A row's place in that list: a page that ends with it goes on after it. */
export const cursorOfRow = (row: BulkImportRow): BulkRowCursor => ({ createdAt: row.createdAt, id: row.user.id });

/**
 * Staged bulk-import rows (SPEC §15). Counts are exact: every change of a row's status changes a
 * counter item in the same transaction. The counter items are split by who writes them (staging,
 * removal, the worker's lanes), so writers never contend for one item: a count is the sum over
 * every item of every family, read decrements first, so a count read while rows move may still
 * hold a row that just left, and never misses one that is there.
 */
export interface BulkImportStore {
  /**
   * Stages rows (status `NEW`), in transactions of up to 99 rows with their counter. With
   * `idempotent`, the row ids are the request's own (`requestIds`): a row already there was staged by
   * an earlier try of the same request and is left as it is (not counted again); without, a taken
   * row id is an error.
   */
  stageRows(rows: readonly BulkImportRow[], opts?: { idempotent?: boolean }): Promise<void>;
  /** A page of rows, newest first, of one status or all; `next` only when another page follows. */
  listRows(query: { status?: BulkImportStatus; limit: number; after?: BulkRowCursor }): Promise<{ rows: BulkImportRow[]; next?: BulkRowCursor }>;
  /** How many rows there are in a status, or in all. */
  countRows(status?: BulkImportStatus): Promise<number>;
  /** How many rows there are in each status, from one read of the counters. */
  countRowsByStatus(): Promise<Record<BulkImportStatus, number>>;
  /** Removes rows in any status; the ids removed, and those that named no row. */
  removeRows(ids: readonly string[]): Promise<{ deleted: string[]; invalid: string[] }>;
}

/**
 * A row the worker is handling, as it read it: its id (which carries its lane) and status. Every
 * write of the worker is conditional on the row still being in that status, and counts on the
 * lane's counter (see `BulkImportStore`, `BulkWorkerStore`).
 */
export interface BulkRowRef {
  readonly id: string;
  readonly status: BulkImportStatus;
}
