import { standaloneUser } from '../auth-user';
import { ATTR, keys } from '../keys';
import { differingAttributes, scanPages } from './consistency';
import { ifAbsent, ifVersion, writeAtomically, type DynamoContext, type TaggedWrite } from './transact';
import { readUserPartition } from './dynamo-user-store';
import { itemsOfUser, ITEM_TYPE, loginMethodFromItem, userFromItems } from './user-items';

/** The item type of a user in storage format 1 (before account linking). */
const FORMAT_1_USER = 'user';

/**
 * Upgrades a table to storage format 2 (account linking). Format 1 kept each user's one login
 * method at `USER#<id>` / `USER`; format 2 keeps a user's login methods in its partition under
 * `LM#<recipeUserId>`. Guards are the same in both (a login method on its own names no other
 * user), so each format-1 item is rewritten on its own: one transaction deletes it at the version
 * read and puts its login method item if absent. Idempotent and safe while the service runs (a
 * user changed meanwhile is skipped by the condition and picked up by the next run). Returns how
 * many users it rewrote.
 */
export async function upgradeStorage(ctx: DynamoContext): Promise<number> {
  let upgraded = 0;
  const format1 = scanPages(ctx, {
    FilterExpression: '#type = :user AND sk = :sk',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':user': FORMAT_1_USER, ':sk': 'USER' },
  });
  for await (const page of format1) {
    for (const old of page) {
      const lm = loginMethodFromItem(old);
      const [derived] = itemsOfUser(standaloneUser(lm)).filter((d) => d.role === 'loginMethod');
      const result = await writeAtomically(ctx, [
        { item: { Delete: { TableName: ctx.tableName, Key: { pk: keys.userPartition(lm.userId), sk: 'USER' }, ...ifVersion(lm.version) } }, onConditionFailed: 'CHANGED' },
        { item: { Put: { TableName: ctx.tableName, Item: derived.item, ...ifAbsent } }, onConditionFailed: 'CHANGED' },
      ]);
      if (result.ok) upgraded++;
    }
  }
  return upgraded;
}

/**
 * Upgrades a table to storage format 3 (passwordless login methods findable by phone number in
 * gsi2, issue #15: consume's first try reads the index instead of the guard and the partition).
 * Format 2 indexed a login method only by its email; format 3 also indexes one without an email by
 * its phone number, and has a phone entry item where the item is not indexed so. For each user
 * with a phone number whose items lack that, one transaction puts its login method items again
 * at the version read (nothing else changes in them) and the missing entries if absent.
 * Idempotent and safe while the service runs (a user changed meanwhile was written whole by that
 * change, and the condition skips it). Returns how many users it rewrote.
 *
 * `npm start` runs it at every start, so the Scan passes on only the login methods that may lack
 * something: one with a phone and no gsi2 key (format 2 gave one without an email none), or one
 * that has phone entries (an email too, or several tenants), whose partition is read to see. A
 * phone-only login method in one tenant that has its key is done, and costs no read.
 */
export async function indexPhoneNumbers(ctx: DynamoContext): Promise<number> {
  let upgraded = 0;
  const candidates = scanPages(ctx, {
    FilterExpression: '#type = :lm AND attribute_exists(phoneNumber) AND (attribute_not_exists(#gsi2pk) OR attribute_exists(email) OR size(tenantIds) > :one)',
    ExpressionAttributeNames: { '#type': 'type', '#gsi2pk': ATTR.gsi2pk },
    ExpressionAttributeValues: { ':lm': ITEM_TYPE.loginMethod, ':one': 1 },
  });
  for await (const page of candidates) {
    const userIds = new Set(page.map((item) => keys.userIdOfPartition(item.pk as string)));
    for (const userId of userIds) if (await indexPhoneNumbersOf(ctx, userId)) upgraded++;
  }
  return upgraded;
}

