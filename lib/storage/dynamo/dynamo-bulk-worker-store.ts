import { ATTR, BULK_SHARDS } from '../keys';
import * as keys from '../keys';
import type { BulkImportRow, BulkTotpDevice, BulkUser, RoleRecord } from '../model';
import type { BulkRowRef } from '../ports/bulk-import';
import type { BulkWorkerStore } from '../ports/bulk-worker';
import { bulkRowFromItem, bulkRowItem, counterUpdate, ifStatus, laneCounter, listPartition, readRow, rowKey, statusShard } from './dynamo-bulk-import-store';
import { ROLE_LANE_TYPE, roleIsCurrent } from './dynamo-role-store';
import { batchGetAll, writeAtomically, type DynamoContext, type TaggedWrite, type TxItem } from './transact';

/**
 * A failed row keeps no password and no TOTP secret: it is there to be read and removed, never
 * imported (the worker skips `FAILED` rows), so its devices keep only what the row shows of them.
 */
function withoutSecrets(user: BulkUser): BulkUser {
  const devices = user.totpDevices?.map(({ secretKey: _k, ...device }) => device);
  return {
    ...user,
    loginMethods: user.loginMethods.map(({ passwordHash: _h, plainTextPassword: _p, ...lm }) => lm),
    ...(devices ? { totpDevices: devices as BulkTotpDevice[] } : {}),
  };
}

/**
 * A row's delete, conditional on its status read, and its count on its lane's counter: how the
 * worker finishes a row, alone or in the transaction that imports its user
 * (`DynamoBulkRowImportStore`).
 */
export function rowDone(ctx: DynamoContext, row: BulkRowRef): TaggedWrite<{ status: 'ROW_GONE' }>[] {
  const gone = { status: 'ROW_GONE' } as const;
  return [
    { item: { Delete: { TableName: ctx.tableName, Key: rowKey(row.id), ...ifStatus(row.status) } }, onConditionFailed: gone },
    { item: counterUpdate(ctx, laneCounter(row.id), { [row.status]: -1 }), onConditionFailed: gone },
  ];
}

/**
 * What the worker and the sweeper do to staged rows (see `BulkWorkerStore`), on the items of
 * `DynamoBulkImportStore`. A class of its own so that the bulk API's functions and the
 * synchronous import, which run none of it, do not bundle it (esbuild keeps every method of a
 * class it keeps).
 */
export class DynamoBulkWorkerStore implements BulkWorkerStore {
  constructor(private readonly ctx: DynamoContext) {}

  async ensureRoleLane(role: RoleRecord, lane: number): Promise<boolean> {
    const [copy] = await batchGetAll(this.ctx, [keys.roleLane(role.role, lane)]);
    if (copy?.roleUid === role.roleUid) return true;
    // Made (or replaced, when a removal left one of an older incarnation) only while the role is this incarnation.
    const made = await writeAtomically(this.ctx, [
      roleIsCurrent(this.ctx, role, 'ROLE_GONE' as const),
      {
        item: {
          Put: {
            TableName: this.ctx.tableName,
            Item: { ...keys.roleLane(role.role, lane), type: ROLE_LANE_TYPE, role: role.role, roleUid: role.roleUid, lane },
          },
        },
        onConditionFailed: 'ROLE_GONE' as const,
      },
    ]);
    return made.ok;
  }

  /** Runs a row's writes; `ROW_GONE` when the row is no longer in the status read. */
  private async rowWrite(writes: TaggedWrite<{ status: 'ROW_GONE' }>[]): Promise<'OK' | 'ROW_GONE'> {
    const result = await writeAtomically(this.ctx, writes);
    return result.ok ? 'OK' : 'ROW_GONE';
  }

  getRow(id: string): Promise<BulkImportRow | undefined> {
    return readRow(this.ctx, id);
  }

  finishRow(row: BulkRowRef): Promise<'OK' | 'ROW_GONE'> {
    return this.rowWrite(rowDone(this.ctx, row));
  }

  async failRow(row: BulkRowRef, errorMessage: string, now: number): Promise<'OK' | 'ROW_GONE'> {
    const stored = await this.getRow(row.id);
    if (!stored || stored.status !== row.status) return 'ROW_GONE';
    const failed = bulkRowItem({ ...stored, user: withoutSecrets(stored.user), status: 'FAILED', errorMessage, updatedAt: now });
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
        ExpressionAttributeValues: {
          ':processing': 'PROCESSING',
          ':now': now,
          ':listed': keys.bulkRowsWithStatus('PROCESSING', statusShard(row.id)),
          ':one': 1,
          ':status': row.status,
        },
      },
    };
    const writes: TaggedWrite<{ status: 'ROW_GONE' }>[] = [{ item: update, onConditionFailed: { status: 'ROW_GONE' } }];
    if (row.status !== 'PROCESSING')
      writes.push({ item: counterUpdate(this.ctx, laneCounter(row.id), { [row.status]: -1, PROCESSING: 1 }), onConditionFailed: { status: 'ROW_GONE' } });
    return this.rowWrite(writes);
  }

  async staleRows(before: number, limit: number): Promise<BulkImportRow[]> {
    const found: BulkImportRow[] = [];
    for (const status of ['NEW', 'PROCESSING'] as const) {
      for (let shard = 0; shard < BULK_SHARDS && found.length < limit; shard++) {
        const items = await listPartition(this.ctx, keys.bulkRowsWithStatus(status, shard), limit - found.length, undefined, before);
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
}
