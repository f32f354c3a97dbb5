import { assertJava, JAVA_MISSING, startDynamoDbLocal } from '../../local/dynamodb-local';

/**
 * Starts one in-memory DynamoDB Local for the whole run. Every test file gets its own table (see
 * `startApi`), so files stay independent while sharing the one JVM. Without Java it says, in one
 * line, how to install it.
 */
export default async function globalSetup(): Promise<void> {
  try {
    assertJava();
  } catch {
    process.stderr.write(`\n${JAVA_MISSING}\n`);
    process.exit(1);
  }
  const dynamo = await startDynamoDbLocal();
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  (globalThis as { __DYNAMO__?: typeof dynamo }).__DYNAMO__ = dynamo;
}
