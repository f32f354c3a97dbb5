import { keyId } from '../keys';
import * as keys from '../keys';
import type { AuthUser } from '../model';
import { differingAttributes, scanPages } from './consistency';
import type { Stored } from './stored-fields';
import { ifAbsent, ifVersion, readUserPartition, writeAtomically, type DynamoContext, type TaggedWrite, type TxItem } from './transact';
import { CURRENT_FORMAT, itemsOfUser } from './user-items';
import { ITEM_TYPE, refOfGuard, userFromItems } from './stored-user-items';

/**
 * The storage format sweep: every item derived from a user carries the format it was written in
 * (`fmt`), and when a build brings a new format (`CURRENT_FORMAT`, `lib/storage/README.md`
 * "Formats"), this sweep finds the items of an older one and puts again, as this build derives
 * them, the items of their users that differ, and deletes the older items their users no longer
 * imply. Until it has run, readers accept the older format where they must. Run by
 * `npm run upgrade-storage` after a deploy, and by `npm start` at every start; idempotent, and
 * safe while the service runs.
 */

/** The user an item of the current format belongs to (the partition its derivation starts from). */
function userIdOf(item: Stored): string | undefined {
  switch (item.type) {
    case ITEM_TYPE.guard:
      return refOfGuard(item).userId;
    case ITEM_TYPE.link:
    case ITEM_TYPE.claim:
      return String(item.primaryUserId);
    default:
      return typeof item.pk === 'string' && item.pk.startsWith(keys.userPartition('')) ? keys.userIdOfPartition(item.pk) : undefined;
  }
}

/** A write's condition: the item is still of the format it was read in. */
const ofFormat = (item: Stored) =>
  item.fmt === undefined
    ? { ConditionExpression: 'attribute_not_exists(fmt)' }
    : { ConditionExpression: 'fmt = :fmt', ExpressionAttributeValues: { ':fmt': item.fmt } };

/**
 * Re-derives one user's items: puts each derived item that is missing or differs, deletes each of
 * `older` (its stored items of an older format) that it no longer implies, in one transaction
 * conditional on every login method being at the version read. Every write of a user's items
 * writes one of its login methods at a new version, so a user changed meanwhile fails it and is
 * left to the next run (which finds it re-derived by that change, or still older). The number of
 * items written, or `undefined` when the user changed.
 */
async function rederive(ctx: DynamoContext, userId: string, older: readonly Stored[]): Promise<number | undefined> {
  const partition = await readUserPartition(ctx, userId);
  const user: AuthUser | undefined = userFromItems(userId, partition);
  if (!user) return 0;
  const derived = itemsOfUser(user);
  const olderKeys = new Set(older.map((i) => keyId(i)));
  const stored = new Map([...partition, ...older].map((i) => [keyId(i), i]));
  const T = ctx.tableName;
  const writes: TaggedWrite<'CHANGED'>[] = [];
  const written = new Set<string>();
  for (const d of derived) {
    const k = keyId(d.key);
    const actual = stored.get(k);
    // Outside the partition only the older items were read: others of the user's are left as they are.
    if (!actual && d.key.pk !== keys.userPartition(userId) && !olderKeys.has(k)) continue;
    if (actual && differingAttributes(d.item, actual).length === 0) continue;
    const condition: Partial<NonNullable<TxItem['Put']>> = d.role === 'loginMethod' ? ifVersion(d.loginMethod.version) : actual ? ofFormat(actual) : ifAbsent;
    writes.push({ item: { Put: { TableName: T, Item: d.item, ...condition } }, onConditionFailed: 'CHANGED' });
    written.add(k);
  }
  const implied = new Set(derived.map((d) => keyId(d.key)));
  for (const item of older) {
    const k = keyId(item);
    if (implied.has(k)) continue;
    const Key = { pk: String(item.pk), sk: String(item.sk) };
    writes.push({ item: { Delete: { TableName: T, Key, ...ofFormat(item) } }, onConditionFailed: 'CHANGED' });
  }
  if (writes.length === 0) return 0;
  for (const lm of user.loginMethods) {
    const Key = keys.loginMethod(user.id, lm.userId);
    if (written.has(keyId(Key))) continue;
    writes.push({ item: { ConditionCheck: { TableName: T, Key, ...ifVersion(lm.version) } }, onConditionFailed: 'CHANGED' });
  }
  return (await writeAtomically(ctx, writes)).ok ? writes.filter((w) => !w.item.ConditionCheck).length : undefined;
}

/** Re-derives the users of every item of a format older than this build's; how many users and items it rewrote. */
export async function sweepFormats(ctx: DynamoContext): Promise<{ users: number; items: number }> {
  const older = new Map<string, Stored[]>();
  for await (const page of scanPages(ctx, { FilterExpression: 'fmt < :current', ExpressionAttributeValues: { ':current': CURRENT_FORMAT } })) {
    for (const item of page) {
      const userId = userIdOf(item);
      if (userId !== undefined) older.set(userId, [...(older.get(userId) ?? []), item]);
    }
  }
  const swept = { users: 0, items: 0 };
  for (const [userId, items] of older) {
    const n = await rederive(ctx, userId, items);
    if (n !== undefined && n > 0) {
      swept.users++;
      swept.items += n;
    }
  }
  return swept;
}
