import * as keys from '../keys';
import type { EmailPasswordLogin, LoginMark, TenantAccountInfo, UserStore, UserWriteResult } from '../ports/users';
import { DynamoUserAccounts, loginOfGuard } from './dynamo-user-accounts';
import { loginMarkWrites } from './mark-writes';
import { batchGetAll, writeAtomically } from './transact';

/**
 * `UserStore` on DynamoDB: `DynamoUserAccounts` (reads by key, writes) and what sign-in, account
 * linking and the consumes read and write beyond bulk import: an email-password guard with its
 * hash, the primary users' claims, a login method's mark. Still by key and in transactions; the
 * index reads are `DynamoUserLookups`, `DynamoUserLists` and `DynamoUserSearch`.
 */
export class DynamoUserStore extends DynamoUserAccounts implements UserStore {
  async getPrimaryHolders(claims: readonly TenantAccountInfo[]): Promise<(string | undefined)[]> {
    const claimKeys = claims.map(({ tenantId, info }) => keys.claim(tenantId, info));
    const holders = new Map((await batchGetAll(this.ctx, claimKeys)).map((item) => [item.pk as string, item.primaryUserId as string]));
    return claimKeys.map((k) => holders.get(k.pk));
  }

  async writeLoginMark(mark: LoginMark): Promise<UserWriteResult> {
    const result = await writeAtomically(this.ctx, loginMarkWrites(this.ctx, mark.primaryUserId, mark.before, mark.after));
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async getEmailPasswordLogin(tenantId: string, email: string): Promise<EmailPasswordLogin | undefined> {
    const item = await this.guard(keys.emailGuard(tenantId, 'emailpassword', email));
    return item && loginOfGuard(item);
  }
}
