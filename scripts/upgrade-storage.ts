import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readLocalSettings } from '../lib/config/local-settings';
import { createDynamoContext } from '../lib/storage/dynamo';
import { upgradeStorage } from '../lib/storage/dynamo/upgrade';

/**
 * `npm run upgrade-storage`: rewrites users stored by a build before account linking (storage
 * format 1) into format 2, in the table named by `TABLE_NAME` (default `auth-core`) at
 * `AWS_ENDPOINT_URL_DYNAMODB` (or AWS). Idempotent; `npm start` does it on its own at start.
 */
async function main(): Promise<void> {
  const { tableName } = readLocalSettings();
  const upgraded = await upgradeStorage(createDynamoContext(tableName, new DynamoDBClient({})));
  process.stdout.write(`${upgraded} user(s) upgraded to storage format 2 in table ${tableName}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
