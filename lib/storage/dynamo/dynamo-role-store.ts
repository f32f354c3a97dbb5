import { ATTR, BULK_LANES, INDEX, shardOf, type Key } from '../keys';
import * as keys from '../keys';
import type { RoleRecord } from '../model';
import type { RoleStore } from '../ports/roles';
import { ALL_ROLES, DynamoRoleReader } from './dynamo-role-reader';
import {
  batchGetAll,
  countAll,
  deleteInChunks,
  forEachPage,
  ifAbsent,
  MAX_TRANSACTION_ITEMS,
  queryAll,
  writeAtomically,
  type DynamoContext,
  type TaggedWrite,
} from './transact';

export const ROLE_TYPE = 'role';
export const PERMISSION_TYPE = 'rolePermission';
export const USER_ROLE_TYPE = 'userRole';
/** The assignment counter of a user id (`keys.userRolesVersion`). */
export const USER_ROLES_VERSION_TYPE = 'userRolesVersion';
/** A role's copy for one lane of the bulk-import worker (`keys.roleLane`). */
export const ROLE_LANE_TYPE = 'roleLane';

/**
 * Shards of the users-of-a-role index: one role given to millions of users in a migration writes
 * to this many index partition keys, not one (a partition key takes about 1,000 writes/s).
 */
export const ROLE_USER_SHARDS = 16;

/** The shard of a user id in the users-of-a-role index. */
export const roleUserShard = (userId: string): number => shardOf(userId, ROLE_USER_SHARDS);

/** The assignment item of a role to a user id in a tenant. */
export function userRoleItem(tenantId: string, userId: string, role: RoleRecord): Record<string, unknown> {
  return {
    ...keys.userRole(userId, tenantId, role.role),
    type: USER_ROLE_TYPE,
    userId,
    tenantId,
    role: role.role,
    roleUid: role.roleUid,
    [ATTR.gsi2pk]: keys.usersWithRole(role.role, roleUserShard(userId)),
    [ATTR.gsi2sk]: `${tenantId}#${encodeURIComponent(userId)}`,
  };
}

/**
 * A check, inside a transaction, that a role is still this incarnation: on the role's own item, or
 * on another item holding its `roleUid` (`key`: a bulk worker lane's copy, `keys.roleLane`).
 */
export function roleIsCurrent<T>(ctx: DynamoContext, role: RoleRecord, onConditionFailed: T, key: Key = keys.role(role.role)): TaggedWrite<T> {
  return {
    item: {
      ConditionCheck: { TableName: ctx.tableName, Key: key, ConditionExpression: 'roleUid = :uid', ExpressionAttributeValues: { ':uid': role.roleUid } },
    },
    onConditionFailed,
  };
}

/**
 * `RoleStore` on DynamoDB. A role's item and its permission items share its partition; an
 * assignment lives in its user id's partition (so a user's roles are one consistent Query) and is
 * indexed (gsi2, sharded) for the users of a role. Each assignment carries the incarnation of its
 * role (`roleUid`); reads count only assignments of the role's current incarnation.
 */
export class DynamoRoleStore extends DynamoRoleReader implements RoleStore {
  /** The current incarnation of several roles at once (consistent). */
  private async currentUids(roles: readonly string[]): Promise<Map<string, string>> {
    const items = await batchGetAll(
      this.ctx,
      roles.map((r) => keys.role(r)),
    );
    return new Map(items.map((item) => [item.role as string, item.roleUid as string]));
  }

