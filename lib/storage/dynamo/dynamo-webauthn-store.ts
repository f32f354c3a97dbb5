import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../keys';
import type { AuthUser, WebauthnCredentialRecord, WebauthnOptionsRecord } from '../model';
import type { UserWriteResult } from '../ports/users';
import type { FoundCredential, SignInState, SignInUse, WebauthnStore } from '../ports/webauthn';
import { readSnapshot } from './login-codec';
import { isStrings, optional, readNumber, readOptionalString, readString, required, type Stored } from './stored-fields';
import { refOfGuard } from './stored-user-items';
import { batchGetAll, ifAbsent, isConditionFailure, queryAll, writeAtomically, type DynamoContext, type TaggedWrite } from './transact';
import { userChangeWrites } from './user-diff';
import type { UserConflict } from './leaving-ids';

export const WEBAUTHN_OPTIONS_TYPE = 'webauthnOptions';
export const WEBAUTHN_KEY_TYPE = 'webauthnKey';

const readBoolean = required((v): v is boolean => typeof v === 'boolean', 'true or false');
const readOptionalNumber = optional((v): v is number => typeof v === 'number', 'a number');

/** Options as stored, with their TTL (DynamoDB's garbage collection only: expiry is judged on read). */
export function optionsItem(o: WebauthnOptionsRecord): Record<string, unknown> {
  return { ...keys.webauthnOptions(o.id), type: WEBAUTHN_OPTIONS_TYPE, ...o, ttl: Math.ceil(o.expiresAt / 1000) };
}

export function decodeOptions(item: Stored): WebauthnOptionsRecord {
  const email = readOptionalString(item.email, 'email');
  const spentBy = readOptionalString(item.spentBy, 'spentBy');
  const uses = readOptionalNumber(item.uses, 'uses');
  return {
    id: readString(item.id, 'id'),
    tenantId: readString(item.tenantId, 'tenantId'),
    challenge: readString(item.challenge, 'challenge'),
    origin: readString(item.origin, 'origin'),
    rpId: readString(item.rpId, 'rpId'),
    rpName: readString(item.rpName, 'rpName'),
    ...(email !== undefined ? { email } : {}),
    timeout: readNumber(item.timeout, 'timeout'),
    userVerification: readString(item.userVerification, 'userVerification'),
    userPresence: readBoolean(item.userPresence, 'userPresence'),
    createdAt: readNumber(item.createdAt, 'createdAt'),
    expiresAt: readNumber(item.expiresAt, 'expiresAt'),
    ...(spentBy !== undefined ? { spentBy } : {}),
    ...(uses !== undefined ? { uses } : {}),
  };
}

/** A passkey's key item, beside its guard. */
export function credentialKeyItem(c: WebauthnCredentialRecord): Record<string, unknown> {
  return { ...keys.webauthnCredentialKey(c.credentialId), type: WEBAUTHN_KEY_TYPE, ...c };
}

export function decodeCredential(item: Stored): WebauthnCredentialRecord {
  return {
    credentialId: readString(item.credentialId, 'credentialId'),
    recipeUserId: readString(item.recipeUserId, 'recipeUserId'),
    publicKey: readString(item.publicKey, 'publicKey'),
    counter: readNumber(item.counter, 'counter'),
    rpId: readString(item.rpId, 'rpId'),
    transports: required(isStrings, 'a list of strings')(item.transports, 'transports'),
    aaguid: readString(item.aaguid, 'aaguid'),
    createdAt: readNumber(item.createdAt, 'createdAt'),
    updatedAt: readNumber(item.updatedAt, 'updatedAt'),
  };
}

/** A passkey from the items read: its guard and its key, or none when either is missing. */
function foundIn(items: readonly Stored[], credentialId: string): FoundCredential | undefined {
  const guardKey = keys.webauthnCredential(credentialId);
  const keyKey = keys.webauthnCredentialKey(credentialId);
  const guard = items.find((i) => i.pk === guardKey.pk && i.sk === guardKey.sk);
  const key = items.find((i) => i.pk === keyKey.pk && i.sk === keyKey.sk);
  // Both are written and deleted in one transaction: one without the other is a passkey going or coming.
  if (!guard || !key) return undefined;
  return { credential: decodeCredential(key), login: readSnapshot(guard) ?? refOfGuard(guard) };
}

/** `WebauthnStore` on DynamoDB (items and access patterns: `lib/storage/README.md`). */
export class DynamoWebauthnStore implements WebauthnStore {
  constructor(private readonly ctx: DynamoContext) {}

