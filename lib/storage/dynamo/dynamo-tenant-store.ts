import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys';
import type { TenantRecord } from '../model';
import type { TenantStore } from '../ports';
import { ifAbsent, queryAll, type DynamoContext } from './transact';

/** `TenantStore` on DynamoDB: all tenants in one small partition. */
export class DynamoTenantStore implements TenantStore {
  constructor(private readonly ctx: DynamoContext) {}

  async createTenant(tenant: TenantRecord): Promise<boolean> {
    try {
      await this.ctx.doc.send(
        new PutCommand({
          TableName: this.ctx.tableName,
          Item: { ...keys.tenant(tenant.tenantId), type: 'tenant', tenantId: tenant.tenantId, createdAt: tenant.createdAt },
          ...ifAbsent,
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof Error && err.name === 'ConditionalCheckFailedException') return false;
      throw err;
    }
  }

  async tenantExists(tenantId: string): Promise<boolean> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.tenant(tenantId), ConsistentRead: true }));
    return out.Item !== undefined;
  }

  async listTenants(): Promise<TenantRecord[]> {
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.tenantsPartition },
      ConsistentRead: true,
    });
    return items.map((item) => ({ tenantId: item.tenantId as string, createdAt: item.createdAt as number }));
  }

  async removeTenant(tenantId: string): Promise<boolean> {
    const out = await this.ctx.doc.send(new DeleteCommand({ TableName: this.ctx.tableName, Key: keys.tenant(tenantId), ReturnValues: 'ALL_OLD' }));
    return out.Attributes !== undefined;
  }
}
