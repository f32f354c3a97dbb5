import { startDynamoDbLocal } from '../../local/dynamodb-local';

/**
 * Starts one in-memory DynamoDB Local for the whole run. Every test file gets its own table (see
 * `startApi`), so files stay independent while sharing the one JVM.
 */
export default async function globalSetup(): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  (globalThis as { __DYNAMO__?: typeof dynamo }).__DYNAMO__ = dynamo;
}
