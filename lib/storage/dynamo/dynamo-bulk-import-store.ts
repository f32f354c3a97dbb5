import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { inPool } from '../../pool';
import { ATTR, BULK_LANES, BULK_SHARDS, bulkLaneOf, INDEX, keys, type BulkCounterFamily, type Key } from '../keys';
import { BULK_IMPORT_STATUSES, type BulkImportRow, type BulkImportStatus, type BulkUser, type RoleRecord } from '../model';
import { TooManyItemsError } from '../errors';
import type { BulkImportStore, BulkRowCursor, BulkRowRef, BulkUserWrite, BulkUserWriteResult } from '../ports';
import { metadataCondition, metadataItem } from './dynamo-metadata-store';
import { ROLE_LANE_TYPE, roleIsCurrent, userRoleItem } from './dynamo-role-store';
import { batchGetAll, ifAbsent, MAX_TRANSACTION_ITEMS, writeAtomically, type DynamoContext, type TaggedWrite, type TxItem } from './transact';
import { userChangeWrites } from './user-items';

export const BULK_ROW_TYPE = 'bulkRow';
export const BULK_COUNTER_TYPE = 'bulkCounter';

/**
 * A staging transaction holds at most this many bytes of rows: DynamoDB takes 4 MB per
 * transaction, and a POST of 6 MB may hold a few large users.
 */
const MAX_STAGING_TRANSACTION_BYTES = 3_500_000;
/** Staging transactions of one request in flight at once. */
const STAGING_CONCURRENCY = 8;
/** Row removals in flight at once. */
const REMOVAL_CONCURRENCY = 16;
/** A removal that keeps finding its row changed gives up after this many reads. */
const REMOVAL_TRIES = 8;

const randomShard = (): number => Math.floor(Math.random() * BULK_SHARDS);
const statusShard = (rowId: string): number => (bulkLaneOf(rowId) ?? 0) % BULK_SHARDS;

/** The key of a row, by its id (which carries its lane). */
function rowKey(rowId: string): Key {
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

/**
 * A row as a stream record's new image shows it (DynamoDB's JSON: strings and numbers are all a
 * row holds), or `undefined` when the image is not a whole row.
 */
export function bulkRowFromImage(image: Readonly<Record<string, { S?: string; N?: string }>>): BulkImportRow | undefined {
  if (image.type?.S !== BULK_ROW_TYPE || image.user?.S === undefined || image.status?.S === undefined) return undefined;
  const item: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(image)) item[name] = value.S ?? (value.N !== undefined ? Number(value.N) : undefined);
  try {
    return bulkRowFromItem(item);
  } catch {
    return undefined;
  }
}

/** A failed row keeps no password: it is there to be read and removed, never imported. */
function withoutPasswords(user: BulkUser): BulkUser {
  return { ...user, loginMethods: user.loginMethods.map(({ passwordHash: _h, plainTextPassword: _p, ...lm }) => lm) };
}

/** The condition that a row is still in the status read. */
function ifStatus(status: BulkImportStatus, values: Record<string, unknown> = {}) {
  return {
    ConditionExpression: '#status = :status',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':status': status, ...values },
  };
}

/** The counter of a row's lane: only the worker, which handles a lane's rows one at a time, writes it. */
const laneCounter = (rowId: string): Key => keys.bulkCounter('LANE', bulkLaneOf(rowId) ?? 0);

