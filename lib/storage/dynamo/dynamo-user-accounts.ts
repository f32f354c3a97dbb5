import { standaloneUser, withLoginMethod, withPasswordHash } from '../auth-user';
import type { Key } from '../keys';
import * as keys from '../keys';
import type { AuthUser, RecipeId, UserRecord } from '../model';
import type { EmailPasswordLogin, FoundLogin, LoginRef, UserAccounts, UserIdKind, UserWriteResult } from '../ports/users';
import { leavingIdWrites, readLeavingId, vanishedIds } from './leaving-ids';
import { readSnapshot } from './login-codec';
import { readOptionalString, type Stored } from './stored-fields';
import { getConsistent, readUserPartition, writeAtomically, type DynamoContext } from './transact';
import { userChangeWrites } from './user-diff';
import { guardsOf } from './user-items';
import { ITEM_TYPE, refOfGuard, userFromItems } from './stored-user-items';

/**
 * How often a read follows a link to a user that no longer holds the login method (it was
 * unlinked or moved between the two reads) before giving up.
 */
const LINK_HOPS = 4;

/**
 * What a guard holds of its login method (see `guardItem`): its snapshot, with the hash an
 * email-password email guard keeps beside it, or where it lives; and that hash.
 */
export function loginOfGuard(item: Stored): EmailPasswordLogin {
  const passwordHash = readOptionalString(item.passwordHash, 'passwordHash');
  const found: FoundLogin = readSnapshot(item) ?? refOfGuard(item);
  return passwordHash === undefined ? found : { ...found, passwordHash };
}

/**
 * `UserAccounts` on DynamoDB: a partition per user holding its login methods, plus guard and claim
 * items, read by key and written in transactions. A class of its own, which `DynamoUserStore`
 * extends with the rest of `UserStore`, so that the bulk-import functions bundle none of that
 * (esbuild keeps every method of a class it keeps).
 */
export class DynamoUserAccounts implements UserAccounts {
  constructor(protected readonly ctx: DynamoContext) {}

  private readPartition(userId: string): Promise<Record<string, unknown>[]> {
    return readUserPartition(this.ctx, userId);
  }

  async getUser(userId: string, as: UserIdKind = 'ANY'): Promise<AuthUser | undefined> {
    if (as === 'EXTERNAL') return this.getUserByExternalId(userId);
    const user = await this.getUserByInternalId(userId);
    return user ?? (as === 'ANY' ? this.getUserByExternalId(userId) : undefined);
  }

  /** The user holding the login method mapped to this external id, through its guard. */
  private async getUserByExternalId(externalUserId: string): Promise<AuthUser | undefined> {
    const ref = await this.guardOwner(keys.externalIdGuard(externalUserId));
    if (!ref) return undefined;
    const holds = (u: AuthUser | undefined) => u?.loginMethods.some((lm) => lm.userId === ref.recipeUserId && lm.externalUserId === externalUserId);
    const user = userFromItems(ref.userId, await this.readPartition(ref.userId));
    if (holds(user)) return user;
    // Linked or unlinked since the guard was read: its own id still finds it.
    const moved = await this.getUserByInternalId(ref.recipeUserId);
    return holds(moved) ? moved : undefined;
  }

  private async getUserByInternalId(userId: string): Promise<AuthUser | undefined> {
    for (let hop = 0; hop < LINK_HOPS; hop++) {
      const items = await this.readPartition(userId);
      const own = userFromItems(userId, items);
      if (own) return own;
      const link = items.find((i) => i.type === ITEM_TYPE.link);
      if (!link) return undefined;
      const primary = userFromItems(link.primaryUserId as string, await this.readPartition(link.primaryUserId as string));
      if (primary?.loginMethods.some((lm) => lm.userId === userId)) return primary;
      // Unlinked or moved between the two reads: read the login method's own partition again.
    }
    throw new Error(`The user of login method ${userId} kept moving while it was read`);
  }

  protected guard(key: Key): Promise<Record<string, unknown> | undefined> {
    return getConsistent(this.ctx, key);
  }

  private async guardOwner(key: Key): Promise<LoginRef | undefined> {
    const item = await this.guard(key);
    return item && refOfGuard(item);
  }

  getLoginByEmail(tenantId: string, recipe: Exclude<RecipeId, 'thirdparty'>, email: string): Promise<LoginRef | undefined> {
    return this.guardOwner(keys.emailGuard(tenantId, recipe, email));
  }

  getLoginByPhone(tenantId: string, phoneNumber: string): Promise<LoginRef | undefined> {
    return this.guardOwner(keys.phoneGuard(tenantId, phoneNumber));
  }

  async getLoginByThirdParty(tenantId: string, thirdPartyId: string, thirdPartyUserId: string): Promise<FoundLogin | undefined> {
    const item = await this.guard(keys.thirdPartyGuard(tenantId, thirdPartyId, thirdPartyUserId));
    return item && loginOfGuard(item);
  }

  createUser(loginMethod: UserRecord): Promise<UserWriteResult> {
    return this.writeUsers([], [standaloneUser(loginMethod)]);
  }

  async writeUsers(before: readonly AuthUser[], after: readonly AuthUser[]): Promise<UserWriteResult> {
    const leaving = await Promise.all(vanishedIds(before, after).map((id) => readLeavingId(this.ctx, id, before)));
    const result = await writeAtomically(this.ctx, userChangeWrites(this.ctx, before, after, leavingIdWrites(this.ctx, leaving)));
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async replacePasswordHash(user: AuthUser, loginMethod: UserRecord, passwordHash: string): Promise<UserWriteResult> {
    // A login method on its own has a snapshot on its email guards, with its version, which a write
    // without a version check could not keep: it is written at the version read, as a wait for
    // password migration is (its waiting entries go too).
    const onItsOwn = !user.isPrimary && user.id === loginMethod.userId;
    if (loginMethod.passwordMigration || onItsOwn) return this.writeUsers([user], [withLoginMethod(user, withPasswordHash(loginMethod, passwordHash))]);
    const stale = { status: 'STALE' } as const;
    const { userId, email } = loginMethod;
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Update: {
            TableName: this.ctx.tableName,
            Key: keys.loginMethod(user.id, userId),
            UpdateExpression: 'SET passwordHash = :hash ADD #version :one',
            // A login method waiting for password migration takes a hash only through `writeUsers`,
            // which also deletes its waiting entries: here it is a stale read.
            ConditionExpression: 'attribute_exists(pk) AND email = :email AND recipeId = :recipe AND attribute_not_exists(passwordMigration)',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':hash': passwordHash, ':one': 1, ':email': email, ':recipe': 'emailpassword' },
          },
        },
        onConditionFailed: stale,
      },
      ...guardsOf(loginMethod)
        .filter((g) => g.identity === 'email')
        .map(({ key }) => ({
          item: {
            Update: {
              TableName: this.ctx.tableName,
              Key: key,
              UpdateExpression: 'SET passwordHash = :hash',
              ConditionExpression: 'userId = :userId',
              ExpressionAttributeValues: { ':hash': passwordHash, ':userId': userId },
            },
          },
          onConditionFailed: stale,
        })),
    ]);
    return result.ok ? { status: 'OK' } : result.failed;
  }
}