async function indexPhoneNumbersOf(ctx: DynamoContext, userId: string): Promise<boolean> {
  const stored = await readUserPartition(ctx, userId);
  const user = userFromItems(userId, stored);
  if (!user) return false;
  const bySk = new Map(stored.map((item) => [item.sk as string, item]));
  const writes: TaggedWrite<'CHANGED'>[] = [];
  for (const derived of itemsOfUser(user)) {
    const actual = bySk.get(derived.key.sk);
    if (derived.role === 'loginMethod' && actual && actual[ATTR.gsi2pk] !== derived.item[ATTR.gsi2pk]) {
      writes.push({ item: { Put: { TableName: ctx.tableName, Item: derived.item, ...ifVersion(derived.loginMethod.version) } }, onConditionFailed: 'CHANGED' });
    }
    if (derived.role === 'entry' && derived.item.type === ITEM_TYPE.phoneEntry && !actual) {
      writes.push({ item: { Put: { TableName: ctx.tableName, Item: derived.item, ...ifAbsent } }, onConditionFailed: 'CHANGED' });
    }
  }
  if (writes.length === 0) return false;
  return (await writeAtomically(ctx, writes)).ok;
}

/**
 * Upgrades a table to storage formats 4, 7 and 8 (issue #15: sign-in answers from the guard alone,
 * and writes from it). Format 3's email-password email guard carried the hash; format 4's, and the
 * third-party identity's guard, also carry a copy of their login method when that is on its own
 * (`loginMethodCopy`), format 7's copy holds the login method's version too, and format 8's
 * third-party identity guard of a primary user's login method carries a copy naming that user.
 * For each such guard without a copy, or with one without the version, the user's partition (a
 * linked login method's: its primary user's) is read and one transaction puts the guard as the
 * user implies it, while it still names that login method and the user it is linked to (or none),
 * and while the login method is at the version read. Idempotent and safe while the service runs
 * (a user changed meanwhile was written whole by that change, its guards with it). Until it has
 * run, sign-in of such a user reads its partition too (correct, one call more), and so does a
 * sign-in that writes (a rehash, a provider's changed or newly verified email). Also rewrites a
 * primary user's third-party guard whose copy differs from its login method: the build before
 * format 8 wrote such a login method without its guard (it held no copy then), so a change made
 * by that build while a deploy rolls out leaves the copy behind; a sign-in from such a copy is
 * refused and goes through the user instead (correct, one refused write more), until this runs or
 * the login method changes again. Returns how many guards it rewrote. A primary user's own
 * email-password guards hold no copy, and a primary user's third-party guards are checked at
 * every run: each reads its partition and writes nothing when the guard is as the user implies.
 */
export function copyLoginMethodsToGuards(ctx: DynamoContext): Promise<number> {
  return copyLoginMethodsToItems(ctx, {
    FilterExpression:
      '#type = :guard AND ((contains(pk, :tp) AND (attribute_not_exists(loginMethod.#version) OR attribute_exists(loginMethod.primaryUserId))) ' +
      'OR (contains(pk, :ep) AND attribute_not_exists(loginMethod.#version) AND attribute_not_exists(primaryUserId)))',
    ExpressionAttributeNames: { '#type': 'type', '#version': 'version' },
    ExpressionAttributeValues: { ':guard': ITEM_TYPE.guard, ':ep': '#EP#EMAIL#', ':tp': '#TP#' },
  });
}

/**
 * Upgrades a table to storage formats 5 and 6 (issue #15: consume finds a passwordless login
 * method in the index alone, also by its email in another tenant or by its phone beside an email).
 * Format 4's email and phone entries only named their user, whose partition consume then read;
 * format 5's, for such a login method on its own, carry a copy of it with its version
 * (`passwordlessCopy`), and format 6's also for a primary user's, naming that user (its consume
 * reads the user beside its write). Each entry without a copy is put again as its user implies
 * it, as `copyLoginMethodsToGuards` does for guards (the same conditions, the same read). Until it
 * has run, such a consume reads the partition first (correct, one round trip more). Returns how
 * many entries it rewrote. The entries of email-password login methods in several tenants hold no
 * copy and stay candidates: each run reads their partitions and writes nothing.
 */
