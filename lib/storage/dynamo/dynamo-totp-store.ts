import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../keys';
import { ATTR, type Key } from '../keys';
import type { TotpAttempt, TotpCheckState, TotpDevice, TotpStore } from '../ports/totp';
import { readNumber, readOptionalString, readString, required, StoredItemError, type Stored } from './stored-fields';
import { DynamoTotpUsage } from './dynamo-totp-usage';
import { deleteInChunks, ifAbsent, ifVersion, MAX_TRANSACTION_ITEMS, queryAll, writeAtomically, type TaggedWrite } from './transact';

export const TOTP_DEVICE_TYPE = 'totpDevice';
export const TOTP_ATTEMPTS_TYPE = 'totpAttempts';

const readBoolean = required((v): v is boolean => typeof v === 'boolean', 'a boolean');

/** A device as its item holds it. */
export function deviceOfItem(i: Stored): TotpDevice {
  return {
    name: readString(i.name, 'name'),
    secret: readString(i.secret, 'secret'),
    period: readNumber(i.period, 'period'),
    skew: readNumber(i.skew, 'skew'),
    verified: readBoolean(i.verified, 'verified'),
    createdAt: readNumber(i.createdAt, 'createdAt'),
  };
}

/** The attempts an attempts item holds, newest first. */
export function attemptsOfItem(i: Stored): TotpAttempt[] {
  if (!Array.isArray(i.attempts)) throw new StoredItemError('attempts', 'a list');
  return (i.attempts as Stored[]).map((a) => ({
    at: readNumber(a.at, 'attempts.at'),
    valid: readBoolean(a.valid, 'attempts.valid'),
    ...(a.code !== undefined ? { code: readOptionalString(a.code, 'attempts.code') } : {}),
    expiresAt: readNumber(a.expiresAt, 'attempts.expiresAt'),
    keepUntil: readNumber(a.keepUntil, 'attempts.keepUntil'),
  }));
}

/** A TOTP item reads back, and sits under the keys its user id and name or tenant give (for the consistency checker). */
export function totpItemReadable(item: Stored): boolean {
  try {
    const userId = readString(item.userId, 'userId');
    const key =
      item.type === TOTP_DEVICE_TYPE
        ? keys.totpDevice(userId, deviceOfItem(item).name)
        : attemptsOfItem(item).length > 0 && readNumber(item.version, 'version') > 0 && readNumber(item[ATTR.ttl], 'ttl') > 0
          ? keys.totpAttempts(userId, readString(item.tenantId, 'tenantId'))
          : undefined;
    return item.pk === key?.pk && item.sk === key?.sk;
  } catch {
    return false;
  }
}

/** The item of a device: the one builder of it (the TOTP store's writes, a bulk user's import). */
export function totpDeviceItem(userId: string, device: TotpDevice): Record<string, unknown> {
  return { ...keys.totpDevice(userId, device.name), type: TOTP_DEVICE_TYPE, userId, ...device };
}

const oldestFirst = (a: TotpDevice, b: TotpDevice): number => a.createdAt - b.createdAt || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** A write's condition: the device is still the one read (not replaced, removed or renamed since). */
const ifSameDevice = (device: TotpDevice) => ({
  ConditionExpression: 'secret = :secret AND createdAt = :createdAt',
  ExpressionAttributeValues: { ':secret': device.secret, ':createdAt': device.createdAt },
});

/**
 * `TotpStore` on DynamoDB: one partition per user id (`keys.totpPartition`) holding a device item
 * per name and an attempts item per tenant, so a code check reads all it needs with one Query and
 * writes its attempt with one conditional write (SPEC §20: a code in ≤ 2 calls). The attempts of
 * a tenant live in one item at a version, not one item each: checks of one user take turns on it,
 * as the core's checks take its per-user lock, so concurrent wrong codes are all counted (N at
 * once cannot each see none before them) and of concurrent uses of one code exactly one is valid.
 */
