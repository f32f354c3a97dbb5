import { parameterNames, resourceName, settingsFromContext } from '../../infra/settings';
import { HASHING_MIN_MEMORY_MB, hashingMemoryMb, largestHashMemoryMiB } from '../../infra/sizing';

const read = (ctx: Record<string, unknown>) => (key: string) => ctx[key];

describe('stage settings from the CDK context', () => {
  it('defaults to the dev stage, x86_64, non-production throttling', () => {
    expect(settingsFromContext(read({}))).toEqual({
      stage: 'dev',
      isProduction: false,
      architecture: 'x86_64',
      throttling: { rateLimit: 500, burstLimit: 1000 },
      functionEnvironment: {},
    });
  });

  it('treats prod as production with higher throttling, and honours overrides', () => {
    const s = settingsFromContext(read({ stage: 'prod', throttleRateLimit: '50', alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:t' }));
    expect(s).toMatchObject({ isProduction: true, throttling: { rateLimit: 50, burstLimit: 4000 } });
    expect(s.alarmTopicArn).toBe('arn:aws:sns:eu-west-1:123456789012:t');
    expect(settingsFromContext(read({ stage: 'live', productionStages: 'prod,live' })).isProduction).toBe(true);
  });

  it.each(['Prod', '1dev', 'dev_1', 'dev.1', '-dev', 'a'.repeat(22), ' '])('refuses the stage name %j', (stage) => {
    expect(() => settingsFromContext(read({ stage }))).toThrow('Context "stage" must match');
  });

  it('leaves the routes out only when asked with routes=none (the first of the two deploys that move a one-stack stage)', () => {
    expect(settingsFromContext(read({ routes: 'none' })).routes).toEqual([]);
    expect(settingsFromContext(read({})).routes).toBeUndefined();
    expect(() => settingsFromContext(read({ routes: 'all' }))).toThrow('Context "routes" may only be "none"');
  });

  it('refuses malformed architecture, throttling and topic values, naming the key', () => {
    expect(() => settingsFromContext(read({ arch: 'arm' }))).toThrow('Context "arch"');
    expect(() => settingsFromContext(read({ throttleBurstLimit: '-1' }))).toThrow('Context "throttleBurstLimit"');
    expect(() => settingsFromContext(read({ alarmTopicArn: 'my-topic' }))).toThrow('Context "alarmTopicArn"');
  });

  it('takes provisioned capacity for a migration window as both units together, never beside warm throughput', () => {
    expect(settingsFromContext(read({ provisionedWriteUnits: '36000', provisionedReadUnits: 2000 })).provisionedCapacity).toEqual({
      writeUnits: 36000,
      readUnits: 2000,
    });
    expect(settingsFromContext(read({})).provisionedCapacity).toBeUndefined();
    expect(() => settingsFromContext(read({ provisionedWriteUnits: '36000' }))).toThrow(
      'Context "provisionedReadUnits" must be given with "provisionedWriteUnits"',
    );
    expect(() => settingsFromContext(read({ provisionedReadUnits: '2000' }))).toThrow(
      'Context "provisionedWriteUnits" must be given with "provisionedReadUnits"',
    );
    expect(() => settingsFromContext(read({ provisionedWriteUnits: 'lots', provisionedReadUnits: '2000' }))).toThrow(
      'Context "provisionedWriteUnits" must be a positive integer',
    );
    expect(() => settingsFromContext(read({ provisionedWriteUnits: '36000', provisionedReadUnits: '0' }))).toThrow(
      'Context "provisionedReadUnits" must be a positive integer',
    );
    expect(() => settingsFromContext(read({ provisionedWriteUnits: '36000', provisionedReadUnits: '2000', warmWriteUnitsPerSecond: '40000' }))).toThrow(
      'Context "warmWriteUnitsPerSecond" is for an on-demand table',
    );
  });

  it('accepts configuration variables but never secrets in the function environment', () => {
    expect(settingsFromContext(read({ functionEnvironment: { PASSWORD_REHASH_ON_SIGNIN: false } })).functionEnvironment).toEqual({
      PASSWORD_REHASH_ON_SIGNIN: 'false',
    });
    expect(settingsFromContext(read({ functionEnvironment: { PASSWORD_RESET_TOKEN_LIFETIME: 900000 } })).functionEnvironment).toEqual({
      PASSWORD_RESET_TOKEN_LIFETIME: '900000',
    });
    expect(settingsFromContext(read({ functionEnvironment: { TOTP_MAX_ATTEMPTS: 3, TOTP_RATE_LIMIT_COOLDOWN_SEC: '60' } })).functionEnvironment).toEqual({
      TOTP_MAX_ATTEMPTS: '3',
      TOTP_RATE_LIMIT_COOLDOWN_SEC: '60',
    });
    expect(() => settingsFromContext(read({ functionEnvironment: { API_KEYS: 'x'.repeat(24) } }))).toThrow(/may not set API_KEYS.*SSM/);
    expect(() => settingsFromContext(read({ functionEnvironment: '{"VENDOR_PASSWORD_HASHING_SIGNER_KEY":"k"}' }))).toThrow(
      /may not set VENDOR_PASSWORD_HASHING_SIGNER_KEY/,
    );
  });

  it('checks the password migration settings as a Lambda reads them, and keeps their secrets out', () => {
    const env = (functionEnvironment: Record<string, string>) => () => settingsFromContext(read({ functionEnvironment }));
    expect(env({ PASSWORD_MIGRATION_SOURCE: 'firebase' })().functionEnvironment).toEqual({ PASSWORD_MIGRATION_SOURCE: 'firebase' });
    expect(env({ PASSWORD_MIGRATION_SOURCE: 'webhook' })).toThrow(
      'Context "functionEnvironment": PASSWORD_MIGRATION_SOURCE=webhook needs PASSWORD_MIGRATION_WEBHOOK_URL',
    );
    expect(env({ PASSWORD_MIGRATION_SOURCE: 'webhook', PASSWORD_MIGRATION_WEBHOOK_URL: 'http://old.example.com/check' })).toThrow(
      'PASSWORD_MIGRATION_WEBHOOK_URL must be an https URL',
    );
    expect(env({ PASSWORD_MIGRATION_SOURCE: 'auth0' })).toThrow('PASSWORD_MIGRATION_SOURCE must be off, firebase, webhook or cognito');
    const cognito = { PASSWORD_MIGRATION_SOURCE: 'cognito', COGNITO_USER_POOL_ID: 'eu-west-1_AbC123xyz', COGNITO_CLIENT_ID: 'client123' };
    expect(env(cognito)().functionEnvironment).toEqual(cognito);
    expect(env({ ...cognito, COGNITO_REGION: 'eu-west-1' })().functionEnvironment).toMatchObject({ COGNITO_REGION: 'eu-west-1' });
    expect(env({ PASSWORD_MIGRATION_SOURCE: 'cognito', COGNITO_USER_POOL_ID: 'eu-west-1_AbC123xyz' })).toThrow(
      'Context "functionEnvironment": PASSWORD_MIGRATION_SOURCE=cognito needs COGNITO_CLIENT_ID',
    );
    expect(env({ ...cognito, COGNITO_USER_POOL_ID: 'local_AbC123' })).toThrow(
      "COGNITO_REGION (default: COGNITO_USER_POOL_ID's prefix) must be the pool's AWS region",
    );
    expect(env({ PASSWORD_MIGRATION_SOURCE: 'firebase', PASSWORD_MIGRATION_TIMEOUT_MS: '60000' })).toThrow('PASSWORD_MIGRATION_TIMEOUT_MS must be an integer');
    for (const secret of ['FIREBASE_WEB_API_KEY', 'PASSWORD_MIGRATION_WEBHOOK_SECRET', 'FIREBASE_AUTH_URL', 'COGNITO_CLIENT_SECRET', 'COGNITO_ENDPOINT_URL']) {
      expect(env({ PASSWORD_MIGRATION_SOURCE: 'firebase', [secret]: 'x' })).toThrow(`may not set ${secret}`);
    }
  });

  it('checks every other setting at synth too, with the sentence a function would log (SPEC §16b)', () => {
    const env = (functionEnvironment: Record<string, string>) => () => settingsFromContext(read({ functionEnvironment }));
    expect(env({ ACCESS_TOKEN_VALIDITY: 'an hour' })).toThrow('Context "functionEnvironment": ACCESS_TOKEN_VALIDITY must be an integer from 1 to 86400000');
    expect(env({ SHA_CRYPT_MAX_ROUNDS: '999' })).toThrow('Context "functionEnvironment": SHA_CRYPT_MAX_ROUNDS must be an integer from 1000 to 999999999');
    expect(env({ BCRYPT_MIN_COST: '12', BCRYPT_MAX_COST: '10' })).toThrow('Context "functionEnvironment": BCRYPT_MIN_COST must be at most BCRYPT_MAX_COST');
    expect(env({ PASSWORD_REHASH_ON_SIGNIN: 'maybe' })).toThrow('Context "functionEnvironment": PASSWORD_REHASH_ON_SIGNIN must be true or false');
    expect(env({ ACCESS_TOKEN_VALIDITY: '7200', REFRESH_TOKEN_VALIDITY: '60' })).toThrow(
      'Context "functionEnvironment": REFRESH_TOKEN_VALIDITY (minutes) × 60 must be greater than ACCESS_TOKEN_VALIDITY (seconds)',
    );
  });

  it('checks the session exchange issuers as a Lambda reads them, and keeps secrets in SSM', () => {
    const issuers = (sessionExchangeIssuers: unknown) => () => settingsFromContext(read({ sessionExchangeIssuers }));
    const auth0 = { id: 'a0', preset: 'auth0', domain: 'acme.eu.auth0.com', audience: 'client-1' };
    expect(issuers([auth0])().sessionExchangeIssuers).toBe(JSON.stringify([auth0]));
    // As cdk.json or `-c` gives it: text.
    expect(issuers(` ${JSON.stringify([auth0])} `)().sessionExchangeIssuers).toBe(JSON.stringify([auth0]));
    expect(settingsFromContext(read({})).sessionExchangeIssuers).toBeUndefined();
    expect(issuers('[{')).toThrow('Context "sessionExchangeIssuers" must be a JSON array of issuers (SPEC §19)');
    expect(issuers([{ ...auth0, jwksUri: 'http://127.0.0.1:9/jwks' }])).toThrow('Context "sessionExchangeIssuers": issuer a0: jwksUri must be an https URL');
    expect(issuers([{ id: 'emu', preset: 'firebase-emulator', projectId: 'demo-p' }])).toThrow(
      'Context "sessionExchangeIssuers": issuer emu: preset firebase-emulator needs SESSION_EXCHANGE_ALLOW_EMULATOR=1',
    );
    expect(issuers([{ id: 'sb', preset: 'supabase', projectRef: 'r', secret: 's'.repeat(40) }])).toThrow(
      'Context "sessionExchangeIssuers": issuer sb: a secret may not be in the context, put this issuer in the SSM parameter /auth-core/dev/session_exchange_issuers',
    );
    const many = Array.from({ length: 40 }, (_, i) => ({ ...auth0, id: `a${i}`, domain: `tenant-${i}.eu.auth0.com` }));
    expect(issuers(many)).toThrow(
      /^Context "sessionExchangeIssuers" is \d+ bytes as JSON, over the 3072 .* SSM parameter \/auth-core\/dev\/session_exchange_issuers$/,
    );
  });

  it('derives resource names and SSM paths from the stage', () => {
    expect(resourceName('dev')).toBe('auth-core-dev');
    expect(resourceName('dev', 'hello')).toBe('auth-core-dev-hello');
    expect(parameterNames('prod')).toEqual({
      apiKeys: '/auth-core/prod/api_keys',
      signerKey: '/auth-core/prod/vendor_password_hashing_signer_key',
      passwordMigration: '/auth-core/prod/password_migration_secret',
      sessionExchange: '/auth-core/prod/session_exchange_issuers',
    });
  });
});

describe('memory sizing', () => {
  it('sizes hashing functions for 256 MiB hashes with a full vCPU by default', () => {
    expect(largestHashMemoryMiB()).toBe(256);
    expect(hashingMemoryMb()).toBe(HASHING_MIN_MEMORY_MB);
  });

  it("grows with raised hash limits and refuses limits beyond Lambda's memory", () => {
    expect(hashingMemoryMb({ ARGON2_MAX_MEMORY_KIB: String(2 * 1024 * 1024) })).toBe(2048 + 256);
    expect(hashingMemoryMb({ SCRYPT_MAX_MEM_COST: '20', SCRYPT_MAX_ROUNDS: '16' })).toBe(2048 + 256);
    // SPEC §7b's scrypt family, raised through functionEnvironment.
    const raised = settingsFromContext(read({ functionEnvironment: { SCRYPT_MAX_MEMORY_BYTES: String(2 * 1024 ** 3) } })).functionEnvironment;
    expect(hashingMemoryMb(raised)).toBe(2048 + 256);
    expect(() => hashingMemoryMb({ ARGON2_MAX_MEMORY_KIB: String(16 * 1024 * 1024) })).toThrow(/above Lambda/);
  });
});
