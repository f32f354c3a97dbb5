import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR } from '../keys';
import * as keys from '../keys';
import type { VerificationTokenRecord } from '../model';
import type { EmailVerificationStore } from '../ports/email-verification';
import type { UsersChange } from '../ports/users';
import { deleteInChunks, ifAbsent, queryAll, writeAtomically, type DynamoContext, type TaggedWrite } from './transact';
import { userChangeWrites } from './user-diff';

export const TOKEN_TYPE = 'evToken';
export const TOKEN_ENTRY_TYPE = 'evTokenEntry';

/** TTL attribute value: epoch seconds, rounded up so a token is never collected before it expires. */
const ttlOf = (ms: number): number => Math.ceil(ms / 1000);

/**
 * `EmailVerificationStore` on DynamoDB: a token item found by its hash, and an entry per token in
 * the partition of its (tenant, login method, email), so all of them can be revoked at once with
 * a consistent Query. The two are written and deleted together. TTL collects expired tokens;
 * expiry is checked at read time.
 */
export class DynamoEmailVerificationStore implements EmailVerificationStore {
  constructor(private readonly ctx: DynamoContext) {}

  private entryKey(t: Pick<VerificationTokenRecord, 'tenantId' | 'recipeUserId' | 'email'>, tokenHash: string) {
    return { pk: keys.verificationTokensOf(t.tenantId, t.recipeUserId, t.email), sk: tokenHash };
  }

  async createToken(token: VerificationTokenRecord): Promise<void> {
    const put = (Item: Record<string, unknown>) => ({
      item: { Put: { TableName: this.ctx.tableName, Item, ...ifAbsent } },
      onConditionFailed: 'EXISTS' as const,
    });
    const result = await writeAtomically(this.ctx, [
      put({ ...keys.verificationToken(token.tokenHash), type: TOKEN_TYPE, ...token, [ATTR.ttl]: ttlOf(token.expiresAt) }),
      put({ ...this.entryKey(token, token.tokenHash), type: TOKEN_ENTRY_TYPE, tokenHash: token.tokenHash, [ATTR.ttl]: ttlOf(token.expiresAt) }),
    ]);
    // 48 random bytes cannot collide; a failure here means a broken random source.
    if (!result.ok) throw new Error('A new email verification token collided with an existing one');
  }

  async getToken(tokenHash: string): Promise<VerificationTokenRecord | undefined> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.verificationToken(tokenHash), ConsistentRead: true }));
    const i = out.Item;
    if (!i) return undefined;
    return {
      tokenHash: i.tokenHash as string,
      tenantId: i.tenantId as string,
      recipeUserId: i.recipeUserId as string,
      userId: i.userId as string,
      email: i.email as string,
      expiresAt: i.expiresAt as number,
    };
  }

  async useToken(token: VerificationTokenRecord, userWrite?: UsersChange): Promise<'OK' | 'TOKEN_GONE' | 'STALE'> {
    const gone = 'TOKEN_GONE' as const;
    const writes: TaggedWrite<'TOKEN_GONE' | 'STALE'>[] = [
      {
        item: { Delete: { TableName: this.ctx.tableName, Key: keys.verificationToken(token.tokenHash), ConditionExpression: 'attribute_exists(pk)' } },
        onConditionFailed: gone,
      },
      { item: { Delete: { TableName: this.ctx.tableName, Key: this.entryKey(token, token.tokenHash) } }, onConditionFailed: gone },
      ...(userWrite ? userChangeWrites(this.ctx, userWrite.before, userWrite.after).map((w) => ({ ...w, onConditionFailed: 'STALE' as const })) : []),
    ];
    const result = await writeAtomically(this.ctx, writes);
    return result.ok ? 'OK' : result.failed;
  }

  async revokeTokens(tenantId: string, recipeUserId: string, email: string): Promise<void> {
    const entries = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.verificationTokensOf(tenantId, recipeUserId, email) },
      ConsistentRead: true,
    });
    // Each token goes with its entry (a pair never straddles two transactions of 100), so the two
    // never outlive each other.
    await deleteInChunks(
      this.ctx,
      entries.flatMap((e) => [keys.verificationToken(e.sk as string), { pk: e.pk as string, sk: e.sk as string }]),
    );
  }
}
