import type { Key } from '../keys';
import * as keys from '../keys';
import type { AuthUser } from '../model';
import type { UserWriteResult } from '../ports/users';
import { getConsistent, ifVersion, queryAll, readUserPartition, type DynamoContext, type TaggedWrite } from './transact';

/**
 * What removing a user does to the data the app keeps under its ids (SPEC §14: its metadata and
 * role assignments go with it; SPEC §20: its TOTP devices and attempts), beside the stores that
 * keep that data.
 */

export type UserConflict = Exclude<UserWriteResult, { status: 'OK' }>;

export const STALE: UserConflict = { status: 'STALE' };

/**
 * The user ids that leave the users written: a user's id or a login method's recipe user id that
 * none of the users answers to afterwards, and the external id of a login method that goes. An
 * external id dropped by a login method that stays (a mapping removed) is not among them: as in the
 * core, removing a mapping keeps what the app stored under the external id. The primary user's id
 * stays while the user has login methods. Another user may still answer to a leaving id (a forced
 * mapping made it that user's id too): `leavingIdWrites` keeps its data then.
 */
export function vanishedIds(before: readonly AuthUser[], after: readonly AuthUser[]): string[] {
  const remainingLoginMethods = new Set(after.flatMap((u) => u.loginMethods.map((lm) => lm.userId)));
  const remaining = new Set([...internalIdsOf(after), ...externalIdsOf(after)]);
  const leaving = before.flatMap((u) => [
    u.id,
    ...u.loginMethods.flatMap((lm) =>
      lm.externalUserId !== undefined && !remainingLoginMethods.has(lm.userId) ? [lm.userId, lm.externalUserId] : [lm.userId],
    ),
  ]);
  return [...new Set(leaving)].filter((id) => !remaining.has(id));
}

/** The users' own ids and their login methods' recipe user ids. */
const internalIdsOf = (users: readonly AuthUser[]): Set<string> => new Set(users.flatMap((u) => [u.id, ...u.loginMethods.map((lm) => lm.userId)]));

/** The external ids of the users' login methods. */
const externalIdsOf = (users: readonly AuthUser[]): Set<string> =>
  new Set(users.flatMap((u) => u.loginMethods.flatMap((lm) => (lm.externalUserId !== undefined ? [lm.externalUserId] : []))));

/** What the table holds under an id that leaves the users written (see `vanishedIds`), read just before the write. */
export interface LeavingId {
  readonly id: string;
  /**
   * An item of another user that still answers to the id (the id's own user partition, or its
   * external id guard): the id is not gone, its data stays, and the write is conditional on that
   * item still being there.
   */
  readonly heldBy?: Key;
  /** Keys that must still be absent for the id to be gone (its external id guard, mapped by nobody when read). */
  readonly unclaimed: readonly Key[];
  /** The id's role assignments in every tenant. */
  readonly assignments: readonly Key[];
  /** The version of the id's assignment counter (`keys.userRolesVersion`); `undefined`: it had none. */
  readonly assignmentsVersion?: number;
  /** Its TOTP devices and attempts (SPEC §20). */
  readonly totpItems: readonly Key[];
}

/**
 * What the table holds under an id leaving the `before` users (see `LeavingId`): whether another
 * user still answers to it (an item in the id's user partition, when it is not one of theirs;
 * its external id guard, when it is not one of their external ids) and, if not, its role
 * assignments in every tenant with their counter. All reads consistent, in parallel.
 */
export async function readLeavingId(ctx: DynamoContext, id: string, before: readonly AuthUser[]): Promise<LeavingId> {
  const ownsInternal = internalIdsOf(before).has(id);
  const ownsExternal = externalIdsOf(before).has(id);
  const [partitionItem, guard, roleItems, totpItems] = await Promise.all([
    // Any item of another user's partition holds the id (a user's partition is a few items).
    ownsInternal ? undefined : readUserPartition(ctx, id).then((items) => items[0]),
    ownsExternal ? undefined : getConsistent(ctx, keys.externalIdGuard(id)),
    queryAll(ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':pk': keys.userRolesPartition(id) },
      ProjectionExpression: 'pk, sk, #version',
      ConsistentRead: true,
    }),
    // Beside the other reads: one call more per leaving id, no round trip more.
    queryAll(ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.totpPartition(id) },
      ProjectionExpression: 'pk, sk',
      ConsistentRead: true,
    }),
  ]);
  const held = { unclaimed: [], assignments: [], totpItems: [] };
  if (partitionItem) return { id, heldBy: { pk: partitionItem.pk as string, sk: partitionItem.sk as string }, ...held };
  if (guard) return { id, heldBy: keys.externalIdGuard(id), ...held };
  const counter = roleItems.find((i) => i.sk === keys.userRolesVersion(id).sk);
  return {
    id,
    unclaimed: ownsExternal ? [] : [keys.externalIdGuard(id)],
    assignments: roleItems.filter((i) => i !== counter).map((i) => ({ pk: i.pk as string, sk: i.sk as string })),
    ...(counter ? { assignmentsVersion: counter.version as number } : {}),
    totpItems: totpItems.map((i) => ({ pk: i.pk as string, sk: i.sk as string })),
  };
}

/**
 * The writes for the data the app keeps under leaving ids (SPEC §14: removing a user removes its
 * metadata and role assignments; SPEC §20: its TOTP items), all conditional so the transaction
 * serialises with what could change the answer: an id another user still answers to keeps its
 * data while that user's item exists; a gone id loses its metadata, the assignments read and the
 * TOTP items read (a device made since the read stays: no counter guards them), provided no assignment was added
 * since (the counter still at the version read, or still absent) and nobody has been mapped to it
 * since (its external id guard still absent). A failed condition is `STALE`: the caller reads again.
 */
export function leavingIdWrites(ctx: DynamoContext, leaving: readonly LeavingId[]): TaggedWrite<UserConflict>[] {
  const T = ctx.tableName;
  const check = (Key: Key, ConditionExpression: string): TaggedWrite<UserConflict> => ({
    item: { ConditionCheck: { TableName: T, Key, ConditionExpression } },
    onConditionFailed: STALE,
  });
  return leaving.flatMap((l): TaggedWrite<UserConflict>[] => {
    if (l.heldBy) return [check(l.heldBy, 'attribute_exists(pk)')];
    const counter = keys.userRolesVersion(l.id);
    return [
      ...l.unclaimed.map((key) => check(key, 'attribute_not_exists(pk)')),
      // Deleting an absent item is harmless: these deletes need no condition.
      { item: { Delete: { TableName: T, Key: keys.metadata(l.id) } }, onConditionFailed: STALE },
      ...[...l.assignments, ...l.totpItems].map((Key) => ({ item: { Delete: { TableName: T, Key } }, onConditionFailed: STALE })),
      l.assignmentsVersion === undefined
        ? check(counter, 'attribute_not_exists(pk)')
        : {
            item: { Delete: { TableName: T, Key: counter, ...ifVersion(l.assignmentsVersion) } },
            onConditionFailed: STALE,
          },
    ];
  });
}
