import { ATTR, keys, timeSortKey, type Key } from '../keys';
import type { IdentityKind, UserRecord } from '../model';
import type { UserWriteResult } from '../ports';
import type { DynamoContext, TaggedWrite } from './transact';

/** The guard items a user holds: one per unique identity per tenant. */
export function guardsOf(user: UserRecord): { key: Key; identity: IdentityKind }[] {
  const guards: { key: Key; identity: IdentityKind }[] = [];
  for (const tenantId of user.tenantIds) {
    if (user.recipeId === 'thirdparty' && user.thirdParty) {
      guards.push({ key: keys.thirdPartyGuard(tenantId, user.thirdParty.id, user.thirdParty.userId), identity: 'thirdParty' });
    }
    if (user.recipeId !== 'thirdparty' && user.email !== undefined) {
      guards.push({ key: keys.emailGuard(tenantId, user.recipeId, user.email), identity: 'email' });
    }
    if (user.recipeId === 'passwordless' && user.phoneNumber !== undefined) {
      guards.push({ key: keys.phoneGuard(tenantId, user.phoneNumber), identity: 'phone' });
    }
  }
  return guards;
}

/**
 * A guard item. The email-password email guard also carries the password hash: sign-in reads the
 * guard and can start verifying at once, fetching the user in parallel, instead of reading guard,
 * then user, then verifying (one DynamoDB round trip less on the slowest path of the service).
 * Every write that changes the hash updates this copy in the same transaction.
 */
export function guardItem(user: UserRecord, key: Key, identity: IdentityKind): Record<string, unknown> {
  const carriesHash = user.recipeId === 'emailpassword' && identity === 'email';
  return { ...key, type: 'guard', userId: user.userId, ...(carriesHash ? { passwordHash: user.passwordHash } : {}) };
}

/** The user item; index keys place it in its tenant's user list and its email's lookup. */
export function userItem(user: UserRecord): Record<string, unknown> {
  const tenantId = user.tenantIds[0];
  return {
    ...keys.user(user.userId),
    type: 'user',
    userId: user.userId,
    recipeId: user.recipeId,
    tenantIds: user.tenantIds,
    timeJoined: user.timeJoined,
    email: user.email,
    phoneNumber: user.phoneNumber,
    thirdParty: user.thirdParty,
    emailVerified: user.emailVerified,
    phoneVerified: user.phoneVerified,
    passwordHash: user.passwordHash,
    version: user.version,
    [ATTR.gsi1pk]: keys.usersOfTenant(tenantId),
    [ATTR.gsi1sk]: keys.userListPosition(user.timeJoined, user.userId),
    [ATTR.gsi2pk]: user.email !== undefined ? keys.usersWithEmail(tenantId, user.email) : undefined,
    [ATTR.gsi2sk]: user.email !== undefined ? `${timeSortKey(user.timeJoined)}#${user.userId}` : undefined,
  };
}

/** Reads a user item back into a record. */
export function userFromItem(item: Record<string, unknown>): UserRecord {
  return {
    userId: item.userId as string,
    recipeId: item.recipeId as UserRecord['recipeId'],
    tenantIds: item.tenantIds as string[],
    timeJoined: item.timeJoined as number,
    ...(item.email !== undefined ? { email: item.email as string } : {}),
    ...(item.phoneNumber !== undefined ? { phoneNumber: item.phoneNumber as string } : {}),
    ...(item.thirdParty !== undefined ? { thirdParty: item.thirdParty as { id: string; userId: string } } : {}),
    emailVerified: item.emailVerified === true,
    phoneVerified: item.phoneVerified === true,
    ...(item.passwordHash !== undefined ? { passwordHash: item.passwordHash as string } : {}),
    version: item.version as number,
  };
}

export type UserConflict = Exclude<UserWriteResult, { status: 'OK' }>;

/** Writes that create a user with its guards, each guard conditional on not existing yet. */
export function createUserWrites(ctx: DynamoContext, user: UserRecord): TaggedWrite<UserConflict>[] {
  return [
    {
      item: { Put: { TableName: ctx.tableName, Item: userItem(user), ConditionExpression: 'attribute_not_exists(pk)' } },
      onConditionFailed: { status: 'STALE' },
    },
    ...guardsOf(user).map(({ key, identity }) => ({
      item: {
        Put: {
          TableName: ctx.tableName,
          Item: guardItem(user, key, identity),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      onConditionFailed: { status: 'IDENTITY_TAKEN', identity } as UserConflict,
    })),
  ];
}

/**
 * Writes that replace `before` with `after` (version + 1): the user put is conditional on the
 * stored version, released guards are deleted only if they still point at this user, new guards
 * are created only if free, and a kept email-password guard gets the new hash copy.
 */
export function updateUserWrites(ctx: DynamoContext, before: UserRecord, after: UserRecord): TaggedWrite<UserConflict>[] {
  const oldGuards = guardsOf(before);
  const newGuards = guardsOf(after);
  const has = (list: { key: Key }[], key: Key) => list.some((g) => g.key.pk === key.pk);
  const next: UserRecord = { ...after, version: before.version + 1 };
  return [
    {
      item: {
        Put: {
          TableName: ctx.tableName,
          Item: userItem(next),
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':version': before.version },
        },
      },
      onConditionFailed: { status: 'STALE' },
    },
    ...oldGuards
      .filter((g) => !has(newGuards, g.key))
      .map(({ key }) => ({
        item: {
          Delete: {
            TableName: ctx.tableName,
            Key: key,
            ConditionExpression: 'userId = :userId',
            ExpressionAttributeValues: { ':userId': before.userId },
          },
        },
        onConditionFailed: { status: 'STALE' } as UserConflict,
      })),
    ...newGuards
      .filter((g) => !has(oldGuards, g.key))
      .map(({ key, identity }) => ({
        item: {
          Put: {
            TableName: ctx.tableName,
            Item: guardItem(after, key, identity),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        onConditionFailed: { status: 'IDENTITY_TAKEN', identity } as UserConflict,
      })),
    ...(before.passwordHash === after.passwordHash ? [] : newGuards)
      .filter((g) => has(oldGuards, g.key) && guardItem(after, g.key, g.identity).passwordHash !== undefined)
      .map(({ key, identity }) => ({
        item: {
          Put: {
            TableName: ctx.tableName,
            Item: guardItem(after, key, identity),
            ConditionExpression: 'userId = :userId',
            ExpressionAttributeValues: { ':userId': after.userId },
          },
        },
        onConditionFailed: { status: 'STALE' } as UserConflict,
      })),
  ];
}

/**
 * Writes that delete a user and every guard it holds: the user only if it is still at the version
 * read, each guard only if it is gone already or still points at this user (never another user's).
 */
export function deleteUserWrites(ctx: DynamoContext, user: UserRecord): TaggedWrite<{ status: 'STALE' }>[] {
  const stale = { status: 'STALE' } as const;
  return [
    {
      item: {
        Delete: {
          TableName: ctx.tableName,
          Key: keys.user(user.userId),
          ConditionExpression: '#version = :version',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':version': user.version },
        },
      },
      onConditionFailed: stale,
    },
    ...guardsOf(user).map(({ key }) => ({
      item: {
        Delete: {
          TableName: ctx.tableName,
          Key: key,
          ConditionExpression: 'attribute_not_exists(pk) OR userId = :userId',
          ExpressionAttributeValues: { ':userId': user.userId },
        },
      },
      onConditionFailed: stale,
    })),
  ];
}
