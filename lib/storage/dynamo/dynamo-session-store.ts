import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ATTR, INDEX } from '../keys';
import * as keys from '../keys';
import type { JsonObject, SessionRecord, SigningKeyRecord, StoredSigningKeys } from '../model';
import type { ExchangeReplay, SessionDataChange, SessionStore } from '../ports/sessions';
import { readNumber, readOptionalString, readString, StoredItemError, type Stored } from './stored-fields';
import { batchGetAll, ifAbsent, isConditionFailure, queryAll, type DynamoContext } from './transact';

export const SESSION_TYPE = 'session';
export const SIGNING_KEY_TYPE = 'signingKey';
export const REFRESH_TOKEN_KEY_TYPE = 'refreshTokenKey';
export const EXCHANGED_TOKEN_TYPE = 'exchangedToken';

/** An exchanged token's item holds a TTL, and a replay only whole (key hash, time, answer as JSON text). */
export function exchangedTokenReadable(item: Record<string, unknown>): boolean {
  if (typeof item.ttl !== 'number' || item.sk !== 'XTOKEN' || !/^XTOKEN#[0-9a-f]{64}$/.test(String(item.pk))) return false;
  if (item.replayKeyHash === undefined && item.replayUntil === undefined && item.answer === undefined) return true;
  return typeof item.replayKeyHash === 'string' && typeof item.replayUntil === 'number' && typeof item.answer === 'string';
}

/** TTL attribute value: epoch seconds, rounded up so an item is never collected before it expires. */
const ttlOf = (ms: number): number => Math.ceil(ms / 1000);

/** Deletes sent at once by a removal of many handles (each its own DeleteItem, to learn which existed). */
const REMOVE_CONCURRENCY = 16;

function readJsonText(item: Stored, field: string): JsonObject {
  const text = readString(item[field], field);
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new StoredItemError(field, 'a JSON object');
  return value as JsonObject;
}

/** A stored session, each field checked (a malformed item throws `StoredItemError` naming the field). */
export function decodeSession(item: Stored): SessionRecord {
  return {
    handle: readString(item.handle, 'handle'),
    tenantId: readString(item.tenantId, 'tenantId'),
    recipeUserId: readString(item.recipeUserId, 'recipeUserId'),
    userId: readString(item.userId, 'userId'),
    refreshTokenHash2: readString(item.refreshTokenHash2, 'refreshTokenHash2'),
    userDataInJWT: readJsonText(item, 'userDataInJWT'),
    userDataInDatabase: readJsonText(item, 'userDataInDatabase'),
    createdAt: readNumber(item.createdAt, 'createdAt'),
    expiresAt: readNumber(item.expiresAt, 'expiresAt'),
    useStaticKey: item.useStaticKey === true,
  };
}

function decodeKey(item: Stored): SigningKeyRecord {
  return {
    kid: readString(item.kid, 'kid'),
    createdAt: readNumber(item.createdAt, 'createdAt'),
    privateKey: readString(item.privateKey, 'privateKey'),
    publicKey: readString(item.publicKey, 'publicKey'),
  };
}

/**
 * `SessionStore` on DynamoDB. A session is one item found by its handle; its gsi2 keys list it
 * under the user id it was created with (tenant first), so a user's sessions are one Query and
 * never a scan. TTL collects a session at its expiry; until then reads treat an expired one as
 * missing. The signing keys and the refresh-token key share one partition, read whole at once.
 */
export class DynamoSessionStore implements SessionStore {
  constructor(private readonly ctx: DynamoContext) {}

  async sessionUserOf(id: string): Promise<{ userId: string; recipeUserId: string }> {
    // One BatchGetItem answers every id: a login method on its own or primary (its item), a
    // linked one (its link), an external id (its guard); the link and a linked login method's
    // guard carry the primary user's external id. Items of format 1 lacked it: then it is read.
    const ownItem = keys.loginMethod(id, id);
    const [own, link, guard] = await this.getAll([ownItem, keys.link(id), keys.externalIdGuard(id)]);
    const external = (item: Stored | undefined, field = 'externalUserId') => readOptionalString(item?.[field], field);
    if (own) {
      const ext = external(own) ?? id;
      return { userId: ext, recipeUserId: ext };
    }
    if (link) {
      const primary = readString(link.primaryUserId, 'primaryUserId');
      // Format 2 links carry both external ids; an older one has them read.
      if (readNumber(link.fmt, 'fmt') >= 2) return { userId: external(link, 'primaryExternalUserId') ?? primary, recipeUserId: external(link) ?? id };
      const [recipe, primaryItem] = await this.getAll([keys.loginMethod(primary, id), keys.loginMethod(primary, primary)]);
      return { userId: external(primaryItem) ?? primary, recipeUserId: external(recipe) ?? id };
    }
    if (guard) {
      const linkedTo = readOptionalString(guard.linkedTo, 'linkedTo');
      if (linkedTo === undefined) return { userId: id, recipeUserId: id };
      if (readNumber(guard.fmt, 'fmt') >= 2) return { userId: external(guard, 'primaryExternalUserId') ?? linkedTo, recipeUserId: id };
      const [primaryItem] = await this.getAll([keys.loginMethod(linkedTo, linkedTo)]);
      return { userId: external(primaryItem) ?? linkedTo, recipeUserId: id };
    }
    return { userId: id, recipeUserId: id };
  }

  /** The items at `itemKeys` (consistent), in that order; `undefined` where none. */
  private async getAll(itemKeys: readonly { pk: string; sk: string }[]): Promise<(Stored | undefined)[]> {
    const found = await batchGetAll(this.ctx, itemKeys);
    return itemKeys.map((k) => found.find((i) => i.pk === k.pk && i.sk === k.sk));
  }

  async createSession(s: SessionRecord): Promise<void> {
    await this.ctx.doc.send(
      new PutCommand({
        TableName: this.ctx.tableName,
        Item: {
          ...keys.session(s.handle),
          type: SESSION_TYPE,
          ...s,
          userDataInJWT: JSON.stringify(s.userDataInJWT),
          userDataInDatabase: JSON.stringify(s.userDataInDatabase),
          [ATTR.ttl]: ttlOf(s.expiresAt),
          [ATTR.gsi2pk]: keys.sessionsOfUser(s.recipeUserId),
          [ATTR.gsi2sk]: keys.sessionInUserList(s.tenantId, s.handle),
        },
        // A UUID v4 handle cannot collide; a failure here means a broken random source.
        ...ifAbsent,
      }),
    );
  }

  async getSession(handle: string): Promise<SessionRecord | undefined> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.session(handle), ConsistentRead: true }));
    return out.Item ? decodeSession(out.Item) : undefined;
  }

  async promote(
    handle: string,
    from: string,
    to: string,
    now: number,
    expiresAt: number,
    useStaticKey?: boolean,
  ): Promise<{ status: 'OK' | 'MOVED'; session: SessionRecord } | { status: 'MISSING' }> {
    try {
      const out = await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.tableName,
          Key: keys.session(handle),
          // Both hashes: two functions promoting one token at once both succeed, to the same state.
          ConditionExpression: 'refreshTokenHash2 IN (:from, :to) AND expiresAt > :now',
          UpdateExpression: `SET refreshTokenHash2 = :to, expiresAt = :exp, #ttl = :ttl${useStaticKey === undefined ? '' : ', useStaticKey = :static'}`,
          ExpressionAttributeNames: { '#ttl': ATTR.ttl },
          ExpressionAttributeValues: {
            ':from': from,
            ':to': to,
            ':now': now,
            ':exp': expiresAt,
            ':ttl': ttlOf(expiresAt),
            ...(useStaticKey === undefined ? {} : { ':static': useStaticKey }),
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { status: 'OK', session: decodeSession(out.Attributes ?? {}) };
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const old = (err as { Item?: Parameters<typeof unmarshall>[0] }).Item;
      const session = old ? decodeSession(unmarshall(old)) : undefined;
      return session && session.expiresAt > now ? { status: 'MOVED', session } : { status: 'MISSING' };
    }
  }

  async setUseStaticKey(handle: string, useStaticKey: boolean): Promise<void> {
    await this.ctx.doc
      .send(
        new UpdateCommand({
          TableName: this.ctx.tableName,
          Key: keys.session(handle),
          ConditionExpression: 'attribute_exists(pk)',
          UpdateExpression: 'SET useStaticKey = :static',
          ExpressionAttributeValues: { ':static': useStaticKey },
        }),
      )
      .catch((err: unknown) => {
        // Removed meanwhile: nothing to change.
        if (!(err instanceof Error) || err.name !== 'ConditionalCheckFailedException') throw err;
      });
  }

  async updateSession(handle: string, change: SessionDataChange, now: number): Promise<SessionRecord | undefined> {
    if (change.userDataInJWT === undefined && change.userDataInDatabase === undefined) throw new Error('updateSession needs a change');
    const sets: string[] = [];
    const values: Record<string, unknown> = { ':now': now };
    if (change.userDataInJWT !== undefined) {
      sets.push('userDataInJWT = :jwt');
      values[':jwt'] = JSON.stringify(change.userDataInJWT);
    }
    if (change.userDataInDatabase !== undefined) {
      sets.push('userDataInDatabase = :db');
      values[':db'] = JSON.stringify(change.userDataInDatabase);
    }
    try {
      const out = await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.tableName,
          Key: keys.session(handle),
          ConditionExpression: 'attribute_exists(pk) AND expiresAt > :now',
          UpdateExpression: `SET ${sets.join(', ')}`,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return decodeSession(out.Attributes ?? {});
    } catch (err) {
      if (isConditionFailure(err)) return undefined;
      throw err;
    }
  }

  async removeSessions(handles: readonly string[]): Promise<string[]> {
    const unique = [...new Set(handles)];
    const removed: string[] = [];
    for (let i = 0; i < unique.length; i += REMOVE_CONCURRENCY) {
      const chunk = unique.slice(i, i + REMOVE_CONCURRENCY);
      const outs = await Promise.all(
        chunk.map((handle) => this.ctx.doc.send(new DeleteCommand({ TableName: this.ctx.tableName, Key: keys.session(handle), ReturnValues: 'ALL_OLD' }))),
      );
      outs.forEach((out, j) => {
        if (out.Attributes) removed.push(chunk[j]);
      });
    }
    return removed;
  }

  async sessionsOfUsers(userIds: readonly string[], tenantId: string | undefined, now: number): Promise<SessionRecord[]> {
    const pages = await Promise.all(
      [...new Set(userIds)].map((id) =>
        queryAll(this.ctx, {
          IndexName: INDEX.byIdentity,
          KeyConditionExpression: tenantId === undefined ? 'gsi2pk = :pk' : 'gsi2pk = :pk AND begins_with(gsi2sk, :tenant)',
          ExpressionAttributeValues: { ':pk': keys.sessionsOfUser(id), ...(tenantId === undefined ? {} : { ':tenant': `${tenantId}#` }) },
        }),
      ),
    );
    return pages
      .flat()
      .map(decodeSession)
      .filter((s) => s.expiresAt > now);
  }

  async consumeExchangedToken(
    tokenHash: string,
    keepUntil: number,
    replay: ExchangeReplay | undefined,
  ): Promise<{ consumed: true } | { consumed: false; replay?: ExchangeReplay }> {
    const key = keys.exchangedToken(tokenHash);
    const item = {
      ...key,
      type: EXCHANGED_TOKEN_TYPE,
      ttl: ttlOf(keepUntil),
      ...(replay ? { replayKeyHash: replay.keyHash, replayUntil: replay.until, answer: replay.answer } : {}),
    };
    try {
      await this.ctx.doc.send(new PutCommand({ TableName: this.ctx.tableName, Item: item, ...ifAbsent }));
      return { consumed: true };
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
    // Used before: the first use's replay, for a retry with a key (without one, there is nothing to read).
    if (!replay) return { consumed: false };
    const kept = await this.exchangeReplay(tokenHash);
    return kept ? { consumed: false, replay: kept } : { consumed: false };
  }

  async exchangeReplay(tokenHash: string): Promise<ExchangeReplay | undefined> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.exchangedToken(tokenHash), ConsistentRead: true }));
    const old = out.Item;
    if (old && typeof old.replayKeyHash === 'string' && typeof old.replayUntil === 'number' && typeof old.answer === 'string') {
      return { keyHash: old.replayKeyHash, until: old.replayUntil, answer: old.answer };
    }
    return undefined;
  }

  async readSigningKeys(): Promise<StoredSigningKeys> {
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.signingKeysPartition },
      ConsistentRead: true,
    });
    const dynamic: (SigningKeyRecord & { generation: number })[] = [];
    let staticKey: SigningKeyRecord | undefined;
    let refreshTokenKey: string | undefined;
    for (const item of items) {
      if (item.sk === keys.staticSigningKey.sk) staticKey = decodeKey(item);
      else if (item.sk === keys.refreshTokenKey.sk) refreshTokenKey = readString(item.key, 'key');
      else dynamic.push({ ...decodeKey(item), generation: readNumber(item.generation, 'generation') });
    }
    return { dynamic, ...(staticKey ? { staticKey } : {}), ...(refreshTokenKey ? { refreshTokenKey } : {}) };
  }

  async addDynamicKey(generation: number, key: SigningKeyRecord, deleteAfter: number): Promise<boolean> {
    return this.putIfAbsent({ ...keys.dynamicSigningKey(generation), type: SIGNING_KEY_TYPE, generation, ...key, [ATTR.ttl]: ttlOf(deleteAfter) });
  }

  async addStaticKey(key: SigningKeyRecord): Promise<boolean> {
    return this.putIfAbsent({ ...keys.staticSigningKey, type: SIGNING_KEY_TYPE, ...key });
  }

  async addRefreshTokenKey(key: string): Promise<boolean> {
    return this.putIfAbsent({ ...keys.refreshTokenKey, type: REFRESH_TOKEN_KEY_TYPE, key });
  }

  private async putIfAbsent(Item: Record<string, unknown>): Promise<boolean> {
    try {
      await this.ctx.doc.send(new PutCommand({ TableName: this.ctx.tableName, Item, ...ifAbsent }));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }
}
