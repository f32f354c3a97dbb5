import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../keys';
import type { TenantConfigRecord, ThirdPartyProvider } from '../model';
import type { ProvidersWriteResult, TenantConfigStore } from '../ports/tenant-configs';
import { isObject, readNumber, readString, readStrings, StoredItemError, type Stored } from './stored-fields';
import { forEachPage, getConsistent, isConditionFailure, queryAll, writeAtomically, type DynamoContext, type TxItem } from './transact';
import { TENANT_PROVIDER_TYPE, TENANT_TYPE, tenantFromItem } from './dynamo-tenant-store';

/** How often a removal of a tenant reads it again when its providers changed meanwhile. */
const REMOVE_TRIES = 8;

/** A provider item's stored JSON text, read back (this build wrote it: an object with its id). */
function providerOf(item: Stored): { provider: ThirdPartyProvider; bytes: number } {
  const text = readString(item.provider, 'provider');
  const provider: unknown = JSON.parse(text);
  if (!isObject(provider) || typeof provider.thirdPartyId !== 'string') throw new StoredItemError('provider', 'the JSON text of a provider');
  return { provider: provider as unknown as ThirdPartyProvider, bytes: Buffer.byteLength(text, 'utf8') };
}

/** A tenant's item and its providers' items (in any order) as the tenant with its providers, in the tenant's order. */
function configOf(tenantItem: Stored, providerItems: readonly Stored[]): TenantConfigRecord {
  const byId = new Map(providerItems.map((item) => [readString(item.thirdPartyId, 'thirdPartyId'), item]));
  let providerBytes = 0;
  const providers = (tenantItem.providerIds === undefined ? [] : readStrings(tenantItem.providerIds, 'providerIds')).map((id) => {
    const item = byId.get(id);
    // Written in the transaction that lists it: a listed provider without its item is a broken table.
    if (!item) throw new StoredItemError('providerIds', 'the ids of stored providers');
    const { provider, bytes } = providerOf(item);
    providerBytes += bytes;
    return provider;
  });
  const providersVersion = tenantItem.providersVersion === undefined ? 0 : readNumber(tenantItem.providersVersion, 'providersVersion');
  return { ...tenantFromItem(tenantItem), providers, providersVersion, providerBytes };
}

/**
 * `TenantConfigStore` on DynamoDB. A tenant's providers (SPEC §22) are items of their own beside
 * its item in the tenants partition (`keys.tenantProvider`): 50 providers of up to 64 KiB cannot
 * be one item (400 KB), and one Query of the tenant's key range reads the tenant with them. The
 * tenant item keeps their order (`providerIds`) and a counter of their changes (`providersVersion`),
 * on which every change of them and a removal of the tenant is conditional.
 */
export class DynamoTenantConfigStore implements TenantConfigStore {
  constructor(private readonly ctx: DynamoContext) {}

