import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR } from '../keys';
import * as keys from '../keys';
import type { PasswordResetTokenRecord } from '../model';
import type { PasswordResetStore } from '../ports/password-reset';
import { readNumber, readString } from './stored-fields';
import { deleteInChunks, ifAbsent, MAX_TRANSACTION_ITEMS, queryAll, writeAtomically, type DynamoContext, type TaggedWrite } from './transact';

export const RESET_TOKEN_TYPE = 'pwResetToken';
export const RESET_TOKEN_ENTRY_TYPE = 'pwResetTokenEntry';

/** TTL attribute value: epoch seconds, rounded up so a token is never collected before it expires. */
const ttlOf = (ms: number): number => Math.ceil(ms / 1000);

/**
 * `PasswordResetStore` on DynamoDB: a token item found by its hash, and an entry per token in the
 * partition of its user, so that all of them are found with one consistent Query and deleted with
 * the token used. The two are written and deleted together. TTL collects expired tokens; expiry
 * is checked at read time.
 */
export class DynamoPasswordResetStore implements PasswordResetStore {
  constructor(private readonly ctx: DynamoContext) {}

  private entryKey(userId: string, tokenHash: string) {
    return { pk: keys.resetTokensOf(userId), sk: tokenHash };
  }

  async createToken(token: PasswordResetTokenRecord): Promise<void> {
    const put = (Item: Record<string, unknown>) => ({
      item: { Put: { TableName: this.ctx.tableName, Item, ...ifAbsent } },
      onConditionFailed: 'EXISTS' as const,
    });
    const ttl = ttlOf(token.expiresAt);
    const result = await writeAtomically(this.ctx, [
      put({ ...keys.resetToken(token.tokenHash), type: RESET_TOKEN_TYPE, ...token, [ATTR.ttl]: ttl }),
      put({ ...this.entryKey(token.userId, token.tokenHash), type: RESET_TOKEN_ENTRY_TYPE, userId: token.userId, [ATTR.ttl]: ttl }),
    ]);
    // 48 random bytes cannot collide; a failure here means a broken random source.
    if (!result.ok) throw new Error('A new password reset token collided with an existing one');
  }

  async getToken(tokenHash: string): Promise<PasswordResetTokenRecord | undefined> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.resetToken(tokenHash), ConsistentRead: true }));
    const i = out.Item;
    if (!i) return undefined;
    return {
      tokenHash: readString(i.tokenHash, 'tokenHash'),
      userId: readString(i.userId, 'userId'),
      email: readString(i.email, 'email'),
      expiresAt: readNumber(i.expiresAt, 'expiresAt'),
    };
  }

  /** The hashes of every token of a user (consistent: a token and its entry are written together). */
  private async hashesOf(userId: string): Promise<string[]> {
    const entries = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.resetTokensOf(userId) },
      ProjectionExpression: 'sk',
      ConsistentRead: true,
    });
    return entries.map((e) => e.sk as string);
  }

  /** A token's two items. */
  private itemsOf(userId: string, tokenHash: string) {
    return [keys.resetToken(tokenHash), this.entryKey(userId, tokenHash)];
  }

  async useToken(token: PasswordResetTokenRecord): Promise<'OK' | 'TOKEN_GONE'> {
    const others = (await this.hashesOf(token.userId)).filter((h) => h !== token.tokenHash);
    const gone = 'TOKEN_GONE' as const;
    // The token itself only if it is still there; its siblings in the same transaction, so that of
    // two tokens of one user used at once, one wins (each deletes the other's). Siblings beyond
    // one transaction (a user with more than 49 live tokens) go right after.
    const room = Math.floor((MAX_TRANSACTION_ITEMS - 2) / 2);
    const writes: TaggedWrite<'TOKEN_GONE'>[] = [
      {
        item: { Delete: { TableName: this.ctx.tableName, Key: keys.resetToken(token.tokenHash), ConditionExpression: 'attribute_exists(pk)' } },
        onConditionFailed: gone,
      },
      { item: { Delete: { TableName: this.ctx.tableName, Key: this.entryKey(token.userId, token.tokenHash) } }, onConditionFailed: gone },
      ...others
        .slice(0, room)
        .flatMap((h) => this.itemsOf(token.userId, h))
        .map((Key) => ({ item: { Delete: { TableName: this.ctx.tableName, Key } }, onConditionFailed: gone })),
    ];
    const result = await writeAtomically(this.ctx, writes);
    if (!result.ok) return result.failed;
    await deleteInChunks(
      this.ctx,
      others.slice(room).flatMap((h) => this.itemsOf(token.userId, h)),
    );
    return 'OK';
  }

  async revokeTokens(userId: string): Promise<void> {
    // Each token goes with its entry (a pair never straddles two transactions of 100), so the two
    // never outlive each other.
    await deleteInChunks(
      this.ctx,
      (await this.hashesOf(userId)).flatMap((h) => this.itemsOf(userId, h)),
    );
  }
}
