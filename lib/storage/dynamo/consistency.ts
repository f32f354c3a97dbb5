import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../keys';
import type { DynamoContext } from './transact';
import { guardItem, guardsOf, userFromItem } from './user-items';

/** One inconsistency found in the table. */
export interface ConsistencyProblem {
  readonly kind: 'guard-without-user' | 'guard-not-held' | 'user-missing-guard' | 'guard-stale-hash' | 'code-without-device' | 'device-without-code' | 'unknown-item';
  readonly key: string;
  readonly detail: string;
}

/**
 * Scans the whole table and reports every broken invariant of the storage design: a guard that
 * does not point at a user holding it, a user missing one of its guards (or an email-password
 * guard whose hash copy differs from its user's), a code whose device is
 * gone, a device with no code. Reads only; meant for tests, audits after a migration, and
 * `npm run check-consistency`. Never reports secrets (keys only).
 */
export async function checkConsistency(ctx: DynamoContext): Promise<ConsistencyProblem[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await ctx.doc.send(new ScanCommand({ TableName: ctx.tableName, ConsistentRead: true, ExclusiveStartKey: startKey }));
    items.push(...(out.Items ?? []));
    startKey = out.LastEvaluatedKey;
  } while (startKey);

  const byPk = new Map<string, Record<string, unknown>[]>();
  for (const item of items) {
    const pk = item.pk as string;
    byPk.set(pk, [...(byPk.get(pk) ?? []), item]);
  }
  const problems: ConsistencyProblem[] = [];
  const users = items.filter((i) => i.type === 'user').map(userFromItem);
  const heldGuards = new Map<string, string>();
  for (const user of users) {
    for (const { key, identity } of guardsOf(user)) {
      heldGuards.set(key.pk, user.userId);
      const guard = byPk.get(key.pk)?.find((i) => i.sk === key.sk);
      if (!guard || guard.userId !== user.userId) {
        problems.push({ kind: 'user-missing-guard', key: key.pk, detail: `user ${user.userId} holds no guard ${key.pk}` });
      } else if (guard.passwordHash !== guardItem(user, key, identity).passwordHash) {
        problems.push({ kind: 'guard-stale-hash', key: key.pk, detail: `the guard's hash copy differs from user ${user.userId}'s` });
      }
    }
  }
  const userIds = new Set(users.map((u) => u.userId));
  for (const item of items) {
    const pk = item.pk as string;
    switch (item.type) {
      case 'user':
      case 'tenant':
        break;
      case 'guard':
        if (!userIds.has(item.userId as string)) {
          problems.push({ kind: 'guard-without-user', key: pk, detail: `guard points at missing user ${String(item.userId)}` });
        } else if (heldGuards.get(pk) !== item.userId) {
          problems.push({ kind: 'guard-not-held', key: pk, detail: `user ${String(item.userId)} does not hold this identity` });
        }
        break;
      case 'device':
        if (!(byPk.get(pk) ?? []).some((i) => i.type === 'code')) {
          problems.push({ kind: 'device-without-code', key: pk, detail: 'device has no code' });
        }
        break;
      case 'code':
        if (!(byPk.get(pk) ?? []).some((i) => i.sk === keys.device(item.preAuthSessionId as string).sk && i.type === 'device')) {
          problems.push({ kind: 'code-without-device', key: pk, detail: 'code whose device is gone' });
        }
        break;
      default:
        problems.push({ kind: 'unknown-item', key: pk, detail: `item of unknown type ${String(item.type)}` });
    }
  }
  return problems;
}
