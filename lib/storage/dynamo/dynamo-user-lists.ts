import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../keys';
import { ATTR, INDEX, USER_LIST_SHARDS } from '../keys';
import type { RecipeId } from '../model';
import type { UserListPage, UserListQuery, UserLists } from '../ports/user-lists';
import { countList, type ListFilter } from './count-list';
import { usersOfIndexItems } from './index-users';
import type { DynamoContext } from './transact';

/**
 * Items a filtered page reads at least per Query: `Limit` counts items before the filter, so a
 * small limit with a rare recipe would otherwise take many round trips.
 */
const FILTERED_READ_BATCH = 200;

/**
 * The filter of a tenant's list entries: users with a login method of one of these recipes in the
 * tenant (nothing for every recipe); with `oncePerApp`, only each user's one app-wide entry, and
 * the recipes of all its login methods.
 */
function listFilter(recipeIds: readonly RecipeId[] | undefined, oncePerApp = false): ListFilter {
  const attribute = oncePerApp ? 'appRecipeIds' : 'listRecipeIds';
  const values = Object.fromEntries((recipeIds ?? []).map((r, i) => [`:r${i}`, r]));
  const conditions = [
    ...(oncePerApp ? ['attribute_exists(#recipes)'] : []),
    ...(Object.keys(values).length > 0
      ? [
          `(${Object.keys(values)
            .map((v) => `contains(#recipes, ${v})`)
            .join(' OR ')})`,
        ]
      : []),
  ];
  if (conditions.length === 0) return { names: {}, values: {} };
  return { FilterExpression: conditions.join(' AND '), names: { '#recipes': attribute }, values };
}

/**
 * `UserLists` on DynamoDB: a tenant's list (gsi1) is spread over `USER_LIST_SHARDS` index
 * partitions (so a migration's writes are not capped by one partition key); a page reads each in
 * order from its place and merges them, a count adds them up.
 */
export class DynamoUserLists implements UserLists {
  constructor(private readonly ctx: DynamoContext) {}

  /**
   * The first `want` list entries of one shard of a tenant's user list, in the query's order,
   * after the query's place (a filtered Query reads at least `FILTERED_READ_BATCH` items a call:
   * `Limit` counts items before the filter).
   */
  private async listShard(tenantId: string, shard: number, query: UserListQuery, want: number): Promise<Record<string, unknown>[]> {
    const filter = listFilter(query.recipeIds);
    const names: Record<string, string> = { '#pk': ATTR.gsi1pk, ...filter.names };
    const values: Record<string, unknown> = { ':pk': keys.usersOfTenant(tenantId, shard), ...filter.values };
    let condition = '#pk = :pk';
    if (query.after) {
      names['#sk'] = ATTR.gsi1sk;
      values[':after'] = keys.userListPosition(query.after.timeJoined, query.after.userId);
      condition += query.order === 'ASC' ? ' AND #sk > :after' : ' AND #sk < :after';
    }
    const entries: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const remaining = want - entries.length;
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
      for (const item of out.Items ?? []) if (entries.length < want) entries.push(item);
      startKey = out.LastEvaluatedKey;
    } while (startKey && entries.length < want);
    return entries;
  }

  /**
   * A page of a tenant's users: each shard read in order from the page's place, merged. One more
   * entry than asked tells whether another page follows, so the last page carries no pagination
   * token (and no empty page is ever needed).
   */
  async listUsers(tenantId: string, query: UserListQuery): Promise<UserListPage> {
    const want = query.limit + 1;
    const shards = await Promise.all(Array.from({ length: USER_LIST_SHARDS }, (_, shard) => this.listShard(tenantId, shard, query, want)));
    const position = (i: Record<string, unknown>) => i[ATTR.gsi1sk] as string;
    const entries = shards
      .flat()
      .sort((a, b) => (position(a) < position(b) ? -1 : position(a) > position(b) ? 1 : 0) * (query.order === 'ASC' ? 1 : -1))
      .slice(0, want);
    const page = entries.slice(0, query.limit);
    const users = await usersOfIndexItems(this.ctx, page);
    const last = page[page.length - 1];
    return entries.length > query.limit && last ? { users, next: keys.parseUserListPosition(position(last)) } : { users };
  }

  /** Entries of one gsi1 list spread over `USER_LIST_SHARDS` partitions (`pkOf(shard)`), counted by `countList`. */
  private countShards(pkOf: (shard: number) => string, filter?: ListFilter): Promise<number> {
    return countList(
      this.ctx,
      Array.from({ length: USER_LIST_SHARDS }, (_, shard) => pkOf(shard)),
      filter,
    );
  }

  countUsers(tenantId: string, recipeIds?: readonly RecipeId[], oncePerApp = false): Promise<number> {
    return this.countShards((shard) => keys.usersOfTenant(tenantId, shard), listFilter(recipeIds, oncePerApp));
  }

  countPasswordMigrations(tenantId: string): Promise<number> {
    return this.countShards((shard) => keys.usersWaitingForPassword(tenantId, shard));
  }
}
