/** Settings of the local runner (`npm start`), read from the environment. */
export interface LocalSettings {
  readonly port: number;
  readonly dataDir: string;
  readonly apiKeys: string | undefined;
  /** An existing DynamoDB endpoint to use instead of starting DynamoDB Local. */
  readonly dynamoEndpoint: string | undefined;
  readonly tableName: string;
}

/** Reads the local runner's settings; `PORT=0` picks a free port. */
export function readLocalSettings(env: Readonly<Record<string, string | undefined>> = process.env): LocalSettings {
  const port = Number(env.PORT ?? 3567);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('PORT must be an integer from 0 to 65535');
  return {
    port,
    dataDir: env.DATA_DIR?.trim() || '.data',
    apiKeys: env.API_KEYS?.trim() || undefined,
    dynamoEndpoint: env.AWS_ENDPOINT_URL_DYNAMODB?.trim() || undefined,
    tableName: env.TABLE_NAME?.trim() || 'auth-core',
  };
}
