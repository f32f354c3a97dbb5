import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { standaloneUser, withLoginMethod, withPasswordHash } from '../auth-user';
import { ATTR, INDEX, keys, USER_LIST_SHARDS, type Key } from '../keys';
import type { AuthUser, PasswordlessIdentity, RecipeId, UserRecord } from '../model';
import type {
  EmailPasswordLogin,
  FoundLogin,
  LoginMark,
  LoginRef,
  LoginSnapshot,
  TenantAccountInfo,
  UserIdKind,
  UserListPage,
  UserListQuery,
  UserStore,
  UserWriteResult,
} from '../ports';
import { countList, type ListFilter } from './count-list';
import { leavingIdWrites, readLeavingId, vanishedIds } from './leaving-ids';
import { decodeLogin, readSnapshot } from './login-codec';
import { readOptionalString, readString, type Stored } from './stored-fields';
import { loginMarkWrites } from './mark-writes';
import { batchGetAll, getConsistent, queryAll, readUserPartition, writeAtomically, type DynamoContext } from './transact';
import { userChangeWrites } from './user-diff';
import { guardsOf, ITEM_TYPE, refOfGuard, userFromItems } from './user-items';

/**
 * Items a filtered page reads at least per Query: `Limit` counts items before the filter, so a
 * small limit with a rare recipe would otherwise take many round trips.
 */
const FILTERED_READ_BATCH = 200;

/**
 * How often a read follows a link to a user that no longer holds the login method (it was
 * unlinked or moved between the two reads) before giving up.
 */
const LINK_HOPS = 4;

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
 * What a guard holds of its login method (see `guardItem`): its snapshot, with the hash an
 * email-password email guard keeps beside it, or where it lives; and that hash.
 */
function loginOfGuard(item: Stored): EmailPasswordLogin {
  const passwordHash = readOptionalString(item.passwordHash, 'passwordHash');
  const found: FoundLogin = readSnapshot(item) ?? refOfGuard(item);
  return passwordHash === undefined ? found : { ...found, passwordHash };
}

/** `UserStore` on DynamoDB: a partition per user holding its login methods, plus guard and claim items. */
export class DynamoUserStore implements UserStore {
  constructor(protected readonly ctx: DynamoContext) {}

  private readPartition(userId: string): Promise<Record<string, unknown>[]> {
    return readUserPartition(this.ctx, userId);
  }

  async getUser(userId: string, as: UserIdKind = 'ANY'): Promise<AuthUser | undefined> {
    if (as === 'EXTERNAL') return this.getUserByExternalId(userId);
    const user = await this.getUserByInternalId(userId);
    return user ?? (as === 'ANY' ? this.getUserByExternalId(userId) : undefined);
  }

  /** The user holding the login method mapped to this external id, through its guard. */
  private async getUserByExternalId(externalUserId: string): Promise<AuthUser | undefined> {
    const ref = await this.guardOwner(keys.externalIdGuard(externalUserId));
    if (!ref) return undefined;
    const holds = (u: AuthUser | undefined) => u?.loginMethods.some((lm) => lm.userId === ref.recipeUserId && lm.externalUserId === externalUserId);
    const user = userFromItems(ref.userId, await this.readPartition(ref.userId));
    if (holds(user)) return user;
    // Linked or unlinked since the guard was read: its own id still finds it.
    const moved = await this.getUserByInternalId(ref.recipeUserId);
    return holds(moved) ? moved : undefined;
  }

  private async getUserByInternalId(userId: string): Promise<AuthUser | undefined> {
    for (let hop = 0; hop < LINK_HOPS; hop++) {
      const items = await this.readPartition(userId);
      const own = userFromItems(userId, items);
      if (own) return own;
      const link = items.find((i) => i.type === ITEM_TYPE.link);
      if (!link) return undefined;
      const primary = userFromItems(link.primaryUserId as string, await this.readPartition(link.primaryUserId as string));
      if (primary?.loginMethods.some((lm) => lm.userId === userId)) return primary;
      // Unlinked or moved between the two reads: read the login method's own partition again.
    }
    throw new Error(`The user of login method ${userId} kept moving while it was read`);
  }

  private guard(key: Key): Promise<Record<string, unknown> | undefined> {
    return getConsistent(this.ctx, key);
  }

  private async guardOwner(key: Key): Promise<LoginRef | undefined> {
    const item = await this.guard(key);
    return item && refOfGuard(item);
  }

  getLoginByEmail(tenantId: string, recipe: 'emailpassword' | 'passwordless', email: string): Promise<LoginRef | undefined> {
    return this.guardOwner(keys.emailGuard(tenantId, recipe, email));
  }

  getLoginByPhone(tenantId: string, phoneNumber: string): Promise<LoginRef | undefined> {
    return this.guardOwner(keys.phoneGuard(tenantId, phoneNumber));
  }

  async getLoginByThirdParty(tenantId: string, thirdPartyId: string, thirdPartyUserId: string): Promise<FoundLogin | undefined> {
    const item = await this.guard(keys.thirdPartyGuard(tenantId, thirdPartyId, thirdPartyUserId));
    return item && loginOfGuard(item);
  }

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

  createUser(loginMethod: UserRecord): Promise<UserWriteResult> {
    return this.writeUsers([], [standaloneUser(loginMethod)]);
  }

  async writeLoginMark(mark: LoginMark): Promise<UserWriteResult> {
    const result = await writeAtomically(this.ctx, loginMarkWrites(this.ctx, mark.primaryUserId, mark.before, mark.after));
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async writeUsers(before: readonly AuthUser[], after: readonly AuthUser[]): Promise<UserWriteResult> {
    const leaving = await Promise.all(vanishedIds(before, after).map((id) => readLeavingId(this.ctx, id, before)));
    const result = await writeAtomically(this.ctx, userChangeWrites(this.ctx, before, after, leavingIdWrites(this.ctx, leaving)));
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async replacePasswordHash(user: AuthUser, loginMethod: UserRecord, passwordHash: string): Promise<UserWriteResult> {
    // A login method on its own has a snapshot on its email guards, with its version, which a write
    // without a version check could not keep: it is written at the version read, as a wait for
    // password migration is (its waiting entries go too).
    const onItsOwn = !user.isPrimary && user.id === loginMethod.userId;
    if (loginMethod.passwordMigration || onItsOwn) return this.writeUsers([user], [withLoginMethod(user, withPasswordHash(loginMethod, passwordHash))]);
    const stale = { status: 'STALE' } as const;
    const { userId, email } = loginMethod;
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Update: {
            TableName: this.ctx.tableName,
            Key: keys.loginMethod(user.id, userId),
            UpdateExpression: 'SET passwordHash = :hash ADD #version :one',
            // A login method waiting for password migration takes a hash only through `writeUsers`,
            // which also deletes its waiting entries: here it is a stale read.
            ConditionExpression: 'attribute_exists(pk) AND email = :email AND recipeId = :recipe AND attribute_not_exists(passwordMigration)',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':hash': passwordHash, ':one': 1, ':email': email, ':recipe': 'emailpassword' },
          },
        },
        onConditionFailed: stale,
      },
      ...guardsOf(loginMethod)
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
