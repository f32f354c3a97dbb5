import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkSettings, ConfigError } from '../lib/config/config';
import { readLocalSettings } from '../lib/config/local-settings';
import { sessionExchangeFromEnv } from '../lib/config/session-exchange-issuers';
import { JAVA_MISSING, LOCAL_AWS_ENV, startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local';
import { serve } from './serve';

/**
 * `npm start`: DynamoDB Local persisted under `DATA_DIR`, the table, and the local server on
 * `PORT` invoking the built handler bundles. Without `API_KEYS`, a development key is generated on
 * first start, kept in the data directory and printed.
 */
async function main(): Promise<void> {
  // The SDK warns on Node 20 about its future Node 22 requirement; Lambda runs Node 22.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const settings = readLocalSettings();
  // Every setting is checked before anything starts (SPEC §16b): a bad one is its one sentence.
  checkSettings(process.env, 'local');
  sessionExchangeFromEnv(process.env);
  const dataDir = resolve(settings.dataDir);
  mkdirSync(dataDir, { recursive: true });

  let apiKeys = settings.apiKeys;
  if (!apiKeys) {
    const keyFile = join(dataDir, 'dev-api-key');
    if (!existsSync(keyFile)) writeFileSync(keyFile, randomBytes(24).toString('hex') + '\n', { mode: 0o600 });
    apiKeys = readFileSync(keyFile, 'utf8').trim();
    process.stdout.write(`development API key (from ${keyFile}): ${apiKeys}\n`);
  }

  let dynamo: DynamoDbLocal | undefined;
  if (!settings.dynamoEndpoint) {
    dynamo = await startDynamoDbLocal({ dbPath: join(dataDir, 'dynamodb') });
  }
  // The handler bundles read their configuration from the environment, as they do in Lambda.
  Object.assign(process.env, LOCAL_AWS_ENV, {
    ...(dynamo ? { AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint } : {}),
    API_KEYS: apiKeys,
    TABLE_NAME: settings.tableName,
  });
  const server = await serve(resolve(__dirname, '..', 'dist', 'functions'));
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await dynamo?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`${message === JAVA_MISSING || err instanceof ConfigError ? message : `npm start failed: ${message}`}\n`);
  process.exit(1);
});
