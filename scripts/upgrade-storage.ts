import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readLocalSettings } from '../lib/config/local-settings';
import { createDynamoContext } from '../lib/storage/dynamo';
import { sweepFormats } from '../lib/storage/dynamo/format-sweep';
import { CURRENT_FORMAT } from '../lib/storage/dynamo/user-items';

/**
 * `npm run upgrade-storage`: re-derives the users whose items a build of an older storage format
 * wrote (`sweepFormats`), in the table named by `TABLE_NAME` (default `auth-core`) at
 * `AWS_ENDPOINT_URL_DYNAMODB` (or AWS). Idempotent; `npm start` does it on its own at start.
 */
async function main(): Promise<void> {
  const { tableName } = readLocalSettings();
  const { users, items } = await sweepFormats(createDynamoContext(tableName, new DynamoDBClient({})));
  process.stdout.write(`${users} users (${items} items) re-derived to storage format ${CURRENT_FORMAT} in table ${tableName}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
