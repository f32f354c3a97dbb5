import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR, INDEX, timeSortKey, type Key } from '../keys';
import * as keys from '../keys';
import type { CodeRecord, DeviceRecord, PasswordlessIdentity } from '../model';
import type { PasswordlessStore } from '../ports/passwordless';
import type { LoginWrite, UserWriteResult } from '../ports/users';
import { deleteInChunks, getConsistent, ifAbsent, MAX_TRANSACTION_ITEMS, queryAll, writeAtomically, type DynamoContext, type TaggedWrite } from './transact';
import type { UserConflict } from './leaving-ids';
import { loginMarkWrites } from './mark-writes';
import { userChangeWrites } from './user-diff';

/** TTL attribute value: epoch seconds, rounded up so an item is never collected before it expires. */
const ttlOf = (ms: number): number => Math.ceil(ms / 1000);

function deviceItem(d: DeviceRecord): Record<string, unknown> {
  return {
    ...keys.device(d.preAuthSessionId),
    type: 'device',
    preAuthSessionId: d.preAuthSessionId,
    tenantId: d.tenantId,
    email: d.email,
    phoneNumber: d.phoneNumber,
    linkCodeSalt: d.linkCodeSalt,
    failedAttempts: d.failedAttempts,
    expiresAt: d.expiresAt,
    codeCount: d.codeCount,
    [ATTR.ttl]: ttlOf(d.expiresAt),
    [ATTR.gsi2pk]: keys.devicesOfIdentity(d.tenantId, d),
    [ATTR.gsi2sk]: timeSortKey(d.expiresAt),
  };
}

function deviceFromItem(item: Record<string, unknown>): DeviceRecord {
  return {
    preAuthSessionId: item.preAuthSessionId as string,
    tenantId: item.tenantId as string,
    ...(item.email !== undefined ? { email: item.email as string } : {}),
    ...(item.phoneNumber !== undefined ? { phoneNumber: item.phoneNumber as string } : {}),
    linkCodeSalt: item.linkCodeSalt as string,
    failedAttempts: item.failedAttempts as number,
    expiresAt: item.expiresAt as number,
    ...(typeof item.codeCount === 'number' ? { codeCount: item.codeCount } : {}),
  };
}

function codeItem(c: CodeRecord): Record<string, unknown> {
  return {
    ...keys.code(c.preAuthSessionId, c.linkCodeHash),
    type: 'code',
    preAuthSessionId: c.preAuthSessionId,
    linkCodeHash: c.linkCodeHash,
    codeId: c.codeId,
    timeCreated: c.timeCreated,
    codeLifetime: c.codeLifetime,
    [ATTR.ttl]: ttlOf(c.timeCreated + c.codeLifetime),
  };
}

/** The item a code id leads through to its device, written and deleted with its code. */
export const CODE_ID_TYPE = 'code id';

function codeIdItem(c: CodeRecord): Record<string, unknown> {
  return {
    ...keys.codeById(c.codeId),
    type: CODE_ID_TYPE,
    codeId: c.codeId,
    preAuthSessionId: c.preAuthSessionId,
    [ATTR.ttl]: ttlOf(c.timeCreated + c.codeLifetime),
  };
}

function codeFromItem(item: Record<string, unknown>): CodeRecord {
  return {
    preAuthSessionId: item.preAuthSessionId as string,
    linkCodeHash: item.linkCodeHash as string,
    codeId: item.codeId as string,
    timeCreated: item.timeCreated as number,
    codeLifetime: item.codeLifetime as number,
  };
}

type ConsumeFailure = UserConflict | { status: 'DEVICE_CHANGED' };

/** How often `deleteDevice` reads a device again that a resend or a removal changed meanwhile. */
const DELETE_DEVICE_TRIES = 5;

/** The keys of a code's items: the code in its device's partition, and its code id item. */
const codeKeys = (c: CodeRecord): Key[] => [keys.code(c.preAuthSessionId, c.linkCodeHash), keys.codeById(c.codeId)];