  async getTenantConfig(tenantId: string): Promise<TenantConfigRecord | undefined> {
    const tenantSk = keys.tenant(tenantId).sk;
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': keys.tenantsPartition, ':from': tenantSk, ':to': keys.tenantItemsEnd(tenantId) },
      ConsistentRead: true,
    });
    const tenantItem = items.find((item) => item.sk === tenantSk);
    return (
      tenantItem &&
      configOf(
        tenantItem,
        items.filter((item) => item.type === TENANT_PROVIDER_TYPE),
      )
    );
  }

  async listTenantConfigs(maxBytes: number): Promise<TenantConfigRecord[] | undefined> {
    const tenants: Stored[] = [];
    const providers = new Map<string, Stored[]>();
    let bytes = 0;
    await forEachPage(
      this.ctx,
      { KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.tenantsPartition }, ConsistentRead: true },
      (page) => {
        for (const item of page.Items ?? []) {
          if (item.type === TENANT_TYPE) tenants.push(item);
          if (item.type !== TENANT_PROVIDER_TYPE) continue;
          bytes += Buffer.byteLength(readString(item.provider, 'provider'), 'utf8');
          const tenantId = readString(item.tenantId, 'tenantId');
          providers.set(tenantId, [...(providers.get(tenantId) ?? []), item]);
        }
      },
      () => bytes <= maxBytes,
    );
    if (bytes > maxBytes) return undefined;
    return tenants.map((item) => configOf(item, providers.get(readString(item.tenantId, 'tenantId')) ?? []));
  }

  /** The tenant item's new list of providers, at the version after `version`, on condition it is still at `version`. */
  private listWrite(tenantId: string, version: number, order: readonly string[], createdAt?: number): TxItem {
    const set = ['providerIds = :order', 'providersVersion = :next'];
    const values: Record<string, unknown> = { ':order': [...order], ':next': version + 1 };
    const names: Record<string, string> = {};
    if (createdAt !== undefined) {
      set.push('#type = :type', 'tenantId = :tenantId', 'createdAt = if_not_exists(createdAt, :createdAt)');
      Object.assign(values, { ':type': TENANT_TYPE, ':tenantId': tenantId, ':createdAt': createdAt });
      names['#type'] = 'type';
    }
    let condition = 'providersVersion = :version';
    if (version === 0)
      condition = createdAt === undefined ? 'attribute_exists(pk) AND attribute_not_exists(providersVersion)' : 'attribute_not_exists(providersVersion)';
    else values[':version'] = version;
    return {
      Update: {
        TableName: this.ctx.tableName,
        Key: keys.tenant(tenantId),
        UpdateExpression: `SET ${set.join(', ')}`,
        ConditionExpression: condition,
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
      },
    };
  }

  async putProvider(
    tenantId: string,
    version: number,
    order: readonly string[],
    provider: ThirdPartyProvider,
    createdAt?: number,
  ): Promise<ProvidersWriteResult> {
    const item = {
      ...keys.tenantProvider(tenantId, provider.thirdPartyId),
      type: TENANT_PROVIDER_TYPE,
      tenantId,
      thirdPartyId: provider.thirdPartyId,
      // JSON text, as metadata: DynamoDB maps take no empty key and round numbers to 38 digits.
      provider: JSON.stringify(provider),
    };
    const result = await writeAtomically(this.ctx, [
      { item: this.listWrite(tenantId, version, order, createdAt), onConditionFailed: 'STALE' as const },
      { item: { Put: { TableName: this.ctx.tableName, Item: item } }, onConditionFailed: 'STALE' as const },
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async removeProvider(tenantId: string, version: number, order: readonly string[], thirdPartyId: string): Promise<ProvidersWriteResult> {
    const result = await writeAtomically(this.ctx, [
      { item: this.listWrite(tenantId, version, order), onConditionFailed: 'STALE' as const },
      { item: { Delete: { TableName: this.ctx.tableName, Key: keys.tenantProvider(tenantId, thirdPartyId) } }, onConditionFailed: 'STALE' as const },
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async removeTenant(tenantId: string): Promise<boolean> {
    const T = this.ctx.tableName;
    try {
      // A tenant without providers: one DeleteItem, as before providers existed.
      const out = await this.ctx.doc.send(
        new DeleteCommand({
          TableName: T,
          Key: keys.tenant(tenantId),
          ConditionExpression: 'attribute_not_exists(providerIds) OR size(providerIds) = :none',
          ExpressionAttributeValues: { ':none': 0 },
          ReturnValues: 'ALL_OLD',
        }),
      );
      return out.Attributes !== undefined;
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
    for (let n = 0; n < REMOVE_TRIES; n++) {
      const item = await getConsistent(this.ctx, keys.tenant(tenantId));
      if (!item) return false;
      const providersVersion = item.providersVersion === undefined ? 0 : readNumber(item.providersVersion, 'providersVersion');
      const ids = item.providerIds === undefined ? [] : readStrings(item.providerIds, 'providerIds');
      // The tenant at the version read, with every provider it lists: a provider added since fails it.
      const result = await writeAtomically(this.ctx, [
        {
          item: {
            Delete: {
              TableName: T,
              Key: keys.tenant(tenantId),
              ConditionExpression: providersVersion === 0 ? 'attribute_exists(pk) AND attribute_not_exists(providersVersion)' : 'providersVersion = :version',
              ...(providersVersion === 0 ? {} : { ExpressionAttributeValues: { ':version': providersVersion } }),
            },
          },
          onConditionFailed: 'STALE' as const,
        },
        ...ids.map((id) => ({ item: { Delete: { TableName: T, Key: keys.tenantProvider(tenantId, id) } }, onConditionFailed: 'STALE' as const })),
      ]);
      if (result.ok) return true;
    }
    throw new Error(`Removing tenant ${tenantId} lost the race for its providers too often`);
  }
}