  async putOptions(options: WebauthnOptionsRecord): Promise<boolean> {
    try {
      await this.ctx.doc.send(new PutCommand({ TableName: this.ctx.tableName, Item: optionsItem(options), ...ifAbsent }));
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async getOptions(optionsId: string): Promise<WebauthnOptionsRecord | undefined> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.webauthnOptions(optionsId), ConsistentRead: true }));
    return out.Item && decodeOptions(out.Item);
  }

  async removeOptions(optionsId: string, tenantId: string): Promise<boolean> {
    try {
      await this.ctx.doc.send(
        new DeleteCommand({
          TableName: this.ctx.tableName,
          Key: keys.webauthnOptions(optionsId),
          ConditionExpression: 'tenantId = :t',
          ExpressionAttributeValues: { ':t': tenantId },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  async getCredential(credentialId: string): Promise<FoundCredential | undefined> {
    const items = await queryAll(this.ctx, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.webauthnCredential(credentialId).pk },
      ConsistentRead: true,
    });
    return foundIn(items, credentialId);
  }

  async getSignInState(optionsId: string, credentialId: string | undefined): Promise<SignInState> {
    const optionsKey = keys.webauthnOptions(optionsId);
    const passkey = credentialId === undefined ? [] : [keys.webauthnCredential(credentialId), keys.webauthnCredentialKey(credentialId)];
    const items = await batchGetAll(this.ctx, [optionsKey, ...passkey]);
    const options = items.find((i) => i.pk === optionsKey.pk && i.sk === optionsKey.sk);
    const found = credentialId === undefined ? undefined : foundIn(items, credentialId);
    return { ...(options ? { options: decodeOptions(options) } : {}), ...(found ? { found } : {}) };
  }

  async getCredentials(credentialIds: readonly string[]): Promise<WebauthnCredentialRecord[]> {
    const items = await batchGetAll(this.ctx, credentialIds.map(keys.webauthnCredentialKey));
    const byId = new Map(items.map((i) => [i.credentialId as string, decodeCredential(i)]));
    return credentialIds.flatMap((id) => byId.get(id) ?? []);
  }

  async writeUsersWithCredential(before: readonly AuthUser[], after: readonly AuthUser[], credential: WebauthnCredentialRecord): Promise<UserWriteResult> {
    const key: TaggedWrite<UserConflict> = {
      item: { Put: { TableName: this.ctx.tableName, Item: credentialKeyItem(credential), ...ifAbsent } },
      onConditionFailed: { status: 'IDENTITY_TAKEN', identity: 'webauthnCredential' },
    };
    const result = await writeAtomically(this.ctx, [...userChangeWrites(this.ctx, before, after), key]);
    return result.ok ? { status: 'OK' } : result.failed;
  }

  async recordSignIn(use: SignInUse): Promise<'OK' | 'STALE'> {
    const T = this.ctx.tableName;
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Update: {
            TableName: T,
            Key: keys.webauthnOptions(use.optionsId),
            UpdateExpression: 'SET spentBy = :d, #uses = :one',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(spentBy)',
            ExpressionAttributeNames: { '#uses': 'uses' },
            ExpressionAttributeValues: { ':d': use.digest, ':one': 1 },
          },
        },
        onConditionFailed: 'STALE' as const,
      },
      {
        item: {
          Update: {
            TableName: T,
            Key: keys.webauthnCredentialKey(use.credentialId),
            UpdateExpression: 'SET #counter = :c, updatedAt = :at',
            ConditionExpression: 'recipeUserId = :owner AND #counter = :s',
            ExpressionAttributeNames: { '#counter': 'counter' },
            ExpressionAttributeValues: { ':c': use.counter, ':at': use.at, ':owner': use.recipeUserId, ':s': use.counterRead },
          },
        },
        onConditionFailed: 'STALE' as const,
      },
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async recordRepeat(optionsId: string, digest: string): Promise<'OK' | 'STALE'> {
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Update: {
            TableName: this.ctx.tableName,
            Key: keys.webauthnOptions(optionsId),
            UpdateExpression: 'SET #uses = :two',
            ConditionExpression: 'spentBy = :d AND #uses = :one',
            ExpressionAttributeNames: { '#uses': 'uses' },
            ExpressionAttributeValues: { ':d': digest, ':one': 1, ':two': 2 },
          },
        },
        onConditionFailed: 'STALE' as const,
      },
    ]);
    return result.ok ? 'OK' : result.failed;
  }
}
