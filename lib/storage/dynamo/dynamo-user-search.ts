import { USER_LIST_SHARDS } from '../keys';
import * as keys from '../keys';
import type { AuthUser } from '../model';
import type { UserScanQuery, UserSearch } from '../ports/user-search';
import type { ListFilter } from './count-list';
import { onceEach, usersOfIndexItems } from './index-users';
import { scanList } from './scan-list';
import { ITEM_TYPE } from './stored-user-items';
import type { DynamoContext } from './transact';

/**
 * Values of a scan's `loginFilter` DynamoDB is given at most: each adds a condition or two to the
 * filter expression (4 KB at most), so more are left to `accept` alone.
 */
const MAX_LOGIN_FILTER_VALUES = 24;

/**
 * The filter of a scan's list entries: users with login methods of every one of `withRecipes` in
 * the tenant, and, for a login method on its own (the others are primary users, or a user's
 * places in other tenants' lists), what `loginFilter` asks of its email and phone number.
 */
function scanFilter(query: UserScanQuery): ListFilter {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const conditions: string[] = [];
  (query.withRecipes ?? []).forEach((r, i) => {
    names['#recipes'] = 'listRecipeIds';
    values[`:r${i}`] = r;
    conditions.push(`contains(#recipes, :r${i})`);
  });
  const { emailPrefixes = [], phonePrefixes = [] } = query.loginFilter ?? {};
  if (emailPrefixes.length + phonePrefixes.length > 0 && emailPrefixes.length + phonePrefixes.length <= MAX_LOGIN_FILTER_VALUES) {
    Object.assign(names, { '#type': 'type', '#primary': 'primaryUserId' });
    values[':lm'] = ITEM_TYPE.loginMethod;
    const own: string[] = [];
    if (emailPrefixes.length > 0) {
      names['#email'] = 'email';
      own.push(
        `(${emailPrefixes
          .map((prefix, i) => {
            values[`:e${i}`] = prefix;
            values[`:d${i}`] = `@${prefix}`;
            return `begins_with(#email, :e${i}) OR contains(#email, :d${i})`;
          })
          .join(' OR ')})`,
      );
    }
    if (phonePrefixes.length > 0) {
      names['#phone'] = 'phoneNumber';
      const starts = phonePrefixes.map((prefix, i) => {
        values[`:p${i}`] = prefix;
        return `begins_with(#phone, :p${i})`;
      });
      // DynamoDB refuses redundant parentheses.
      own.push(starts.length === 1 ? starts[0] : `(${starts.join(' OR ')})`);
    }
    conditions.push(`(#type <> :lm OR attribute_exists(#primary) OR ${own.length === 1 ? own[0] : `(${own.join(' AND ')})`})`);
  }
  return conditions.length === 0 ? { names: {}, values: {} } : { FilterExpression: conditions.join(' AND '), names, values };
}

/**
 * List entries a scan turns into users at once: a primary user's takes a read of its partition,
 * so this bounds the reads in flight, and the reads past the last user a scan needs.
 */
const SCAN_USERS_AT_ONCE = 100;

/**
 * `UserSearch` on DynamoDB: the dashboard's search walks a tenant's whole list, so it lives apart
 * from `DynamoUserLists` and only the function that searches (`users-list`) carries it.
 */
export class DynamoUserSearch implements UserSearch {
  constructor(private readonly ctx: DynamoContext) {}

  /**
   * Walks the tenant's list (`scanList`: its 16 shards merged in order, read a page of each at a
   * time) and keeps the users `accept` takes until it has `max` or the list ends. A login method on
   * its own is whole in its entry; a primary user's partition is read (at most
   * `SCAN_USERS_AT_ONCE` at once).
   */
  async scanUsers(tenantId: string, query: UserScanQuery): Promise<AuthUser[]> {
    const found: AuthUser[] = [];
    const seen = new Set<string>();
    const entries = scanList(this.ctx, {
      partitions: Array.from({ length: USER_LIST_SHARDS }, (_, shard) => keys.usersOfTenant(tenantId, shard)),
      order: query.order,
      filter: scanFilter(query),
    });
    for await (const batch of entries) {
      for (let i = 0; i < batch.length && found.length < query.max; i += SCAN_USERS_AT_ONCE) {
        for (const user of await usersOfIndexItems(this.ctx, batch.slice(i, i + SCAN_USERS_AT_ONCE))) {
          if (found.length < query.max && !seen.has(user.id) && query.accept(user)) found.push(user);
          seen.add(user.id);
        }
      }
      if (found.length >= query.max) break;
    }
    // As `usersOfIndexItems` does within one batch: a login method an index still lists on its own
    // beside the primary user now holding it is listed once, in the primary user.
    return onceEach(found);
  }
}
