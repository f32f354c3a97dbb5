import { startDynamoDbLocal } from '../../local/dynamodb-local';
import { startApi } from './api';

/**
 * Run as a process of its own by `test/integration/child-processes.test.ts`: starts a DynamoDB
 * Local and a server on it, as a test file does, prints their pids as one JSON line, and waits to
 * be killed (SIGKILL, as jest kills a worker that does not end: no clean-up runs).
 */
async function main(): Promise<void> {
  const dynamo = await startDynamoDbLocal();
  process.env.TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  const api = await startApi();
  process.stdout.write(`${JSON.stringify({ dynamo: dynamo.pid, server: api.pid })}\n`);
  setInterval(() => undefined, 60_000);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
