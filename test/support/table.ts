import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';

/** A client on the suite's DynamoDB Local (or another): for a store of the service's own, or the raw API. */
export function testDynamoClient(endpoint = process.env.TEST_DYNAMODB_ENDPOINT): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/** A document client on the suite's DynamoDB Local (or another), for reading what the service stored. */
export function testDocClient(endpoint = process.env.TEST_DYNAMODB_ENDPOINT): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(testDynamoClient(endpoint));
}

/**
 * The stored login method item of a recipe user id (with its password hash, which no endpoint
 * returns), in its own partition or, when linked, in its primary user's.
 */
export async function readStoredUser(tableName: string, recipeUserId: string): Promise<Record<string, unknown> | undefined> {
  const doc = testDocClient();
  const get = async (key: { pk: string; sk: string }) => (await doc.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  try {
    const link = await get(keys.link(recipeUserId));
    return get(keys.loginMethod(link ? (link.primaryUserId as string) : recipeUserId, recipeUserId));
  } finally {
    doc.destroy();
  }
}

/** Every item of a table, read consistently. */
export async function scanTable(tableName: string): Promise<Record<string, unknown>[]> {
  const doc = testDocClient();
  try {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await doc.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: start, ConsistentRead: true }));
      items.push(...(out.Items ?? []));
      start = out.LastEvaluatedKey;
    } while (start);
    return items;
  } finally {
    doc.destroy();
  }
}

/** Every item of a table as raw JSON text (to check what is, and is not, stored). */
export async function dumpTable(tableName: string): Promise<string> {
  return JSON.stringify(await scanTable(tableName));
}