/** An update adding signed amounts to the counts of a counter item. */
function counterUpdate(ctx: DynamoContext, key: Key, deltas: Partial<Record<BulkImportStatus, number>>): TxItem {
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
 * Staged rows and their exact counts (see `BulkImportStore`). Rows are items `BULK#<lane>` /
 * `ROW#<id>`; the status index (gsi1) lists them newest first in 16 shards per status; counter
 * items `BULKCOUNT#<family>#<n>` hold signed counts per status.
 */
export class DynamoBulkImportStore implements BulkImportStore {
  constructor(private readonly ctx: DynamoContext) {}

  async stageRows(rows: readonly BulkImportRow[]): Promise<void> {
    const chunks: BulkImportRow[][] = [];
    let bytes = 0;
    for (const row of rows) {
      const size = Buffer.byteLength(JSON.stringify(row.user), 'utf8');
      const last = chunks[chunks.length - 1];
      if (!last || last.length >= MAX_TRANSACTION_ITEMS - 1 || bytes + size > MAX_STAGING_TRANSACTION_BYTES) {
        chunks.push([row]);
        bytes = size;
      } else {
        last.push(row);
        bytes += size;
      }
    }
    await inPool(chunks, STAGING_CONCURRENCY, async (chunk) => {
      const writes: TaggedWrite<string>[] = chunk.map((row) => ({
        item: { Put: { TableName: this.ctx.tableName, Item: bulkRowItem(row), ...ifAbsent } },
        onConditionFailed: row.user.id,
      }));
      writes.push({ item: counterUpdate(this.ctx, keys.bulkCounter('STAGE', randomShard()), { NEW: chunk.length }), onConditionFailed: '' });
      const result = await writeAtomically(this.ctx, writes);
      // Row ids are fresh random UUIDs: a taken one is a broken random source, not a race.
      if (!result.ok) throw new Error(`Bulk row id ${result.failed} is taken`);
    });
  }

  async listRows(query: { status?: BulkImportStatus; limit: number; after?: BulkRowCursor }): Promise<{ rows: BulkImportRow[]; next?: BulkRowCursor }> {
    const want = query.limit + 1;
    const statuses = query.status ? [query.status] : BULK_IMPORT_STATUSES;
    const partitions = statuses.flatMap((status) => Array.from({ length: BULK_SHARDS }, (_, shard) => keys.bulkRowsWithStatus(status, shard)));
    const position = (i: Record<string, unknown>) => i[ATTR.gsi1sk] as string;
    const entries = (await Promise.all(partitions.map((pk) => this.listPartition(pk, want, query.after))))
      .flat()
      .sort((a, b) => (position(a) < position(b) ? 1 : position(a) > position(b) ? -1 : 0))
      .slice(0, want);
    const page = entries.slice(0, query.limit).map(bulkRowFromItem);
    const last = page[page.length - 1];
    return entries.length > query.limit && last ? { rows: page, next: { createdAt: last.createdAt, id: last.user.id } } : { rows: page };
  }

  /**
   * The first `want` rows of one status-index partition, newest first, older than `after`; with
   * `changedBefore`, only rows last changed before then (the sweeper's stale rows).
   */
  private async listPartition(pk: string, want: number, after: BulkRowCursor | undefined, changedBefore?: number): Promise<Record<string, unknown>[]> {
    const entries: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.ctx.doc.send(
        new QueryCommand({
          TableName: this.ctx.tableName,
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

  async importUser(write: BulkUserWrite, row?: BulkRowRef): Promise<BulkUserWriteResult> {
    const T = this.ctx.tableName;
    const writes: TaggedWrite<BulkUserWriteResult>[] = [...(row ? this.rowDone(row) : []), ...userChangeWrites(this.ctx, [], write.users)];
    if (write.metadata) {
      const { userId, metadata, readVersion } = write.metadata;
      writes.push({ item: { Put: { TableName: T, Item: metadataItem(userId, metadata, (readVersion ?? 0) + 1), ...metadataCondition(readVersion) } }, onConditionFailed: { status: 'STALE' } });
    }
    const roles = new Map(write.roles.map((r) => [r.role.role, r.role]));
    // The worker checks each role on its lane's copy (one writer per lane), the synchronous import
    // on the role itself: no key is shared by every import of a role.
    const lane = row ? bulkLaneOf(row.id) : undefined;
    for (const role of roles.values()) {
      writes.push(roleIsCurrent(this.ctx, role, { status: 'ROLE_GONE' } as const, lane === undefined ? undefined : keys.roleLane(role.role, lane)));
    }
    for (const { tenantId, userId, role } of write.roles) {
      writes.push({ item: { Put: { TableName: T, Item: userRoleItem(tenantId, userId, role) } }, onConditionFailed: { status: 'STALE' } });
    }
    if (writes.length > MAX_TRANSACTION_ITEMS) throw new TooManyItemsError(writes.length);
    const result = await writeAtomically(this.ctx, writes);
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async ensureRoleLane(role: RoleRecord, lane: number): Promise<boolean> {
    const [copy] = await batchGetAll(this.ctx, [keys.roleLane(role.role, lane)]);
    if (copy?.roleUid === role.roleUid) return true;
    // Made (or replaced, when a removal left one of an older incarnation) only while the role is this incarnation.
    const made = await writeAtomically(this.ctx, [
      roleIsCurrent(this.ctx, role, 'ROLE_GONE' as const),
      {
        item: { Put: { TableName: this.ctx.tableName, Item: { ...keys.roleLane(role.role, lane), type: ROLE_LANE_TYPE, role: role.role, roleUid: role.roleUid, lane } } },
        onConditionFailed: 'ROLE_GONE' as const,
      },
    ]);
    return made.ok;
  }

  /** The row's delete, conditional on its status read, and its count on its lane's counter. */
  private rowDone(row: BulkRowRef): TaggedWrite<{ status: 'ROW_GONE' }>[] {
    const gone = { status: 'ROW_GONE' } as const;
    return [
      { item: { Delete: { TableName: this.ctx.tableName, Key: rowKey(row.id), ...ifStatus(row.status) } }, onConditionFailed: gone },
      { item: counterUpdate(this.ctx, laneCounter(row.id), { [row.status]: -1 }), onConditionFailed: gone },
    ];
  }

  /** Runs a row's writes; `ROW_GONE` when the row is no longer in the status read. */
  private async rowWrite(writes: TaggedWrite<{ status: 'ROW_GONE' }>[]): Promise<'OK' | 'ROW_GONE'> {
    const result = await writeAtomically(this.ctx, writes);
    return result.ok ? 'OK' : 'ROW_GONE';
  }

  async getRow(id: string): Promise<BulkImportRow | undefined> {
    if (bulkLaneOf(id) === undefined) return undefined;
    const [item] = await batchGetAll(this.ctx, [rowKey(id)]);
    return item ? bulkRowFromItem(item) : undefined;
  }

  finishRow(row: BulkRowRef): Promise<'OK' | 'ROW_GONE'> {
    return this.rowWrite(this.rowDone(row));
  }

  async failRow(row: BulkRowRef, errorMessage: string, now: number): Promise<'OK' | 'ROW_GONE'> {
    const stored = await this.getRow(row.id);
    if (!stored || stored.status !== row.status) return 'ROW_GONE';
    const failed = bulkRowItem({ ...stored, user: withoutPasswords(stored.user), status: 'FAILED', errorMessage, updatedAt: now });
    return this.rowWrite([
      { item: { Put: { TableName: this.ctx.tableName, Item: failed, ...ifStatus(row.status) } }, onConditionFailed: { status: 'ROW_GONE' } },
      { item: counterUpdate(this.ctx, laneCounter(row.id), { [row.status]: -1, FAILED: 1 }), onConditionFailed: { status: 'ROW_GONE' } },
    ]);
  }

  async markProcessing(row: BulkRowRef, now: number): Promise<'OK' | 'ROW_GONE'> {
    const update: TxItem = {
      Update: {
        TableName: this.ctx.tableName,
        Key: rowKey(row.id),
        UpdateExpression: 'SET #status = :processing, updatedAt = :now, #gsi1pk = :listed REMOVE redriveAt ADD attempts :one',
        ConditionExpression: '#status = :status',
        ExpressionAttributeNames: { '#status': 'status', '#gsi1pk': ATTR.gsi1pk },
        ExpressionAttributeValues: { ':processing': 'PROCESSING', ':now': now, ':listed': keys.bulkRowsWithStatus('PROCESSING', statusShard(row.id)), ':one': 1, ':status': row.status },
      },
    };
    const writes: TaggedWrite<{ status: 'ROW_GONE' }>[] = [{ item: update, onConditionFailed: { status: 'ROW_GONE' } }];
    if (row.status !== 'PROCESSING') writes.push({ item: counterUpdate(this.ctx, laneCounter(row.id), { [row.status]: -1, PROCESSING: 1 }), onConditionFailed: { status: 'ROW_GONE' } });
    return this.rowWrite(writes);
  }

  async staleRows(before: number, limit: number): Promise<BulkImportRow[]> {
    const found: BulkImportRow[] = [];
    for (const status of ['NEW', 'PROCESSING'] as const) {
      for (let shard = 0; shard < BULK_SHARDS && found.length < limit; shard++) {
        const items = await this.listPartition(keys.bulkRowsWithStatus(status, shard), limit - found.length, undefined, before);
        found.push(...items.map(bulkRowFromItem));
      }
    }
    return found.sort((a, b) => a.updatedAt - b.updatedAt);
  }

  redrive(row: BulkRowRef, now: number): Promise<'OK' | 'ROW_GONE'> {
    return this.rowWrite([
      {
        item: {
          Update: {
            TableName: this.ctx.tableName,
            Key: rowKey(row.id),
            UpdateExpression: 'SET redriveAt = :now, updatedAt = :now',
            ...ifStatus(row.status, { ':now': now }),
          },
        },
        onConditionFailed: { status: 'ROW_GONE' },
      },
    ]);
  }

  /** Deletes one row with its count, at the status read; `false` if there is no such row. */
  private async removeRow(id: string): Promise<boolean> {
    const key = rowKey(id);
    for (let n = 0; n < REMOVAL_TRIES; n++) {
      const row = await this.getRow(id);
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
