import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { readLocalSettings } from '../lib/config/local-settings';
import { checkConsistency } from '../lib/storage/dynamo/consistency';
import { createDynamoContext } from '../lib/storage/dynamo';

/**
 * `npm run check-consistency`: scans the table named by `TABLE_NAME` (default `auth-core`) at
 * `AWS_ENDPOINT_URL_DYNAMODB` (or AWS) and lists broken invariants; exits 1 if any.
 */
async function main(): Promise<void> {
  const { tableName } = readLocalSettings();
  const ctx = createDynamoContext(tableName, new DynamoDBClient({}));
  const problems = await checkConsistency(ctx);
  for (const p of problems) process.stdout.write(`${p.kind}\t${p.key}\t${p.detail}\n`);
  process.stdout.write(`${problems.length} problem(s) in table ${tableName}\n`);
  process.exit(problems.length === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
