import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../keys';
import type { JsonObject, MetadataRecord } from '../model';
import type { MetadataStore } from '../ports/metadata';
import { ifAbsent, ifVersion, writeAtomically, type DynamoContext } from './transact';

export const METADATA_TYPE = 'metadata';

/** The metadata item of a user id, as JSON text with its version. */
export function metadataItem(userId: string, metadata: JsonObject, version: number): Record<string, unknown> {
  return { ...keys.metadata(userId), type: METADATA_TYPE, userId, metadata: JSON.stringify(metadata), version };
}

/** The condition of writing metadata read at `readVersion` (`undefined`: there was none). */
export function metadataCondition(readVersion: number | undefined): Record<string, unknown> {
  return readVersion === undefined ? ifAbsent : ifVersion(readVersion);
}

/**
 * `MetadataStore` on DynamoDB. The metadata is kept as JSON text, not as a DynamoDB map: any JSON
 * object the app sends round-trips exactly (a map refuses nesting deeper than 32 levels and
 * numbers beyond 38 digits, which would turn a valid request into a 500).
 */
export class DynamoMetadataStore implements MetadataStore {
  constructor(private readonly ctx: DynamoContext) {}

  async getMetadata(userId: string): Promise<MetadataRecord | undefined> {
    const out = await this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.metadata(userId), ConsistentRead: true }));
    if (!out.Item) return undefined;
    return { metadata: JSON.parse(out.Item.metadata as string) as JsonObject, version: out.Item.version as number };
  }

  async putMetadata(userId: string, metadata: JsonObject, readVersion: number | undefined): Promise<'OK' | 'STALE'> {
    const result = await writeAtomically(this.ctx, [
      {
        item: {
          Put: {
            TableName: this.ctx.tableName,
            Item: metadataItem(userId, metadata, (readVersion ?? 0) + 1),
            ...metadataCondition(readVersion),
          },
        },
        onConditionFailed: 'STALE' as const,
      },
    ]);
    return result.ok ? 'OK' : result.failed;
  }

  async removeMetadata(userId: string): Promise<void> {
    await this.ctx.doc.send(new DeleteCommand({ TableName: this.ctx.tableName, Key: keys.metadata(userId) }));
  }
}