/** `PasswordlessStore` on DynamoDB: a device and its codes share one partition. */
export class DynamoPasswordlessStore implements PasswordlessStore {
  constructor(private readonly ctx: DynamoContext) {}

  async createDevice(device: DeviceRecord, code: CodeRecord): Promise<void> {
    const put = (Item: Record<string, unknown>) => ({
      item: { Put: { TableName: this.ctx.tableName, Item, ...ifAbsent } },
      onConditionFailed: 'EXISTS' as const,
    });
    const result = await writeAtomically(this.ctx, [put(deviceItem({ ...device, codeCount: 1 })), put(codeItem(code)), put(codeIdItem(code))]);
    // 32 random bytes cannot collide; a failure here means a broken random source.
    if (!result.ok) throw new Error('A new passwordless device collided with an existing one');
  }

  async addCode(code: CodeRecord, deviceExpiresAt: number): Promise<'OK' | 'DEVICE_GONE' | 'CODE_EXISTS'> {
    const result = await writeAtomically<'DEVICE_GONE' | 'CODE_EXISTS'>(this.ctx, [
      {
        item: {
          Update: {
            TableName: this.ctx.tableName,
            Key: keys.device(code.preAuthSessionId),
            UpdateExpression: 'SET expiresAt = :e, #ttl = :ttl, #g2sk = :g2sk ADD codeCount :one',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#ttl': ATTR.ttl, '#g2sk': ATTR.gsi2sk },
            ExpressionAttributeValues: { ':e': deviceExpiresAt, ':ttl': ttlOf(deviceExpiresAt), ':g2sk': timeSortKey(deviceExpiresAt), ':one': 1 },
          },
        },
        onConditionFailed: 'DEVICE_GONE',
      },
      {
        item: { Put: { TableName: this.ctx.tableName, Item: codeItem(code), ...ifAbsent } },
        onConditionFailed: 'CODE_EXISTS',
      },
      // A random UUID: never taken, so unconditional.
      { item: { Put: { TableName: this.ctx.tableName, Item: codeIdItem(code) } }, onConditionFailed: 'CODE_EXISTS' },
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async getDeviceWithCodes(preAuthSessionId: string): Promise<{ device: DeviceRecord; codes: CodeRecord[] } | undefined> {
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.device(preAuthSessionId).pk },
      ConsistentRead: true,
    });
    const device = items.find((i) => i.sk === keys.device(preAuthSessionId).sk);
    if (!device) return undefined;
    return { device: deviceFromItem(device), codes: items.filter((i) => (i.sk as string).startsWith(keys.codePrefix)).map(codeFromItem) };
  }

  async recordFailedAttempt(preAuthSessionId: string): Promise<number | undefined> {
    try {
      const out = await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.tableName,
          Key: keys.device(preAuthSessionId),
          UpdateExpression: 'ADD failedAttempts :one',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return out.Attributes?.failedAttempts as number;
    } catch (err) {
      if (err instanceof Error && err.name === 'ConditionalCheckFailedException') return undefined;
      throw err;
    }
  }

  async getDeviceOfCode(codeId: string): Promise<string | undefined> {
    const item = await getConsistent(this.ctx, keys.codeById(codeId));
    return item === undefined ? undefined : (item.preAuthSessionId as string);
  }

  private deleteWrites<T>(itemKeys: readonly Key[], tag: T): TaggedWrite<T>[] {
    return itemKeys.map((Key) => ({ item: { Delete: { TableName: this.ctx.tableName, Key } }, onConditionFailed: tag }));
  }

