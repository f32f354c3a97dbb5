import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { standaloneUser } from '../auth-user';
import { ATTR, INDEX, USER_LIST_SHARDS } from '../keys';
import * as keys from '../keys';
import type { AuthUser, PasswordlessIdentity, RecipeId, UserRecord } from '../model';
import type { EmailPasswordLogin, LoginMark, LoginSnapshot, TenantAccountInfo, UserListPage, UserListQuery, UserStore, UserWriteResult } from '../ports/users';
import { countList, type ListFilter } from './count-list';
import { DynamoUserAccounts, loginOfGuard } from './dynamo-user-accounts';
import { decodeLogin, readSnapshot } from './login-codec';
import { loginMarkWrites } from './mark-writes';
import { readString } from './stored-fields';
import { batchGetAll, queryAll, writeAtomically } from './transact';
import { ITEM_TYPE, userFromItems } from './stored-user-items';

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
 * `UserStore` on DynamoDB: `DynamoUserAccounts` (reads by key, writes) and the reads of the
 * indexes: lists, counts and look-ups.
 */
export class DynamoUserStore extends DynamoUserAccounts implements UserStore {
  /**
   * Users from login method items read off an index: a login method on its own is complete in its
   * item; a primary user's other login methods are read from its partition (consistently).
   */
  protected async usersOfItems(items: readonly Record<string, unknown>[]): Promise<AuthUser[]> {
    const order: string[] = [];
    const found = new Map<string, Promise<AuthUser | undefined>>();
    for (const item of items) {
      const userId = keys.userIdOfPartition(item.pk as string);
      if (found.has(userId)) continue;
      order.push(userId);
      found.set(
        userId,
        item.type === ITEM_TYPE.loginMethod && item.primaryUserId === undefined
          ? Promise.resolve(standaloneUser(decodeLogin(item)))
          : this.readPartition(userId).then((partition) => userFromItems(userId, partition)),
      );
    }
    const users = (await Promise.all(order.map((id) => found.get(id)))).filter((u): u is AuthUser => u !== undefined);
    // An index lags its table: just after a link, a login method may still be listed on its own
    // beside the primary user now holding it. It is listed once, in the primary user.
    const linked = new Set(users.filter((u) => u.isPrimary).flatMap((u) => u.loginMethods.map((lm) => lm.userId).filter((id) => id !== u.id)));
    return users.filter((u) => u.isPrimary || !linked.has(u.id));
  }

  async listUsersByEmail(tenantId: string, email: string): Promise<AuthUser[]> {
    const items = await queryAll(this.ctx, {
      IndexName: INDEX.byIdentity,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.gsi2pk },
      ExpressionAttributeValues: { ':pk': keys.usersWithEmail(tenantId, email) },
    });
    return this.usersOfItems(items);
  }

  async findPasswordlessLoginByIndex(tenantId: string, identity: PasswordlessIdentity): Promise<LoginSnapshot | undefined> {
    const items = await queryAll(this.ctx, {
      IndexName: INDEX.byIdentity,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.gsi2pk },
      ExpressionAttributeValues: {
        ':pk': 'email' in identity ? keys.usersWithEmail(tenantId, identity.email) : keys.usersWithPhone(tenantId, identity.phoneNumber),
      },
    });
    const isIt = (lm: UserRecord) =>
      lm.recipeId === 'passwordless' &&
      lm.tenantIds.includes(tenantId) &&
      ('email' in identity ? lm.email === identity.email : lm.phoneNumber === identity.phoneNumber);
    // A login method item is whole (and names its primary user, if any); an entry of a passwordless
    // login method holds its snapshot, and an entry without one is of another recipe.
    for (const item of items) {
      const found: LoginSnapshot | undefined =
        item.type === ITEM_TYPE.loginMethod
          ? { loginMethod: decodeLogin(item), ...(item.primaryUserId === undefined ? {} : { primaryUserId: readString(item.primaryUserId, 'primaryUserId') }) }
          : readSnapshot(item);
      if (found && isIt(found.loginMethod)) return found;
    }
    return undefined;
  }

  async getPrimaryHolders(claims: readonly TenantAccountInfo[]): Promise<(string | undefined)[]> {
    const claimKeys = claims.map(({ tenantId, info }) => keys.claim(tenantId, info));
    const holders = new Map((await batchGetAll(this.ctx, claimKeys)).map((item) => [item.pk as string, item.primaryUserId as string]));
    return claimKeys.map((k) => holders.get(k.pk));
  }

  async writeLoginMark(mark: LoginMark): Promise<UserWriteResult> {
    const result = await writeAtomically(this.ctx, loginMarkWrites(this.ctx, mark.primaryUserId, mark.before, mark.after));
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async getEmailPasswordLogin(tenantId: string, email: string): Promise<EmailPasswordLogin | undefined> {
    const item = await this.guard(keys.emailGuard(tenantId, 'emailpassword', email));
    return item && loginOfGuard(item);
  }

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
   * A page of a tenant's users: the list is spread over `USER_LIST_SHARDS` index partitions (so a
   * migration's writes are not capped by one partition key), each read in order from the page's
   * place, and merged. One more entry than asked tells whether another page follows, so the last
   * page carries no pagination token (and no empty page is ever needed).
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
    const users = await this.usersOfItems(page);
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
