import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR, INDEX, keys, type Key } from '../keys';
import type { UserRecord } from '../model';
import type { UserStore, UserWriteResult } from '../ports';
import { writeAtomically, type DynamoContext } from './transact';
import { createUserWrites, updateUserWrites, userFromItem } from './user-items';

/** `UserStore` on DynamoDB: user items plus guard items for every unique identity. */
export class DynamoUserStore implements UserStore {
  constructor(private readonly ctx: DynamoContext) {}

  async getUser(userId: string): Promise<UserRecord | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({ TableName: this.ctx.tableName, Key: keys.user(userId), ConsistentRead: true }),
    );
    return out.Item ? userFromItem(out.Item) : undefined;
  }

  private async guardOwner(key: Key): Promise<string | undefined> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: key, ConsistentRead: true }));
    return out.Item?.userId as string | undefined;
  }

  getUserIdByEmail(tenantId: string, recipe: 'emailpassword' | 'passwordless', email: string): Promise<string | undefined> {
    return this.guardOwner(keys.emailGuard(tenantId, recipe, email));
  }

  getUserIdByPhone(tenantId: string, phoneNumber: string): Promise<string | undefined> {
    return this.guardOwner(keys.phoneGuard(tenantId, phoneNumber));
  }

  getUserIdByThirdParty(tenantId: string, thirdPartyId: string, thirdPartyUserId: string): Promise<string | undefined> {
    return this.guardOwner(keys.thirdPartyGuard(tenantId, thirdPartyId, thirdPartyUserId));
  }

  async listUsersByEmail(tenantId: string, email: string): Promise<UserRecord[]> {
    const users: UserRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.ctx.doc.send(
        new QueryCommand({
          TableName: this.ctx.tableName,
          IndexName: INDEX.byIdentity,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': ATTR.gsi2pk },
          ExpressionAttributeValues: { ':pk': keys.usersWithEmail(tenantId, email) },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) users.push(userFromItem(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return users;
  }

  async createUser(user: UserRecord): Promise<UserWriteResult> {
    const result = await writeAtomically(this.ctx, createUserWrites(this.ctx, user));
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async updateUser(before: UserRecord, after: UserRecord): Promise<UserWriteResult> {
    const result = await writeAtomically(this.ctx, updateUserWrites(this.ctx, before, after));
    return result.ok ? { status: 'OK' } : result.failed;
  }
}
