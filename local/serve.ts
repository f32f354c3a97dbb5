import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { join } from 'node:path';
import { readLocalSettings } from '../lib/config/local-settings';
import { createDynamoContext } from '../lib/storage/dynamo';
import { upgradeStorage } from '../lib/storage/dynamo/upgrade';
import { ensureTable } from './create-table';
import { createLocalServer } from './server';

/**
 * Serves the API against an already running DynamoDB (`AWS_ENDPOINT_URL_DYNAMODB`), creating the
 * table if needed and upgrading users stored by an earlier build. Used by the tests and benchmarks (one process per server, like a Lambda); `npm
 * start` wraps it with DynamoDB Local. Prints `listening on http://localhost:<port>` when ready.
 */
export async function serve(bundleDir: string): Promise<{ port: number; close(): Promise<void> }> {
  const settings = readLocalSettings();
  const client = new DynamoDBClient({});
  await ensureTable(client, settings.tableName);
  // Users a build before account linking stored in `.data` keep working (see upgradeStorage).
  const upgraded = await upgradeStorage(createDynamoContext(settings.tableName, client));
  if (upgraded > 0) process.stdout.write(`upgraded ${upgraded} users to storage format 2 (account linking)\n`);
  client.destroy();
  const server = createLocalServer(bundleDir);
  await new Promise<void>((resolve) => server.listen(settings.port, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  process.stdout.write(`listening on http://localhost:${port}\n`);
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

if (require.main === module) {
  const bundleDir = join(__dirname, '..', 'functions');
  serve(bundleDir).then(
    (srv) => {
      const stop = () => void srv.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
