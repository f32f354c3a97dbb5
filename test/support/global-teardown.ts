import type { DynamoDbLocal } from '../../local/dynamodb-local';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __DYNAMO__?: DynamoDbLocal }).__DYNAMO__?.stop();
}