export class DynamoTotpStore extends DynamoTotpUsage implements TotpStore {
  async listDevices(userId: string): Promise<TotpDevice[]> {
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :device)',
      ExpressionAttributeValues: { ':pk': keys.totpPartition(userId), ':device': keys.totpDevicePrefix },
      ConsistentRead: true,
    });
    return items.map(deviceOfItem).sort(oldestFirst);
  }

  async getDevice(userId: string, name: string): Promise<TotpDevice | undefined> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.totpDevice(userId, name), ConsistentRead: true }));
    return out.Item && deviceOfItem(out.Item);
  }

  async readCheckState(userId: string, tenantId: string): Promise<TotpCheckState> {
    const attemptsKey = keys.totpAttempts(userId, tenantId);
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      // The attempts of other tenants stay in DynamoDB (a filter costs no round trip).
      FilterExpression: '#type = :device OR tenantId = :tenant',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':pk': attemptsKey.pk, ':device': TOTP_DEVICE_TYPE, ':tenant': tenantId },
      ConsistentRead: true,
    });
    const attemptsItem = items.find((i) => i.sk === attemptsKey.sk);
    return {
      devices: items
        .filter((i) => i !== attemptsItem)
        .map(deviceOfItem)
        .sort(oldestFirst),
      ...(attemptsItem ? { attempts: { attempts: attemptsOfItem(attemptsItem), version: readNumber(attemptsItem.version, 'version') } } : {}),
    };
  }

  async putDevice(userId: string, device: TotpDevice): Promise<'OK' | 'EXISTS'> {
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Put: {
            TableName: this.ctx.tableName,
            Item: totpDeviceItem(userId, device),
            ConditionExpression: 'attribute_not_exists(pk) OR verified = :false',
            ExpressionAttributeValues: { ':false': false },
          },
        },
        onConditionFailed: 'EXISTS' as const,
      },
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async renameDevice(userId: string, device: TotpDevice, newName: string): Promise<'OK' | 'EXISTS' | 'STALE'> {
    const T = this.ctx.tableName;
    const result = await writeAtomically<'EXISTS' | 'STALE'>(this.ctx, [
      { item: { Delete: { TableName: T, Key: keys.totpDevice(userId, device.name), ...ifSameDevice(device) } }, onConditionFailed: 'STALE' },
      { item: { Put: { TableName: T, Item: totpDeviceItem(userId, { ...device, name: newName }), ...ifAbsent } }, onConditionFailed: 'EXISTS' },
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async removeDevice(userId: string, name: string): Promise<boolean> {
    const items = await this.keysOf(userId);
    const deviceKey = keys.totpDevice(userId, name);
    if (!items.some((k) => k.sk === deviceKey.sk)) return false;
    const others = items.filter((k) => k.sk !== deviceKey.sk);
    // The last device takes the user's attempts with it (the core deletes its TOTP user).
    const rest = others.some((k) => k.sk.startsWith(keys.totpDevicePrefix)) ? [] : others;
    const T = this.ctx.tableName;
    const first = rest.slice(0, MAX_TRANSACTION_ITEMS - 1);
    const writes: TaggedWrite<'GONE'>[] = [
      { item: { Delete: { TableName: T, Key: deviceKey, ConditionExpression: 'attribute_exists(pk)' } }, onConditionFailed: 'GONE' },
      ...first.map((Key) => ({ item: { Delete: { TableName: T, Key } }, onConditionFailed: 'GONE' as const })),
    ];
    const result = await writeAtomically(this.ctx, writes);
    if (!result.ok) return false;
    await deleteInChunks(this.ctx, rest.slice(first.length));
    return true;
  }

  async recordAttempts(
    userId: string,
    tenantId: string,
    attempts: readonly TotpAttempt[],
    readVersion: number | undefined,
    verify?: TotpDevice,
  ): Promise<'OK' | 'STALE'> {
    const T = this.ctx.tableName;
    const keepUntil = Math.max(...attempts.map((a) => a.keepUntil));
    const writes: TaggedWrite<'STALE'>[] = [
      {
        item: {
          Put: {
            TableName: T,
            Item: {
              ...keys.totpAttempts(userId, tenantId),
              type: TOTP_ATTEMPTS_TYPE,
              userId,
              tenantId,
              attempts,
              version: (readVersion ?? 0) + 1,
              // Collected once no attempt counts any more; reads never rely on it having run.
              [ATTR.ttl]: Math.ceil(keepUntil / 1000),
            },
            ...(readVersion === undefined ? ifAbsent : ifVersion(readVersion)),
          },
        },
        onConditionFailed: 'STALE',
      },
    ];
    if (verify) {
      writes.push({
        item: {
          Update: {
            TableName: T,
            Key: keys.totpDevice(userId, verify.name),
            UpdateExpression: 'SET verified = :true',
            ConditionExpression: ifSameDevice(verify).ConditionExpression,
            ExpressionAttributeValues: { ...ifSameDevice(verify).ExpressionAttributeValues, ':true': true },
          },
        },
        onConditionFailed: 'STALE',
      });
    }
    const result = await writeAtomically(this.ctx, writes);
    return result.ok ? 'OK' : result.failed;
  }

  /** The keys of everything kept for a user id (consistent). */
  private async keysOf(userId: string): Promise<Key[]> {
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.totpPartition(userId) },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    });
    return items.map((i) => ({ pk: i.pk as string, sk: i.sk as string }));
  }
}