  async createRole(role: RoleRecord): Promise<boolean> {
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Put: {
            TableName: this.ctx.tableName,
            Item: { ...keys.role(role.role), type: ROLE_TYPE, ...role, [ATTR.gsi1pk]: keys.allRoles, [ATTR.gsi1sk]: role.role },
            ...ifAbsent,
          },
        },
        onConditionFailed: 'EXISTS' as const,
      },
    ]);
    return result.ok;
  }

  async addPermissions(role: RoleRecord, permissions: readonly string[]): Promise<'OK' | 'ROLE_GONE'> {
    const unique = [...new Set(permissions)];
    const room = MAX_TRANSACTION_ITEMS - 1;
    for (let i = 0; i < unique.length; i += room) {
      const puts: TaggedWrite<'ROLE_GONE'>[] = unique.slice(i, i + room).map((permission) => ({
        item: {
          Put: {
            TableName: this.ctx.tableName,
            Item: {
              ...keys.rolePermission(role.role, permission),
              type: PERMISSION_TYPE,
              role: role.role,
              permission,
              [ATTR.gsi2pk]: keys.rolesWithPermission(permission),
              [ATTR.gsi2sk]: role.role,
            },
          },
        },
        onConditionFailed: 'ROLE_GONE',
      }));
      const result = await writeAtomically(this.ctx, [roleIsCurrent(this.ctx, role, 'ROLE_GONE' as const), ...puts]);
      if (!result.ok) return result.failed;
    }
    return 'OK';
  }

  private async permissionItems(role: string): Promise<Record<string, unknown>[]> {
    return queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :perm)',
      ExpressionAttributeValues: { ':pk': keys.role(role).pk, ':perm': keys.rolePermissionPrefix },
      ConsistentRead: true,
    });
  }

  async permissionsOf(role: string): Promise<string[]> {
    return (await this.permissionItems(role)).map((i) => i.permission as string);
  }

  async removePermissions(role: string, permissions: readonly string[]): Promise<void> {
    await deleteInChunks(
      this.ctx,
      [...new Set(permissions)].map((p) => keys.rolePermission(role, p)),
    );
  }

  async rolesWithPermission(permission: string): Promise<string[]> {
    const items = await queryAll(this.ctx, {
      IndexName: INDEX.byIdentity,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.gsi2pk },
      ExpressionAttributeValues: { ':pk': keys.rolesWithPermission(permission) },
    });
    return items.map((i) => i.role as string);
  }

  countRoles(): Promise<number> {
    return countAll(this.ctx, ALL_ROLES);
  }

  async removeRole(role: string, deadline: number): Promise<boolean> {
    const current = await this.getRole(role);
    if (!current) return false;
    // The role first: from then on no assignment can be added to it and none of its own counts.
    const removed = await writeAtomically(this.ctx, [
      {
        item: {
          Delete: {
            TableName: this.ctx.tableName,
            Key: keys.role(role),
            ConditionExpression: 'roleUid = :uid',
            ExpressionAttributeValues: { ':uid': current.roleUid },
          },
        },
        onConditionFailed: 'GONE' as const,
      },
    ]);
    // Then its copies in the bulk worker's lanes: none can be made any more (making one checks the
    // role), and an import that checked one just before this commits before the assignments below
    // are swept, or finds it gone (E034).
    await deleteInChunks(
      this.ctx,
      Array.from({ length: BULK_LANES }, (_, lane) => keys.roleLane(role, lane)),
    );
    await deleteInChunks(
      this.ctx,
      (await this.permissionItems(role)).map((i) => ({ pk: i.pk as string, sk: i.sk as string })),
    );
    for (let shard = 0; shard < ROLE_USER_SHARDS && Date.now() < deadline; shard++) {
      await forEachPage(
        this.ctx,
        {
          IndexName: INDEX.byIdentity,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': ATTR.gsi2pk },
          ExpressionAttributeValues: { ':pk': keys.usersWithRole(role, shard) },
          ProjectionExpression: 'pk, sk',
        },
        (out) =>
          deleteInChunks(
            this.ctx,
            (out.Items ?? []).map((i) => ({ pk: i.pk as string, sk: i.sk as string })),
          ),
        () => Date.now() < deadline,
      );
    }
    return removed.ok;
  }

  /**
   * Adds the assignment if the role is still this incarnation, and one to the user id's assignment
   * counter in the same transaction: removing a user conditions on the counter's version it read,
   * so an assignment made between that read and the removal fails the removal, which reads again
   * and takes the new assignment too (one write unit more per assignment).
   */
  async assignRole(tenantId: string, userId: string, role: RoleRecord): Promise<'OK' | 'ALREADY' | 'ROLE_GONE'> {
    const result = await writeAtomically<'ALREADY' | 'ROLE_GONE'>(this.ctx, [
      roleIsCurrent(this.ctx, role, 'ROLE_GONE' as const),
      {
        item: {
          Update: {
            TableName: this.ctx.tableName,
            Key: keys.userRolesVersion(userId),
            UpdateExpression: 'SET #type = :type, userId = :userId ADD #version :one',
            ExpressionAttributeNames: { '#type': 'type', '#version': 'version' },
            ExpressionAttributeValues: { ':type': USER_ROLES_VERSION_TYPE, ':userId': userId, ':one': 1 },
          },
        },
        onConditionFailed: 'ROLE_GONE',
      },
      {
        item: {
          Put: {
            TableName: this.ctx.tableName,
            Item: userRoleItem(tenantId, userId, role),
            // A leftover of a removed incarnation of the role counts as absent.
            ConditionExpression: 'attribute_not_exists(pk) OR roleUid <> :uid',
            ExpressionAttributeValues: { ':uid': role.roleUid },
          },
        },
        onConditionFailed: 'ALREADY',
      },
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async unassignRole(tenantId: string, userId: string, role: RoleRecord): Promise<boolean> {
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Delete: {
            TableName: this.ctx.tableName,
            Key: keys.userRole(userId, tenantId, role.role),
            ConditionExpression: 'roleUid = :uid',
            ExpressionAttributeValues: { ':uid': role.roleUid },
          },
        },
        onConditionFailed: 'NOT_HELD' as const,
      },
    ]);
    return result.ok;
  }

  /**
   * A user id's assignments whose sort key starts with `prefix` (one tenant's, or every tenant's),
   * read consistently, of roles still in the incarnation assigned: leftovers of removed roles
   * (removing a role deletes its assignments after the role) are not among them.
   */
  private async currentAssignments(userId: string, prefix: string): Promise<Record<string, unknown>[]> {
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.userRolesPartition(userId), ':prefix': prefix },
      ConsistentRead: true,
    });
    const uids = await this.currentUids([...new Set(items.map((i) => i.role as string))]);
    return items.filter((i) => uids.get(i.role as string) === i.roleUid);
  }

  async removeUserRolesInTenant(tenantId: string, userId: string): Promise<boolean> {
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.userRolesPartition(userId), ':prefix': keys.userRolesOfTenantPrefix(tenantId) },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    });
    // Deleting an assignment needs no counter: only adding one must fail a concurrent removal of the user.
    await deleteInChunks(
      this.ctx,
      items.map((i) => ({ pk: i.pk as string, sk: i.sk as string })),
    );
    return items.length > 0;
  }

  async rolesOfUser(tenantId: string, userId: string): Promise<string[]> {
    return (await this.currentAssignments(userId, keys.userRolesOfTenantPrefix(tenantId))).map((i) => i.role as string);
  }

  async countAssignments(userId: string): Promise<number> {
    // `T#`: the assignments of every tenant, not the counter (`keys.userRolesVersion`).
    return (await this.currentAssignments(userId, 'T#')).length;
  }

  async usersWithRole(tenantId: string, role: RoleRecord, maxBytes: number): Promise<string[] | undefined> {
    // The shards are read at once, each page after page, until all are read or their ids together
    // are over `maxBytes`: a role every user of a migration holds is not read to its end.
    let bytes = 0;
    const shards = await Promise.all(
      Array.from({ length: ROLE_USER_SHARDS }, async (_, shard) => {
        const ids: string[] = [];
        await forEachPage(
          this.ctx,
          {
            IndexName: INDEX.byIdentity,
            KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :tenant)',
            FilterExpression: 'roleUid = :uid',
            ExpressionAttributeNames: { '#pk': ATTR.gsi2pk, '#sk': ATTR.gsi2sk },
            ExpressionAttributeValues: { ':pk': keys.usersWithRole(role.role, shard), ':tenant': `${tenantId}#`, ':uid': role.roleUid },
          },
          (out) => {
            for (const item of out.Items ?? []) {
              ids.push(item.userId as string);
              bytes += Buffer.byteLength(item.userId as string, 'utf8') + 5;
            }
          },
          () => bytes <= maxBytes,
        );
        return ids;
      }),
    );
    return bytes > maxBytes ? undefined : shards.flat();
  }
}
