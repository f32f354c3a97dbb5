import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { inPool } from '../../pool';
import { isThrottlingError, whileThrottled } from '../errors';
import { ATTR, BULK_LANES, BULK_SHARDS, bulkLaneOf, INDEX, type BulkCounterFamily, type Key } from '../keys';
import * as keys from '../keys';
import { BULK_IMPORT_STATUSES, type BulkImportRow, type BulkImportStatus, type BulkUser } from '../model';
import { cursorOfRow, type BulkImportStore, type BulkRowCursor } from '../ports/bulk-import';
import { batchGetAll, ifAbsent, MAX_TRANSACTION_ITEMS, writeAtomically, type DynamoContext, type TaggedWrite, type TxItem } from './transact';

export const BULK_ROW_TYPE = 'bulkRow';
export const BULK_COUNTER_TYPE = 'bulkCounter';
export const BULK_STAGED_TYPE = 'bulkStaged';
/**
 * How long the mark of a chunk an idempotent staging request staged is kept (DynamoDB's TTL
 * deletes it some time after): a try of the request sent again within it stages none of the
 * chunk's rows, also when they were imported or removed since.
 */
export const STAGED_MARK_TTL_S = 24 * 60 * 60;

/**
 * A staging transaction holds at most this many bytes of rows: DynamoDB takes 4 MB per
 * transaction, and a POST of 6 MB may hold a few large users.
 */
const MAX_STAGING_TRANSACTION_BYTES = 3_500_000;
/** Staging transactions of one request in flight at once. */
const STAGING_CONCURRENCY = 8;
/**
 * How long a staging request goes on trying chunks DynamoDB refuses for load before it answers
 * 503: well inside the staging function's 29 s (validation of 10,000 users takes a few seconds).
 */
export const STAGING_THROTTLED_WINDOW_MS = 15_000;
/** The fewest rows a staging transaction refused for capacity is split down to. */
const MIN_STAGING_CHUNK = 12;
/** Row removals in flight at once. */
const REMOVAL_CONCURRENCY = 16;
/** A removal that keeps finding its row changed gives up after this many reads. */
const REMOVAL_TRIES = 8;

const randomShard = (): number => Math.floor(Math.random() * BULK_SHARDS);
/** The shard of a row's status-index partition, by its id. */
export const statusShard = (rowId: string): number => (bulkLaneOf(rowId) ?? 0) % BULK_SHARDS;

/** The key of a row, by its id (which carries its lane). */
export function rowKey(rowId: string): Key {
  const lane = bulkLaneOf(rowId);
  if (lane === undefined) throw new Error(`${rowId} is not a bulk row id`);
  return keys.bulkRow(lane, rowId);
}

/** The stored item of a row; the user is kept as JSON text (metadata may hold anything JSON holds). */
export function bulkRowItem(row: BulkImportRow): Record<string, unknown> {
  return {
    ...rowKey(row.user.id),
    type: BULK_ROW_TYPE,
    id: row.user.id,
    status: row.status,
    user: JSON.stringify(row.user),
    errorMessage: row.errorMessage,
    primaryUserId: row.primaryUserId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    attempts: row.attempts,
    [ATTR.gsi1pk]: keys.bulkRowsWithStatus(row.status, statusShard(row.user.id)),
    [ATTR.gsi1sk]: keys.bulkRowPosition(row.createdAt, row.user.id),
  };
}

/** The mark of a chunk an idempotent request staged: its first row's id, how many rows, when it goes. */
function stagedMarkItem(chunk: readonly BulkImportRow[]): Record<string, unknown> {
  const first = chunk[0];
  return {
    ...keys.bulkStaged(first.user.id),
    type: BULK_STAGED_TYPE,
    id: first.user.id,
    rows: chunk.length,
    [ATTR.ttl]: Math.floor(first.createdAt / 1000) + STAGED_MARK_TTL_S,
  };
}

