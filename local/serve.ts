import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { join } from 'node:path';
import { checkSettings, knobFrom } from '../lib/config/config';
import { readLocalSettings } from '../lib/config/local-settings';
import { sessionExchangeFromEnv } from '../lib/config/session-exchange-issuers';
import { createDynamoContext } from '../lib/storage/dynamo';
import { sweepFormats } from '../lib/storage/dynamo/format-sweep';
import { ensureTable } from './create-table';
import { createLocalServer } from './server';
import { WORKER_PARALLELIZATION } from '../infra/worker-stream';
import { startStreamPoller, type StreamHandler } from './stream-poller';

/** How often `npm start` runs the sweeper bundle (in AWS: every 5 minutes, by a schedule). */
const LOCAL_SWEEP_MS = Number(process.env.BULK_SWEEP_INTERVAL_MS ?? 60_000);

/**
 * The bulk-import worker and sweeper as Lambda runs them, against the local table: the stream
 * poller invokes the worker bundle with each batch of the table's stream, a timer the sweeper
 * bundle. The very bundles the stack deploys; no separate code path.
 */
function startBulkWorker(bundleDir: string, tableName: string): { stop(): Promise<void> } {
  const worker = (require(join(bundleDir, 'bulkimport-worker', 'index.js')) as { handler: StreamHandler }).handler;
  const sweeper = (require(join(bundleDir, 'bulkimport-sweeper', 'index.js')) as { handler: () => Promise<unknown> }).handler;
  const log = (message: string) => process.stderr.write(`${message}\n`);
  const poller = startStreamPoller({
    tableName,
    handler: worker,
    log,
    maxRetries: knobFrom(process.env, 'BULK_STREAM_MAX_RETRIES', 3),
    parallelization: knobFrom(process.env, 'BULK_STREAM_PARALLELIZATION', WORKER_PARALLELIZATION, 1, 10),
  });
  // The next sweep is timed from the end of the last one: on a busy machine a sweep can outlast
  // the interval, and sweeps piling up on one another would slow DynamoDB Local further.
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> = Promise.resolve();
  const sweepLater = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      sweeping = sweeper()
        .then(
          () => undefined,
          (err: unknown) => {
            log(`bulk sweeper: ${err instanceof Error ? err.message : String(err)}`);
          },
        )
        .finally(sweepLater);
    }, LOCAL_SWEEP_MS);
    timer.unref();
  };
  sweepLater();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await Promise.all([sweeping, poller.stop()]);
    },
  };
}

/**
 * Serves the API against an already running DynamoDB (`AWS_ENDPOINT_URL_DYNAMODB`), creating the
 * table if needed and upgrading users stored by an earlier build. Used by the tests and benchmarks (one process per server, like a Lambda); `npm
 * start` wraps it with DynamoDB Local. Prints `listening on http://localhost:<port>` when ready.
 */
export async function serve(bundleDir: string): Promise<{ port: number; close(): Promise<void> }> {
  const settings = readLocalSettings();
  // A malformed setting refuses the start (SPEC §16b, §19), before anything is served.
  checkSettings(process.env, 'local');
  sessionExchangeFromEnv(process.env);
  // The `service` dimension of the metrics the bundles write (the stack sets `auth-core-<stage>`).
  process.env.POWERTOOLS_SERVICE_NAME ??= 'auth-core-local';
  const client = new DynamoDBClient({});
  // `BULK_WORKER=off` (the test harness, except for the bulk worker's own tests): no stream and no
  // worker. DynamoDB Local slows writes to stream-enabled tables after heavy stream use (measured
  // 1.4 → 22 ms per PutItem once 40,000 records had been written and read; bench/README.md), which
  // suites that never import in bulk need not pay.
  const bulkWorker = process.env.BULK_WORKER !== 'off';
  await ensureTable(client, settings.tableName, { stream: bulkWorker });
  // Users an older build stored in `.data` are re-derived to this build's storage format.
  const swept = await sweepFormats(createDynamoContext(settings.tableName, client));
  if (swept.users > 0) process.stdout.write(`re-derived ${swept.users} users (${swept.items} items) to this build's storage format\n`);
  client.destroy();
  const server = createLocalServer(bundleDir);
  const worker = bulkWorker ? startBulkWorker(bundleDir, settings.tableName) : undefined;
  await new Promise<void>((resolve) => server.listen(settings.port, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  process.stdout.write(`listening on http://localhost:${port}\n`);
  return {
    port,
    close: async () => {
      await worker?.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // close() ends the idle connections; one answering a request at that moment stays open
        // once idle (up to KEEP_ALIVE_HELD_MS): it is ended as soon as its answer is out.
        const timer = setInterval(() => server.closeIdleConnections(), 100);
        server.once('close', () => clearInterval(timer));
      });
    },
  };
}

if (require.main === module) {
  const bundleDir = join(__dirname, '..', 'functions');
  serve(bundleDir).then(
    (srv) => {
      const stop = () => void srv.close().then(() => process.exit(0));
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      // Started with an IPC channel (the tests' `startApi`, the bench): the channel closes when the
      // process that started it ends, however it ends (a jest worker killed at a timeout runs no
      // clean-up), and the server ends with it instead of holding its port and table.
      process.on('disconnect', stop);
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
