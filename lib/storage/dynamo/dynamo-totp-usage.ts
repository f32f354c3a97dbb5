import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../keys';
import type { TotpUsage } from '../ports/totp';
import type { DynamoContext } from './transact';

/**
 * `TotpUsage` on DynamoDB: one `Limit 1` Query of the user id's TOTP partition. A class of its
 * own, which `DynamoTotpStore` extends, so the id mapping functions bundle none of the store
 * (esbuild keeps every method of a class it keeps).
 */
export class DynamoTotpUsage implements TotpUsage {
  constructor(protected readonly ctx: DynamoContext) {}

  async hasData(userId: string): Promise<boolean> {
    const out = await this.ctx.doc.send(
      new QueryCommand({
        TableName: this.ctx.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.totpPartition(userId) },
        ProjectionExpression: 'pk',
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    return (out.Items ?? []).length > 0;
  }
}