export function copyLoginMethodsToEntries(ctx: DynamoContext): Promise<number> {
  return copyLoginMethodsToItems(ctx, {
    FilterExpression: '(#type = :email OR #type = :phone) AND attribute_not_exists(loginMethod)',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: { ':email': ITEM_TYPE.emailEntry, ':phone': ITEM_TYPE.phoneEntry },
  });
}

/** Puts each guard or entry the scan finds as its user implies it (`copyLoginMethodTo`); how many it rewrote. */
async function copyLoginMethodsToItems(ctx: DynamoContext, scan: Parameters<typeof scanPages>[1]): Promise<number> {
  let upgraded = 0;
  for await (const page of scanPages(ctx, scan)) {
    for (const item of page) if (await copyLoginMethodTo(ctx, item)) upgraded++;
  }
  return upgraded;
}

/**
 * Puts a guard or an entry as its user implies it, with its copy; `false` when it implies none or
 * it changed. A guard names its login method, and the primary user when that login method is
 * linked, whose partition holds it; an entry names its user (a primary user's, for format 6) and
 * its copy's login method (`copyOf`). The put holds while the item still names that login method
 * or user (a guard: and the same primary user, or none) and the login method is at the version
 * read.
 */
async function copyLoginMethodTo(ctx: DynamoContext, stored: Record<string, unknown>): Promise<boolean> {
  const isGuard = stored.type === ITEM_TYPE.guard;
  const ownerId = stored.userId as string;
  const linkedTo = isGuard && typeof stored.primaryUserId === 'string' ? stored.primaryUserId : undefined;
  const userId = linkedTo ?? ownerId;
  const user = userFromItems(userId, await readUserPartition(ctx, userId));
  const derived = user && itemsOfUser(user).find((d) => (d.role === 'guard' || d.role === 'entry') && d.key.pk === stored.pk && d.key.sk === stored.sk);
  if (!derived || derived.item.loginMethod === undefined || differingAttributes(derived.item, stored).length === 0) return false;
  const lmId = derived.role === 'entry' ? derived.copyOf : ownerId;
  const lm = user.loginMethods.find((m) => m.userId === lmId);
  if (!lm) return false;
  const condition = !isGuard
    ? { ConditionExpression: 'userId = :owner', ExpressionAttributeValues: { ':owner': ownerId } }
    : linkedTo === undefined
      ? { ConditionExpression: 'userId = :owner AND attribute_not_exists(primaryUserId)', ExpressionAttributeValues: { ':owner': ownerId } }
      : { ConditionExpression: 'userId = :owner AND primaryUserId = :primary', ExpressionAttributeValues: { ':owner': ownerId, ':primary': linkedTo } };
  const result = await writeAtomically(ctx, [
    { item: { Put: { TableName: ctx.tableName, Item: derived.item, ...condition } }, onConditionFailed: 'CHANGED' },
    { item: { ConditionCheck: { TableName: ctx.tableName, Key: keys.loginMethod(user.id, lm.userId), ...ifVersion(lm.version) } }, onConditionFailed: 'CHANGED' },
  ]);
  return result.ok;
}

/**
 * Every upgrade, in the order they run, with what each rewrites and the storage format it brings:
 * `npm start` (on `.data`) and `npm run upgrade-storage` both run them all.
 */
export const STORAGE_UPGRADES: readonly { readonly run: (ctx: DynamoContext) => Promise<number>; readonly items: string; readonly format: string }[] = [
  { run: upgradeStorage, items: 'users', format: 'storage format 2 (account linking)' },
  { run: indexPhoneNumbers, items: 'users', format: 'storage format 3 (phone numbers indexed)' },
  { run: copyLoginMethodsToGuards, items: 'guards', format: 'storage format 8 (sign-in answers and writes from the guard)' },
  { run: copyLoginMethodsToEntries, items: 'entries', format: 'storage format 6 (consume answers from the index)' },
];
