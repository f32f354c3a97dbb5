import { keyId } from '../keys';
import type { AuthUser } from '../model';
import { TooManyItemsError } from '../errors';
import { STALE, vanishedIds, type UserConflict } from './leaving-ids';
import { ifAbsent, ifVersion, MAX_TRANSACTION_ITEMS, type DynamoContext, type TaggedWrite, type TxItem } from './transact';
import { itemsOfUser } from './user-items';
import { ownerOf, type DerivedItem, type UserItem } from './stored-user-items';

/** A write's condition: the item still names this owner (see `ownerOf`). */
export function ifOwner(
  item: UserItem,
  orAbsent = false,
): Pick<NonNullable<TxItem['Put']>, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'> {
  const owner = ownerOf(item);
  return {
    ConditionExpression: orAbsent ? 'attribute_not_exists(pk) OR #owner = :owner' : '#owner = :owner',
    ExpressionAttributeNames: { '#owner': owner.attribute },
    ExpressionAttributeValues: { ':owner': owner.id },
  };
}

/** Items are built by one function each, so equal content serialises equally. */
const sameItem = (a: UserItem, b: UserItem): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The item with its snapshot (if it carries one) at `version`: a snapshot goes with its login method. */
function atVersion(derived: DerivedItem, version: number | undefined): UserItem {
  const { item } = derived;
  if (version === undefined || !('snapshot' in item) || item.snapshot === undefined) return item;
  return { ...item, snapshot: { ...item.snapshot, version } };
}

/**
 * The writes that turn the stored state of the `before` users into the `after` users, as one
 * transaction (all or none), with `leaving`, the writes for the data kept under the ids that leave
 * (`leavingIdWrites`; required when any id leaves, since only a read tells whether another user
 * still answers to it):
 * - a login method is written only if it is still at the version read (or, when new, absent), and
 *   its version goes up by one; a removed one is deleted only at the version read;
 * - when anything but login method contents changes (a login method, link, guard or claim appears
 *   or goes), every login method of the users is written, so two changes to one user made from the
 *   same read can never both succeed;
 * - a snapshot of a login method is written with it, at the version the login method gets;
 * - a new guard or claim is written only if free, a released one deleted only if still ours, with
 *   the item its store keeps beside it (a passkey's key);
 * - writes are ordered so the most telling failure comes first: a stale read, then a claim held by
 *   another primary user, then an identity held by another login method.
 */
export function userChangeWrites(
  ctx: DynamoContext,
  before: readonly AuthUser[],
  after: readonly AuthUser[],
  leaving?: readonly TaggedWrite<UserConflict>[],
): TaggedWrite<UserConflict>[] {
  if (leaving === undefined && vanishedIds(before, after).length > 0) {
    throw new Error('User ids leave in this write: their data needs the reads of UserStore.writeUsers');
  }
  const old = new Map(before.flatMap(itemsOfUser).map((d) => [keyId(d.key), d]));
  const neu = new Map(after.flatMap(itemsOfUser).map((d) => [keyId(d.key), d]));
  const oldVersions = new Map(before.flatMap((u) => u.loginMethods).map((lm) => [lm.userId, lm.version]));
  const structural = old.size !== neu.size || [...old.keys()].some((k) => !neu.has(k));
  const T = ctx.tableName;
  const put = (
    item: UserItem,
    condition: Pick<NonNullable<TxItem['Put']>, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
  ): TxItem => ({
    Put: { TableName: T, Item: item, ...condition },
  });

  const stale: TaggedWrite<UserConflict>[] = [];
  const claims: TaggedWrite<UserConflict>[] = [];
  const guards: TaggedWrite<UserConflict>[] = [];
  const rest: TaggedWrite<UserConflict>[] = [];

  // The login methods written, at the version each gets: one more than read, or its own if new.
  const written = new Map<string, number>();
  for (const [k, n] of neu) {
    if (n.role !== 'loginMethod') continue;
    const o = old.get(k);
    const readVersion = oldVersions.get(n.loginMethod.userId);
    if (!o || o.role !== 'loginMethod' || structural || !sameItem(o.item, n.item)) {
      written.set(n.loginMethod.userId, readVersion === undefined ? n.loginMethod.version : readVersion + 1);
    }
  }

  for (const [k, n] of neu) {
    const o = old.get(k);
    if (n.role === 'loginMethod') {
      const version = written.get(n.loginMethod.userId);
      if (version === undefined) continue;
      stale.push({ item: put({ ...n.item, version }, o && o.role === 'loginMethod' ? ifVersion(o.loginMethod.version) : ifAbsent), onConditionFailed: STALE });
      continue;
    }
    const snapshotOf = n.role === 'guard' || n.role === 'entry' ? n.snapshotOf : undefined;
    const item = atVersion(n, snapshotOf === undefined ? undefined : written.get(snapshotOf));
    if (o && sameItem(o.item, item)) continue;
    if (o) {
      // Same key, new content (a guard's hash or snapshot, or the user it names): only while it is still ours.
      rest.push({ item: put(item, ifOwner(o.item)), onConditionFailed: STALE });
    } else if (n.role === 'link' || n.role === 'entry') {
      stale.push({ item: put(item, ifAbsent), onConditionFailed: STALE });
    } else if (n.role === 'claim') {
      claims.push({ item: put(item, ifAbsent), onConditionFailed: { status: 'ACCOUNT_INFO_TAKEN', identity: n.identity } });
    } else {
      guards.push({ item: put(item, ifAbsent), onConditionFailed: { status: 'IDENTITY_TAKEN', identity: n.identity } });
    }
  }
  for (const [k, o] of old) {
    if (neu.has(k)) continue;
    const condition = o.role === 'loginMethod' ? ifVersion(o.loginMethod.version) : ifOwner(o.item, true);
    (o.role === 'loginMethod' ? stale : rest).push({ item: { Delete: { TableName: T, Key: o.key, ...condition } }, onConditionFailed: STALE });
    // What a store keeps beside a guard goes with it (its owner's guard is deleted in the same transaction).
    if (o.role === 'guard' && o.attached) rest.push({ item: { Delete: { TableName: T, Key: o.attached } }, onConditionFailed: STALE });
  }
  rest.push(...(leaving ?? []));
  const writes = [...stale, ...claims, ...guards, ...rest];
  if (writes.length > MAX_TRANSACTION_ITEMS) throw new TooManyItemsError(writes.length);
  return writes;
}
