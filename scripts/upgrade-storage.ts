import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readLocalSettings } from '../lib/config/local-settings';
import { createDynamoContext } from '../lib/storage/dynamo';
import { STORAGE_UPGRADES } from '../lib/storage/dynamo/upgrade';

/**
 * `npm run upgrade-storage`: rewrites users stored by a build before account linking (storage
 * format 1) into format 2, then indexes passwordless phone numbers (format 3), then copies each
 * email-password or third-party login method on its own onto its guard, with its version
 * (formats 4 and 7), then each passwordless login method onto its email and phone entries
 * (formats 5 and 6) (`STORAGE_UPGRADES`), in the table named by `TABLE_NAME` (default
 * `auth-core`) at `AWS_ENDPOINT_URL_DYNAMODB` (or AWS). Idempotent; `npm start` does it on its
 * own at start. Until it has run, a consume by phone of a user stored
 * before reads through the guard after its first try (correct, two calls more), a sign-in reads
 * the user's partition besides its guard, and a consume through an entry reads the user's
 * partition after it (correct, one call more each).
 */
async function main(): Promise<void> {
  const { tableName } = readLocalSettings();
  const ctx = createDynamoContext(tableName, new DynamoDBClient({}));
  for (const { run, items, format } of STORAGE_UPGRADES) {
    process.stdout.write(`${await run(ctx)} ${items} upgraded to ${format} in table ${tableName}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