export function bulkRowFromItem(item: Record<string, unknown>): BulkImportRow {
  return {
    user: JSON.parse(item.user as string) as BulkUser,
    status: item.status as BulkImportStatus,
    ...(typeof item.errorMessage === 'string' ? { errorMessage: item.errorMessage } : {}),
    ...(typeof item.primaryUserId === 'string' ? { primaryUserId: item.primaryUserId } : {}),
    createdAt: item.createdAt as number,
    updatedAt: item.updatedAt as number,
    ...(typeof item.attempts === 'number' ? { attempts: item.attempts } : {}),
  };
}

/** The condition that a row is still in the status read. */
export function ifStatus(status: BulkImportStatus, values: Record<string, unknown> = {}) {
  return {
    ConditionExpression: '#status = :status',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':status': status, ...values },
  };
}

/** The counter of a row's lane: only the worker, which handles a lane's rows one at a time, writes it. */
export const laneCounter = (rowId: string): Key => keys.bulkCounter('LANE', bulkLaneOf(rowId) ?? 0);

/** An update adding signed amounts to the counts of a counter item. */
export function counterUpdate(ctx: DynamoContext, key: Key, deltas: Partial<Record<BulkImportStatus, number>>): TxItem {
  const entries = Object.entries(deltas).filter(([, n]) => n !== 0);
  return {
    Update: {
      TableName: ctx.tableName,
      Key: key,
      UpdateExpression: `SET #type = :type ADD ${entries.map((_, i) => `#s${i} :n${i}`).join(', ')}`,
      ExpressionAttributeNames: { '#type': 'type', ...Object.fromEntries(entries.map(([status], i) => [`#s${i}`, status])) },
      ExpressionAttributeValues: { ':type': BULK_COUNTER_TYPE, ...Object.fromEntries(entries.map(([, n], i) => [`:n${i}`, n])) },
    },
  };
}

/**
 * The first `want` rows of one status-index partition, newest first, older than `after`; with
 * `changedBefore`, only rows last changed before then (the sweeper's stale rows).
 */
