/**
 * The bulk-import engine's waits (SPEC §15), the defaults of `Config.bulkImport`: constants of
 * their own so that configuration, which every function loads, does not bundle the worker.
 */

/** A row `NEW` or `PROCESSING` unchanged this long is handed to the worker again by the sweeper. */
export const STALE_AFTER_MS = 10 * 60 * 1000;
/**
 * A row DynamoDB refused for load (`isThrottlingError`: the table or an index short of capacity)
 * is tried again in the same invocation, after 100 ms doubling up to 5 s (jittered), while the
 * invocation has run less than this; past it, its record is handed back to the stream. Either way
 * the row is not marked: nothing was written, so the refusal is not an attempt that counts
 * towards `MAX_ATTEMPTS`. The table's capacity sets the pace of an import and never fails a user.
 * The worker's timeout (120 s) leaves room for the last wait and the lane's other rows.
 */
export const THROTTLED_RETRY_WINDOW_MS = 60_000;
