import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR, INDEX, keys, type Key } from '../keys';
import type { RecipeId, UserRecord } from '../model';
import type { UserListQuery, UserStore, UserWriteResult } from '../ports';
import { queryAll, writeAtomically, type DynamoContext } from './transact';
import { createUserWrites, deleteUserWrites, guardsOf, updateUserWrites, userFromItem } from './user-items';

/**
 * Items a filtered page reads at least per Query: `Limit` counts items before the filter, so a
 * small limit with a rare recipe would otherwise take many round trips.
 */
const FILTERED_READ_BATCH = 200;

/** `recipeId IN (...)` over the user items, or nothing for every recipe. */
function recipeFilter(recipeIds: readonly RecipeId[] | undefined): {
  FilterExpression?: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
} {
  if (recipeIds === undefined || recipeIds.length === 0) return { names: {}, values: {} };
  const values = Object.fromEntries(recipeIds.map((r, i) => [`:r${i}`, r]));
  return {
    FilterExpression: `#recipeId IN (${Object.keys(values).join(', ')})`,
    names: { '#recipeId': 'recipeId' },
    values,
  };
}

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
    const items = await queryAll(this.ctx, {
      IndexName: INDEX.byIdentity,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.gsi2pk },
      ExpressionAttributeValues: { ':pk': keys.usersWithEmail(tenantId, email) },
    });
    return items.map(userFromItem);
  }

  async createUser(user: UserRecord): Promise<UserWriteResult> {
    const result = await writeAtomically(this.ctx, createUserWrites(this.ctx, user));
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async updateUser(before: UserRecord, after: UserRecord): Promise<UserWriteResult> {
    const result = await writeAtomically(this.ctx, updateUserWrites(this.ctx, before, after));
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async replacePasswordHash(user: UserRecord, passwordHash: string): Promise<UserWriteResult> {
    const stale = { status: 'STALE' } as const;
    const { userId, email } = user;
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Update: {
            TableName: this.ctx.tableName,
            Key: keys.user(userId),
            UpdateExpression: 'SET passwordHash = :hash ADD #version :one',
            ConditionExpression: 'attribute_exists(pk) AND email = :email AND recipeId = :recipe',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':hash': passwordHash, ':one': 1, ':email': email, ':recipe': 'emailpassword' },
          },
        },
        onConditionFailed: stale,
      },
      ...guardsOf(user)
        .filter((g) => g.identity === 'email')
        .map(({ key }) => ({
        item: {
          Update: {
            TableName: this.ctx.tableName,
            Key: key,
            UpdateExpression: 'SET passwordHash = :hash',
            ConditionExpression: 'userId = :userId',
            ExpressionAttributeValues: { ':hash': passwordHash, ':userId': userId },
          },
        },
          onConditionFailed: stale,
        })),
    ]);
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async getEmailPasswordLogin(tenantId: string, email: string): Promise<{ userId: string; passwordHash?: string } | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({ TableName: this.ctx.tableName, Key: keys.emailGuard(tenantId, 'emailpassword', email), ConsistentRead: true }),
    );
    if (!out.Item) return undefined;
    return { userId: out.Item.userId as string, ...(typeof out.Item.passwordHash === 'string' ? { passwordHash: out.Item.passwordHash } : {}) };
  }

  async deleteUser(user: UserRecord): Promise<{ status: 'OK' } | { status: 'STALE' }> {
    const result = await writeAtomically(this.ctx, deleteUserWrites(this.ctx, user));
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async listUsers(tenantId: string, query: UserListQuery): Promise<{ users: UserRecord[]; hasMore: boolean }> {
    // One more than asked: whether it exists tells if another page follows, so the last page
    // carries no pagination token (and no empty page is ever needed).
    const want = query.limit + 1;
    const filter = recipeFilter(query.recipeIds);
    const names: Record<string, string> = { '#pk': ATTR.gsi1pk, ...filter.names };
    const values: Record<string, unknown> = { ':pk': keys.usersOfTenant(tenantId), ...filter.values };
    let condition = '#pk = :pk';
    if (query.after) {
      names['#sk'] = ATTR.gsi1sk;
      values[':after'] = keys.userListPosition(query.after.timeJoined, query.after.userId);
      condition += query.order === 'ASC' ? ' AND #sk > :after' : ' AND #sk < :after';
    }
    const users: UserRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const remaining = want - users.length;
      const out = await this.ctx.doc.send(
        new QueryCommand({
          TableName: this.ctx.tableName,
          IndexName: INDEX.usersByTenant,
          KeyConditionExpression: condition,
          ...(filter.FilterExpression ? { FilterExpression: filter.FilterExpression } : {}),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ScanIndexForward: query.order === 'ASC',
          Limit: filter.FilterExpression ? Math.max(remaining, FILTERED_READ_BATCH) : remaining,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of out.Items ?? []) if (users.length < want) users.push(userFromItem(item));
      startKey = out.LastEvaluatedKey;
    } while (startKey && users.length < want);
    return { users: users.slice(0, query.limit), hasMore: users.length > query.limit };
  }

  async countUsers(tenantId: string, recipeIds?: readonly RecipeId[]): Promise<number> {
    const filter = recipeFilter(recipeIds);
    let count = 0;
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await this.ctx.doc.send(
        new QueryCommand({
          TableName: this.ctx.tableName,
          IndexName: INDEX.usersByTenant,
          KeyConditionExpression: '#pk = :pk',
          ...(filter.FilterExpression ? { FilterExpression: filter.FilterExpression } : {}),
          ExpressionAttributeNames: { '#pk': ATTR.gsi1pk, ...filter.names },
          ExpressionAttributeValues: { ':pk': keys.usersOfTenant(tenantId), ...filter.values },
          Select: 'COUNT',
          ExclusiveStartKey: startKey,
        }),
      );
      count += out.Count ?? 0;
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return count;
  }
}