export async function listPartition(
  ctx: DynamoContext,
  pk: string,
  want: number,
  after: BulkRowCursor | undefined,
  changedBefore?: number,
): Promise<Record<string, unknown>[]> {
  const entries: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await ctx.doc.send(
      new QueryCommand({
        TableName: ctx.tableName,
        IndexName: INDEX.usersByTenant,
        KeyConditionExpression: after ? '#pk = :pk AND #sk < :after' : '#pk = :pk',
        ...(changedBefore !== undefined ? { FilterExpression: 'updatedAt < :before' } : {}),
        ExpressionAttributeNames: { '#pk': ATTR.gsi1pk, ...(after ? { '#sk': ATTR.gsi1sk } : {}) },
        ExpressionAttributeValues: {
          ':pk': pk,
          ...(after ? { ':after': keys.bulkRowPosition(after.createdAt, after.id) } : {}),
          ...(changedBefore !== undefined ? { ':before': changedBefore } : {}),
        },
        ScanIndexForward: false,
        // A filtered Query counts items before the filter: read whole pages then.
        ...(changedBefore === undefined ? { Limit: want - entries.length } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of out.Items ?? []) if (entries.length < want) entries.push(item);
    startKey = out.LastEvaluatedKey;
  } while (startKey && entries.length < want);
  return entries;
}

/** A row, read consistently; `undefined` when there is none or the id is not a row id. */
export async function readRow(ctx: DynamoContext, id: string): Promise<BulkImportRow | undefined> {
  if (bulkLaneOf(id) === undefined) return undefined;
  const [item] = await batchGetAll(ctx, [rowKey(id)]);
  return item ? bulkRowFromItem(item) : undefined;
}

/**
 * Staged rows and their exact counts (see `BulkImportStore`). Rows are items `BULK#<lane>` /
 * `ROW#<id>`; the status index (gsi1) lists them newest first in 16 shards per status; counter
 * items `BULKCOUNT#<family>#<n>` hold signed counts per status. Importing a user is
 * `DynamoBulkUserImportStore`, what the worker and the sweeper do to rows `DynamoBulkWorkerStore`:
 * each function bundles only the classes it names (esbuild keeps every method of a class).
 */
export class DynamoBulkImportStore implements BulkImportStore {
  constructor(private readonly ctx: DynamoContext) {}

  async stageRows(rows: readonly BulkImportRow[], opts: { idempotent?: boolean } = {}): Promise<void> {
    const idempotent = opts.idempotent === true;
    // A transaction holds the rows, their counter and, for an idempotent request, the chunk's mark.
    const maxRows = MAX_TRANSACTION_ITEMS - (idempotent ? 2 : 1);
    const chunks: BulkImportRow[][] = [];
    let bytes = 0;
    for (const row of rows) {
      const size = Buffer.byteLength(JSON.stringify(row.user), 'utf8');
      const last = chunks[chunks.length - 1];
      if (!last || last.length >= maxRows || bytes + size > MAX_STAGING_TRANSACTION_BYTES) {
        chunks.push([row]);
        bytes = size;
      } else {
        last.push(row);
        bytes += size;
      }
    }
    const until = Date.now() + STAGING_THROTTLED_WINDOW_MS;
    /**
     * A chunk in one transaction. Refused for capacity (writeAtomically has tried it 5 times), it
     * is staged as two halves: a transaction of fewer rows touches fewer partitions and needs fewer
     * units at once, so it gets through a table the worker keeps busy. At `MIN_STAGING_CHUNK` rows
     * it is tried again after a wait, until the window ends: a request answered 503 half staged
     * and sent again without an idempotency key would have the chunks that went in staged twice.
     */
    const stageChunk = async (chunk: readonly BulkImportRow[]): Promise<void> => {
      if (chunk.length <= MIN_STAGING_CHUNK) return whileThrottled(() => this.stageTransaction(chunk, idempotent), until);
      try {
        await this.stageTransaction(chunk, idempotent);
      } catch (err) {
        if (!isThrottlingError(err) || Date.now() >= until) throw err;
        const half = Math.ceil(chunk.length / 2);
        await stageChunk(chunk.slice(0, half));
        await stageChunk(chunk.slice(half));
      }
    };
    await inPool(chunks, STAGING_CONCURRENCY, stageChunk);
  }

  /**
   * Rows and their count in one transaction. An idempotent request's transaction also puts the
   * chunk's mark (its first row's id, how many rows), if absent: when an earlier try of the request
   * (the same ids, `requestIds`) staged some of these rows, a condition fails, and the marks and
   * rows there say which; the rest is staged in runs of its own. So a try answered 503 part way,
   * or whose answer was lost, is sent again without staging a user twice, also one imported or
   * removed since; a row still there is enough once its mark has expired.
   */
  private async stageTransaction(chunk: readonly BulkImportRow[], idempotent: boolean): Promise<void> {
    const writes: TaggedWrite<string>[] = chunk.map((row) => ({
      item: { Put: { TableName: this.ctx.tableName, Item: bulkRowItem(row), ...ifAbsent } },
      onConditionFailed: row.user.id,
    }));
    if (idempotent)
      writes.push({ item: { Put: { TableName: this.ctx.tableName, Item: stagedMarkItem(chunk), ...ifAbsent } }, onConditionFailed: chunk[0].user.id });
    writes.push({ item: counterUpdate(this.ctx, keys.bulkCounter('STAGE', randomShard()), { NEW: chunk.length }), onConditionFailed: '' });
    const result = await writeAtomically(this.ctx, writes);
    if (result.ok) return;
    const runs = idempotent ? await this.unstagedRuns(chunk) : [chunk];
    // Random row ids (or, for an idempotent request, rows no earlier try staged): a taken one is a
    // broken random source, not a race.
    if (runs.length === 1 && runs[0].length === chunk.length) throw new Error(`Bulk row id ${result.failed} is taken`);
    for (const run of runs) await this.stageTransaction(run, true);
  }

  /** The runs of a chunk's rows that no earlier try staged: not in a mark's run, and not there. */
  private async unstagedRuns(chunk: readonly BulkImportRow[]): Promise<BulkImportRow[][]> {
    const ids = chunk.map((row) => row.user.id);
    const found = await batchGetAll(
      this.ctx,
      ids.flatMap((id) => [keys.bulkStaged(id), rowKey(id)]),
    );
    const staged = new Set<number>();
    for (const item of found) {
      const at = ids.indexOf(item.id as string);
      const length = item.type === BULK_STAGED_TYPE ? (item.rows as number) : 1;
      for (let i = at; i >= 0 && i < Math.min(at + length, ids.length); i++) staged.add(i);
    }
    const runs: BulkImportRow[][] = [];
    chunk.forEach((row, i) => {
      if (staged.has(i)) return;
      if (i > 0 && !staged.has(i - 1) && runs.length > 0) runs[runs.length - 1].push(row);
      else runs.push([row]);
    });
    return runs;
  }

  async listRows(query: { status?: BulkImportStatus; limit: number; after?: BulkRowCursor }): Promise<{ rows: BulkImportRow[]; next?: BulkRowCursor }> {
    const want = query.limit + 1;
    const statuses = query.status ? [query.status] : BULK_IMPORT_STATUSES;
    const partitions = statuses.flatMap((status) => Array.from({ length: BULK_SHARDS }, (_, shard) => keys.bulkRowsWithStatus(status, shard)));
    const position = (i: Record<string, unknown>) => i[ATTR.gsi1sk] as string;
    const entries = (await Promise.all(partitions.map((pk) => listPartition(this.ctx, pk, want, query.after))))
      .flat()
      .sort((a, b) => (position(a) < position(b) ? 1 : position(a) > position(b) ? -1 : 0))
      .slice(0, want);
    const page = entries.slice(0, query.limit).map(bulkRowFromItem);
    const last = page[page.length - 1];
    return entries.length > query.limit && last ? { rows: page, next: cursorOfRow(last) } : { rows: page };
  }

  async countRows(status?: BulkImportStatus): Promise<number> {
    const counts = await this.countRowsByStatus();
    return (status ? [status] : BULK_IMPORT_STATUSES).reduce((total, s) => total + counts[s], 0);
  }

  async countRowsByStatus(): Promise<Record<BulkImportStatus, number>> {
    const counterKeys = (family: BulkCounterFamily, n: number) => Array.from({ length: n }, (_, i) => keys.bulkCounter(family, i));
    const counts: Record<BulkImportStatus, number> = { NEW: 0, PROCESSING: 0, FAILED: 0 };
    // Decrements first (see `BulkImportStore`): removal, then the lanes, then staging.
    for (const family of [counterKeys('REMOVE', BULK_SHARDS), counterKeys('LANE', BULK_LANES), counterKeys('STAGE', BULK_SHARDS)]) {
      for (const item of await batchGetAll(this.ctx, family)) {
        for (const s of BULK_IMPORT_STATUSES) counts[s] += typeof item[s] === 'number' ? (item[s] as number) : 0;
      }
    }
    return counts;
  }

  async removeRows(ids: readonly string[]): Promise<{ deleted: string[]; invalid: string[] }> {
    const unique = [...new Set(ids)];
    const removed = new Set<string>();
    await inPool(
      unique.filter((id) => bulkLaneOf(id) !== undefined),
      REMOVAL_CONCURRENCY,
      async (id) => {
        if (await this.removeRow(id)) removed.add(id);
      },
    );
    return { deleted: unique.filter((id) => removed.has(id)), invalid: unique.filter((id) => !removed.has(id)) };
  }

  /** Deletes one row with its count, at the status read; `false` if there is no such row. */
  private async removeRow(id: string): Promise<boolean> {
    const key = rowKey(id);
    for (let n = 0; n < REMOVAL_TRIES; n++) {
      const row = await readRow(this.ctx, id);
      if (!row) return false;
      const { status } = row;
      const result = await writeAtomically(this.ctx, [
        {
          item: {
            Delete: { TableName: this.ctx.tableName, Key: key, ...ifStatus(status) },
          },
          onConditionFailed: 'CHANGED',
        },
        { item: counterUpdate(this.ctx, keys.bulkCounter('REMOVE', randomShard()), { [status]: -1 }), onConditionFailed: 'CHANGED' },
      ]);
      if (result.ok) return true;
    }
    throw new Error(`Removing bulk row ${id} lost the race with its import too often`);
  }
}
