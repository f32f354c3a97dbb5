import { isLoginMark, LOGIN_MARK_FIELDS } from '../auth-user';
import * as keys from '../keys';
import type { UserRecord } from '../model';
import { STALE, type UserConflict } from './leaving-ids';
import { setOrRemove, type DynamoContext, type TaggedWrite } from './transact';
import { ifOwner } from './user-diff';
import { itemsOfUser } from './user-items';

/**
 * The writes of a mark on a login method of a primary user (`isLoginMark`: its verified emails or
 * phone, or a consume's marks), from its snapshot alone, without the user: an update of its item
 * at the next version, on the condition that the item holds the version read (a login method
 * unlinked, removed or changed since fails it, as `userChangeWrites`' put does), and the items
 * holding a snapshot of it (`SNAPSHOT_CARRIERS`), at that version, while they are still its and
 * the user's. Its list places and claims do not depend on a mark, so `userChangeWrites` of the
 * whole user writes these items alone, with the same content (`user-items.test.ts` checks both).
 * Any other change throws: it needs the user.
 */
export function loginMarkWrites(ctx: DynamoContext, primaryUserId: string, before: UserRecord, after: UserRecord): TaggedWrite<UserConflict>[] {
  if (!isLoginMark(before, after)) {
    throw new Error(`Login method ${before.userId}: only verifications and a consume's marks are written without its user`);
  }
  const update: TaggedWrite<UserConflict> = {
    item: {
      Update: {
        TableName: ctx.tableName,
        Key: keys.loginMethod(primaryUserId, after.userId),
        ...setOrRemove(Object.fromEntries(LOGIN_MARK_FIELDS.map((field) => [field, after[field] ?? null])), {
          set: ['#version = :next'],
          names: { '#version': 'version' },
          values: { ':version': before.version, ':next': before.version + 1 },
        }),
        ConditionExpression: '#version = :version',
      },
    },
    onConditionFailed: STALE,
  };
  // A snapshot follows from its user's id and its login method alone: a user of this login method
  // alone derives the same carriers as the whole user.
  const written = { ...after, version: before.version + 1 };
  const carriers = itemsOfUser({ id: primaryUserId, isPrimary: true, loginMethods: [written] }).filter(
    (d) => (d.role === 'entry' || d.role === 'guard') && d.snapshotOf === after.userId,
  );
  return [update, ...carriers.map((d) => ({ item: { Put: { TableName: ctx.tableName, Item: d.item, ...ifOwner(d.item) } }, onConditionFailed: STALE }))];
}
