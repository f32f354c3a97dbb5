import * as keys from '../keys';
import { ATTR, INDEX } from '../keys';
import type { AuthUser, PasswordlessIdentity, UserRecord } from '../model';
import type { UserLookups } from '../ports/user-lookups';
import type { LoginSnapshot } from '../ports/users';
import { usersOfIndexItems } from './index-users';
import { decodeLogin, readSnapshot } from './login-codec';
import { readString } from './stored-fields';
import { ITEM_TYPE } from './stored-user-items';
import { queryAll, type DynamoContext } from './transact';

/**
 * `UserLookups` on DynamoDB: the identity index (gsi2), where a login method item is listed under
 * its email (else its phone number), and an entry of a login method under each of its other
 * emails and phone numbers, by tenant.
 */
export class DynamoUserLookups implements UserLookups {
  constructor(private readonly ctx: DynamoContext) {}

  async listUsersByEmail(tenantId: string, email: string): Promise<AuthUser[]> {
    const items = await queryAll(this.ctx, {
      IndexName: INDEX.byIdentity,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.gsi2pk },
      ExpressionAttributeValues: { ':pk': keys.usersWithEmail(tenantId, email) },
    });
    return usersOfIndexItems(this.ctx, items);
  }

  async findPasswordlessLoginByIndex(tenantId: string, identity: PasswordlessIdentity): Promise<LoginSnapshot | undefined> {
    const items = await queryAll(this.ctx, {
      IndexName: INDEX.byIdentity,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': ATTR.gsi2pk },
      ExpressionAttributeValues: {
        ':pk': 'email' in identity ? keys.usersWithEmail(tenantId, identity.email) : keys.usersWithPhone(tenantId, identity.phoneNumber),
      },
    });
    const isIt = (lm: UserRecord) =>
      lm.recipeId === 'passwordless' &&
      lm.tenantIds.includes(tenantId) &&
      ('email' in identity ? lm.email === identity.email : lm.phoneNumber === identity.phoneNumber);
    // A login method item is whole (and names its primary user, if any); an entry of a passwordless
    // login method holds its snapshot, and an entry without one is of another recipe.
    for (const item of items) {
      const found: LoginSnapshot | undefined =
        item.type === ITEM_TYPE.loginMethod
          ? { loginMethod: decodeLogin(item), ...(item.primaryUserId === undefined ? {} : { primaryUserId: readString(item.primaryUserId, 'primaryUserId') }) }
          : readSnapshot(item);
      if (found && isIt(found.loginMethod)) return found;
    }
    return undefined;
  }
}
