import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ATTR } from '../keys';
import * as keys from '../keys';
import type { WebauthnRecoveryTokenRecord } from '../model';
import type { WebauthnRecoveryStore } from '../ports/webauthn-recovery';
import { readNumber, readString, type Stored } from './stored-fields';
import { deleteInChunks, ifAbsent, MAX_TRANSACTION_ITEMS, queryAll, writeAtomically, type DynamoContext, type TaggedWrite } from './transact';

export const RECOVERY_TOKEN_TYPE = 'waRecoveryToken';
export const RECOVERY_TOKEN_ENTRY_TYPE = 'waRecoveryTokenEntry';

/** TTL attribute value: epoch seconds, rounded up so a token is never collected before it expires. */
const ttlOf = (ms: number): number => Math.ceil(ms / 1000);

/** A token as stored. */
export function recoveryTokenItem(t: WebauthnRecoveryTokenRecord): Record<string, unknown> {
  return { ...keys.webauthnRecoveryToken(t.tenantId, t.tokenHash), type: RECOVERY_TOKEN_TYPE, ...t, [ATTR.ttl]: ttlOf(t.expiresAt) };
}

export function decodeRecoveryToken(i: Stored): WebauthnRecoveryTokenRecord {
  return {
    tokenHash: readString(i.tokenHash, 'tokenHash'),
    tenantId: readString(i.tenantId, 'tenantId'),
    userId: readString(i.userId, 'userId'),
    email: readString(i.email, 'email'),
    expiresAt: readNumber(i.expiresAt, 'expiresAt'),
  };
}

/** Where a token's entry lives: among the tokens of its email in its tenant. */
export const recoveryEntryKey = (tenantId: string, email: string, tokenHash: string) => ({ pk: keys.webauthnRecoveryTokensOf(tenantId, email), sk: tokenHash });

/**
 * `WebauthnRecoveryStore` on DynamoDB, as the password reset tokens: a token item found by its
 * tenant and hash, and an entry per token in the partition of its email in that tenant, so that
 * all of them are found with one consistent Query and deleted with the token consumed. The two are
 * written and deleted together. TTL collects expired tokens; expiry is checked at read time.
 */
export class DynamoWebauthnRecoveryStore implements WebauthnRecoveryStore {
  constructor(private readonly ctx: DynamoContext) {}

  async createToken(token: WebauthnRecoveryTokenRecord): Promise<void> {
    const put = (Item: Record<string, unknown>) => ({
      item: { Put: { TableName: this.ctx.tableName, Item, ...ifAbsent } },
      onConditionFailed: 'EXISTS' as const,
    });
    const result = await writeAtomically(this.ctx, [
      put(recoveryTokenItem(token)),
      put({
        ...recoveryEntryKey(token.tenantId, token.email, token.tokenHash),
        type: RECOVERY_TOKEN_ENTRY_TYPE,
        tenantId: token.tenantId,
        email: token.email,
        [ATTR.ttl]: ttlOf(token.expiresAt),
      }),
    ]);
    // 32 random bytes cannot collide; a failure here means a broken random source.
    if (!result.ok) throw new Error('A new recovery token collided with an existing one');
  }

  async getToken(tenantId: string, tokenHash: string): Promise<WebauthnRecoveryTokenRecord | undefined> {
    const out = await this.ctx.doc.send(
      new GetCommand({ TableName: this.ctx.tableName, Key: keys.webauthnRecoveryToken(tenantId, tokenHash), ConsistentRead: true }),
    );
    return out.Item && decodeRecoveryToken(out.Item);
  }

  /** The hashes of every token of an email in a tenant (consistent: a token and its entry are written together). */
  private async hashesOf(tenantId: string, email: string): Promise<string[]> {
    const entries = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.webauthnRecoveryTokensOf(tenantId, email) },
      ProjectionExpression: 'sk',
      ConsistentRead: true,
    });
    return entries.map((e) => e.sk as string);
  }

  /** A token's two items. */
  private itemsOf(tenantId: string, email: string, tokenHash: string) {
    return [keys.webauthnRecoveryToken(tenantId, tokenHash), recoveryEntryKey(tenantId, email, tokenHash)];
  }

  async useToken(token: WebauthnRecoveryTokenRecord): Promise<'OK' | 'TOKEN_GONE'> {
    const { tenantId, email, tokenHash } = token;
    const others = (await this.hashesOf(tenantId, email)).filter((h) => h !== tokenHash);
    const gone = 'TOKEN_GONE' as const;
    // The token itself only if it is still there; its siblings in the same transaction, so that of
    // two tokens of one email consumed at once, one wins (each deletes the other's). Siblings
    // beyond one transaction (more than 49 live tokens of one email) go right after.
    const room = Math.floor((MAX_TRANSACTION_ITEMS - 2) / 2);
    const writes: TaggedWrite<'TOKEN_GONE'>[] = [
      {
        item: {
          Delete: { TableName: this.ctx.tableName, Key: keys.webauthnRecoveryToken(tenantId, tokenHash), ConditionExpression: 'attribute_exists(pk)' },
        },
        onConditionFailed: gone,
      },
      { item: { Delete: { TableName: this.ctx.tableName, Key: recoveryEntryKey(tenantId, email, tokenHash) } }, onConditionFailed: gone },
      ...others
        .slice(0, room)
        .flatMap((h) => this.itemsOf(tenantId, email, h))
        .map((Key) => ({ item: { Delete: { TableName: this.ctx.tableName, Key } }, onConditionFailed: gone })),
    ];
    const result = await writeAtomically(this.ctx, writes);
    if (!result.ok) return result.failed;
    await deleteInChunks(
      this.ctx,
      others.slice(room).flatMap((h) => this.itemsOf(tenantId, email, h)),
    );
    return 'OK';
  }
}
