import { standaloneUser } from '../auth-user';
import * as keys from '../keys';
import type { AuthUser } from '../model';
import { decodeLogin } from './login-codec';
import { ITEM_TYPE, userFromItems } from './stored-user-items';
import { readUserPartition, type DynamoContext } from './transact';

/**
 * The users of items read off an index (login method items, list entries, identity entries), each
 * once, in the order of their first item: a login method on its own is complete in its item; a
 * primary user's other login methods are read from its partition (consistently, all at once). An
 * index lags its table: just after a link, a login method may still be listed on its own beside
 * the primary user now holding it; it is answered once, in the primary user. What the user
 * lookups, lists and search (`dynamo-user-lookups.ts`, `-lists.ts`, `-search.ts`) answer.
 */
export async function usersOfIndexItems(ctx: DynamoContext, items: readonly Record<string, unknown>[]): Promise<AuthUser[]> {
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
        : readUserPartition(ctx, userId).then((partition) => userFromItems(userId, partition)),
    );
  }
  const users = (await Promise.all(order.map((id) => found.get(id)))).filter((u): u is AuthUser => u !== undefined);
  return onceEach(users);
}

/** The users less each login method on its own that a primary user among them now holds. */
export function onceEach(users: readonly AuthUser[]): AuthUser[] {
  const linked = new Set(users.filter((u) => u.isPrimary).flatMap((u) => u.loginMethods.map((lm) => lm.userId).filter((id) => id !== u.id)));
  return users.filter((u) => u.isPrimary || !linked.has(u.id));
}
