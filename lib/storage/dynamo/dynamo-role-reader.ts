import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR, INDEX } from '../keys';
import * as keys from '../keys';
import type { RoleRecord } from '../model';
import type { RoleReader } from '../ports/roles';
import { queryAll, type DynamoContext } from './transact';

/** Every role's item, on the index (gsi1 `ROLES`). */
export const ALL_ROLES = {
  IndexName: INDEX.usersByTenant,
  KeyConditionExpression: '#pk = :pk',
  ExpressionAttributeNames: { '#pk': ATTR.gsi1pk },
  ExpressionAttributeValues: { ':pk': keys.allRoles },
};

/**
 * `RoleReader` on DynamoDB: a role's item (consistent) and the roles index. A class of its own,
 * which `DynamoRoleStore` extends, so the bulk-import functions bundle these two reads and none of
 * the role store's writes (esbuild keeps every method of a class it keeps).
 */
export class DynamoRoleReader implements RoleReader {
  constructor(protected readonly ctx: DynamoContext) {}

  async getRole(role: string): Promise<RoleRecord | undefined> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.role(role), ConsistentRead: true }));
    return out.Item ? { role: out.Item.role as string, roleUid: out.Item.roleUid as string } : undefined;
  }

  async listRoles(): Promise<string[]> {
    return (await queryAll(this.ctx, ALL_ROLES)).map((i) => i.role as string);
  }
}
