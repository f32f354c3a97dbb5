import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../keys';
import { TENANT_FACTOR_LISTS, type TenantFactorsChange, type TenantRecord } from '../model';
import type { TenantStore } from '../ports/tenants';
import { readNumber, readString, readStrings, type Stored } from './stored-fields';
import { queryAll, setOrRemove, type DynamoContext } from './transact';

/** The `type` of a tenant's item, and of a tenant's provider's (SPEC §22), in the tenants partition. */
export const TENANT_TYPE = 'tenant';
export const TENANT_PROVIDER_TYPE = 'tenantProvider';

/** A tenant item read back: its id, when it was made, and the factor lists it holds. */
export function tenantFromItem(item: Stored): TenantRecord {
  const lists = TENANT_FACTOR_LISTS.flatMap((name) => (item[name] === undefined ? [] : [[name, readStrings(item[name], name)] as const]));
  return { tenantId: readString(item.tenantId, 'tenantId'), createdAt: readNumber(item.createdAt, 'createdAt'), ...Object.fromEntries(lists) };
}

/**
 * `TenantStore` on DynamoDB: all tenants in one small partition, beside their providers
 * (`DynamoTenantConfigStore`), which these reads leave out.
 */
export class DynamoTenantStore implements TenantStore {
  constructor(private readonly ctx: DynamoContext) {}

  async putTenant(tenantId: string, createdAt: number, change: TenantFactorsChange = {}): Promise<boolean> {
    // One write, whether or not the tenant exists: it was new when it had no creation time before.
    const out = await this.ctx.doc.send(
      new UpdateCommand({
        TableName: this.ctx.tableName,
        Key: keys.tenant(tenantId),
        ...setOrRemove(Object.fromEntries(TENANT_FACTOR_LISTS.filter((name) => change[name] !== undefined).map((name) => [name, change[name]])), {
          set: ['#type = :type', '#tenantId = :tenantId', '#createdAt = if_not_exists(#createdAt, :createdAt)'],
          names: { '#type': 'type', '#tenantId': 'tenantId', '#createdAt': 'createdAt' },
          values: { ':type': TENANT_TYPE, ':tenantId': tenantId, ':createdAt': createdAt },
        }),
        ReturnValues: 'UPDATED_OLD',
      }),
    );
    return out.Attributes?.createdAt === undefined;
  }

  async tenantExists(tenantId: string): Promise<boolean> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.tenant(tenantId), ConsistentRead: true }));
    return out.Item !== undefined;
  }

  async listTenants(): Promise<TenantRecord[]> {
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      // The providers' items (SPEC §22) share the partition: only the tenants' come back.
      FilterExpression: '#type = :type',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':pk': keys.tenantsPartition, ':type': TENANT_TYPE },
      ConsistentRead: true,
    });
    return items.map(tenantFromItem);
  }
}