  /** The condition that a device is still as read: it exists and got no code and lost none since. */
  private static asRead(device: DeviceRecord): { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> } {
    return device.codeCount !== undefined
      ? { ConditionExpression: 'attribute_exists(pk) AND codeCount = :n', ExpressionAttributeValues: { ':n': device.codeCount } }
      : { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(codeCount)' };
  }

  async deleteDevice(preAuthSessionId: string): Promise<void> {
    for (let n = 0; n < DELETE_DEVICE_TRIES; n++) {
      const read = await this.getDeviceWithCodes(preAuthSessionId);
      if (!read || (await this.deleteReadDevice(read.device, read.codes)) === 'OK') return;
    }
    throw new Error('Deleting a passwordless device lost the race to resends too often');
  }

  /**
   * Deletes a device with the codes read with it: the device in one transaction with its codes
   * (conditional on the device being as read, so a code a resend adds meanwhile is never left
   * without its device), after the codes that do not fit in it (only a device with more than
   * ~49 resent codes has any), so a code never outlives its device.
   */
  async deleteReadDevice(device: DeviceRecord, codes: readonly CodeRecord[]): Promise<'OK' | 'DEVICE_CHANGED'> {
    const codeItemKeys = codes.flatMap(codeKeys);
    const room = MAX_TRANSACTION_ITEMS - 1;
    await deleteInChunks(this.ctx, codeItemKeys.slice(room));
    const result = await writeAtomically(this.ctx, [
      {
        item: { Delete: { TableName: this.ctx.tableName, Key: keys.device(device.preAuthSessionId), ...DynamoPasswordlessStore.asRead(device) } },
        onConditionFailed: 'DEVICE_CHANGED' as const,
      },
      ...this.deleteWrites(codeItemKeys.slice(0, room), 'DEVICE_CHANGED' as const),
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async removeCode(device: DeviceRecord, code: CodeRecord): Promise<'OK' | 'DEVICE_CHANGED'> {
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Update: {
            TableName: this.ctx.tableName,
            Key: keys.device(device.preAuthSessionId),
            UpdateExpression: 'ADD codeCount :one',
            ...DynamoPasswordlessStore.asRead(device),
            ExpressionAttributeValues: { ...DynamoPasswordlessStore.asRead(device).ExpressionAttributeValues, ':one': 1 },
          },
        },
        onConditionFailed: 'DEVICE_CHANGED' as const,
      },
      ...this.deleteWrites(codeKeys(code), 'DEVICE_CHANGED' as const),
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async listDevicesOfIdentity(tenantId: string, identity: PasswordlessIdentity): Promise<string[]> {
    const items = await queryAll(this.ctx, {
      IndexName: INDEX.byIdentity,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.gsi2pk },
      ExpressionAttributeValues: { ':pk': keys.devicesOfIdentity(tenantId, identity) },
    });
    return items.map((item) => item.preAuthSessionId as string);
  }

  async consumeDevice(device: DeviceRecord, codes: readonly CodeRecord[], userWrite: LoginWrite): Promise<UserWriteResult | { status: 'DEVICE_CHANGED' }> {
    const { pk, sk } = keys.device(device.preAuthSessionId);
    const userWrites: TaggedWrite<ConsumeFailure>[] =
      'primaryUserId' in userWrite
        ? loginMarkWrites(this.ctx, userWrite.primaryUserId, userWrite.before, userWrite.after)
        : userChangeWrites(this.ctx, userWrite.before, userWrite.after);
    const changed = { status: 'DEVICE_CHANGED' } as const;
    // Gone (consumed or removed by another request), given a code since the read (a resend, whose
    // code this transaction would not delete) or one of its codes removed (the code may be the one
    // presented): either way the caller reads the device again.
    const deviceWrite: TaggedWrite<ConsumeFailure> = {
      item: {
        Delete: {
          TableName: this.ctx.tableName,
          Key: { pk, sk },
          ...DynamoPasswordlessStore.asRead(device),
        },
      },
      onConditionFailed: changed,
    };
    const codeItemKeys = codes.flatMap(codeKeys);
    const room = Math.max(0, MAX_TRANSACTION_ITEMS - userWrites.length - 1);
    const result = await writeAtomically<ConsumeFailure>(this.ctx, [
      deviceWrite,
      ...userWrites,
      ...this.deleteWrites<ConsumeFailure>(codeItemKeys.slice(0, room), changed),
    ]);
    if (!result.ok) return result.failed;
    // Only a device with more than ~47 resent codes gets here; without their device these codes
    // can no longer be used, and TTL collects any that this clean-up misses.
    await deleteInChunks(this.ctx, codeItemKeys.slice(room));
    return { status: 'OK' };
  }
}
