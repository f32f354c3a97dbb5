import { CreateTableCommand, DescribeTableCommand, UpdateTableCommand, UpdateTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from '../lib/storage/table-schema';

/**
 * Creates the table from the shared schema (the one the CDK stack deploys) unless it exists,
 * with TTL enabled on the same attribute.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string, opts: { stream?: boolean } = {}): Promise<void> {
  const withStream = opts.stream ?? true;
  const stream = { StreamEnabled: true, StreamViewType: TABLE_SCHEMA.streamViewType };
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    // A table an earlier build made has no stream yet: the bulk-import worker needs it.
    if (withStream && !Table?.StreamSpecification?.StreamEnabled)
      await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: stream }));
    return;
  } catch (err) {
    if (!(err instanceof Error) || err.name !== 'ResourceNotFoundException') throw err;
  }
  const s = TABLE_SCHEMA;
  const attrs = new Set<string>([s.partitionKey, s.sortKey, ...s.globalSecondaryIndexes.flatMap((g) => [g.partitionKey, g.sortKey])]);
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        ...(withStream ? { StreamSpecification: stream } : {}),
        AttributeDefinitions: [...attrs].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: s.partitionKey, KeyType: 'HASH' },
          { AttributeName: s.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: s.globalSecondaryIndexes.map((g) => ({
          IndexName: g.indexName,
          KeySchema: [
            { AttributeName: g.partitionKey, KeyType: 'HASH' },
            { AttributeName: g.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        })),
      }),
    );
  } catch (err) {
    if (err instanceof Error && err.name === 'ResourceInUseException') return;
    throw err;
  }
  await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: s.ttlAttribute, Enabled: true } }));
}
