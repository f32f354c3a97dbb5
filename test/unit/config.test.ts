import { checkSettings, ConfigError, configFromEnv, createConfigLoader, knobFrom, parseApiKeys, passwordMigrationFromEnv } from '../../lib/config/config';
import { passwordMigrationSource } from '../../lib/password-migration/sources';
import { startParametersExtension, type ParametersExtension } from '../support/parameters-extension';
import { createLogger } from '../../lib/log/logger';
import { DEFAULT_PASSWORD_LIMITS } from '../../lib/password/limits';

describe('configuration', () => {
  it('uses the documented defaults', () => {
    const c = configFromEnv({}, {});
    expect(c.passwordless).toEqual({ codeLifetimeMs: 900000, maxCodeInputAttempts: 5 });
    // The core's default email verification token lifetime: one day.
    expect(c.emailVerification).toEqual({ tokenLifetimeMs: 86_400_000 });
    // The core's default password reset token lifetime: one hour.
    expect(c.passwordReset).toEqual({ tokenLifetimeMs: 3_600_000 });
    expect(c.password.ownHash).toEqual({ memoryKiB: 19456, iterations: 2, parallelism: 1 });
    expect(c.password.rehashOnSignin).toBe(true);
    expect(c.apiKeys).toEqual([]);
    expect(c.signerKey).toBeUndefined();
    // The core's totp_max_attempts and totp_rate_limit_cooldown_sec.
    expect(c.totp).toEqual({ maxAttempts: 5, rateLimitCooldownMs: 900_000 });
  });

  it('reads the TOTP rate limit settings, integers above 0, and refuses anything else', () => {
    expect(configFromEnv({ TOTP_MAX_ATTEMPTS: '3', TOTP_RATE_LIMIT_COOLDOWN_SEC: '1' }, {}).totp).toEqual({ maxAttempts: 3, rateLimitCooldownMs: 1000 });
    for (const bad of ['0', '-1', '2.5', 'five', '1001']) {
      expect(() => configFromEnv({ TOTP_MAX_ATTEMPTS: bad }, {})).toThrow(new ConfigError('TOTP_MAX_ATTEMPTS must be an integer from 1 to 1000'));
    }
    for (const bad of ['0', '1e3x', '60s', '2678401']) {
      expect(() => configFromEnv({ TOTP_RATE_LIMIT_COOLDOWN_SEC: bad }, {})).toThrow(
        new ConfigError('TOTP_RATE_LIMIT_COOLDOWN_SEC must be an integer from 1 to 2678400'),
      );
    }
  });

  it('reads the WebAuthn settings: the recovery token lifetime (ms, > 0) and the RP ids passkey import accepts', () => {
    expect(configFromEnv({}, {}).webauthn).toEqual({ recoverAccountTokenLifetimeMs: 3_600_000, rpIds: [] });
    expect(configFromEnv({ WEBAUTHN_RECOVER_ACCOUNT_TOKEN_LIFETIME: '60000', WEBAUTHN_RP_ID: ' Example.com, auth.example.com,' }, {}).webauthn).toEqual({
      recoverAccountTokenLifetimeMs: 60_000,
      rpIds: ['example.com', 'auth.example.com'],
    });
    for (const bad of ['0', '-5', '1.5', 'hour']) {
      expect(() => configFromEnv({ WEBAUTHN_RECOVER_ACCOUNT_TOKEN_LIFETIME: bad }, {})).toThrow(
        /^WEBAUTHN_RECOVER_ACCOUNT_TOKEN_LIFETIME must be an integer from 1 to /,
      );
    }
    for (const bad of ['https://example.com', 'example.com:443', 'exa mple.com', '-example.com', 'example..com']) {
      expect(() => configFromEnv({ WEBAUTHN_RP_ID: bad }, {})).toThrow(
        new ConfigError(`WEBAUTHN_RP_ID must be a comma-separated list of domain names; '${bad}' is not one`),
      );
    }
    expect(() => checkSettings({ WEBAUTHN_RP_ID: 'a/b' }, 'lambda')).toThrow(ConfigError);
  });

  it('reads overrides and refuses malformed values, naming the variable', () => {
    const c = configFromEnv({ PASSWORDLESS_CODE_LIFETIME: '60000', PASSWORD_REHASH_ON_SIGNIN: 'off', BCRYPT_MAX_COST: '12' }, {});
    expect(c.passwordless.codeLifetimeMs).toBe(60000);
    expect(c.password.rehashOnSignin).toBe(false);
    expect(c.password.limits.bcryptMaxCost).toBe(12);
    expect(configFromEnv({ EMAIL_VERIFICATION_TOKEN_LIFETIME: '3000' }, {}).emailVerification.tokenLifetimeMs).toBe(3000);
    expect(configFromEnv({ PASSWORD_RESET_TOKEN_LIFETIME: ' 86400000 ' }, {}).passwordReset.tokenLifetimeMs).toBe(86_400_000);
    for (const bad of ['0', '86400001', '1.5', 'an hour', '-1']) {
      expect(() => configFromEnv({ PASSWORD_RESET_TOKEN_LIFETIME: bad }, {})).toThrow(
        new ConfigError('PASSWORD_RESET_TOKEN_LIFETIME must be an integer from 1 to 86400000'),
      );
    }
    expect(() => configFromEnv({ PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS: 'many' }, {})).toThrow('PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS must be an integer');
    expect(() => configFromEnv({ PASSWORD_REHASH_ON_SIGNIN: 'maybe' }, {})).toThrow('PASSWORD_REHASH_ON_SIGNIN must be true or false');
    expect(() => configFromEnv({ BCRYPT_MIN_COST: '11', BCRYPT_MAX_COST: '10' }, {})).toThrow(
      new ConfigError('BCRYPT_MIN_COST must be at most BCRYPT_MAX_COST'),
    );
    expect(configFromEnv({ BCRYPT_MIN_COST: '10', BCRYPT_MAX_COST: '10' }, {}).password.limits).toMatchObject({ bcryptMinCost: 10, bcryptMaxCost: 10 });
  });

  it('checks every setting at start: locally with the secrets from the environment, for Lambda without them (SPEC §16b)', () => {
    const firebase = { PASSWORD_MIGRATION_SOURCE: 'firebase' };
    expect(() => checkSettings(firebase, 'local')).toThrow(new ConfigError('PASSWORD_MIGRATION_SOURCE=firebase needs FIREBASE_WEB_API_KEY'));
    expect(() => checkSettings({ ...firebase, FIREBASE_WEB_API_KEY: 'k' }, 'local')).not.toThrow();
    // In Lambda only the sign-in function holds the key (SSM): the synth cannot ask for it.
    expect(() => checkSettings(firebase, 'lambda')).not.toThrow();
    expect(() => checkSettings({ API_KEYS: 'short' }, 'local')).toThrow(/at least 20 characters/);
    const webhook = { PASSWORD_MIGRATION_SOURCE: 'webhook', PASSWORD_MIGRATION_WEBHOOK_URL: 'http://127.0.0.1:9/hook', PASSWORD_MIGRATION_WEBHOOK_SECRET: 's' };
    expect(() => checkSettings(webhook, 'local')).not.toThrow();
    expect(() => checkSettings(webhook, 'lambda')).toThrow(new ConfigError('PASSWORD_MIGRATION_WEBHOOK_URL must be an https URL'));
    expect(() => checkSettings({ ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL: '0' }, 'local')).toThrow(
      'ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL must be a number greater than 0',
    );
  });

  it("reads SPEC §7b's family bounds, each up to its format's own ceiling", () => {
    const env = {
      PBKDF2_MAX_ITERATIONS: '3000000',
      SHA_CRYPT_MAX_ROUNDS: '2000',
      PHPASS_MAX_LOG2_COUNT: '21',
      SCRYPT_MAX_N: '2097152',
      SCRYPT_MAX_R: '16',
      SCRYPT_MAX_P: '4',
      SCRYPT_MAX_MEMORY_BYTES: '536870912',
      SCRYPT_MAX_WORK: '8388608',
    };
    expect(configFromEnv(env, {}).password.limits).toMatchObject({
      pbkdf2MaxIterations: 3_000_000,
      shaCryptMaxRounds: 2000,
      phpassMaxLog2Count: 21,
      scryptMaxN: 2 ** 21,
      scryptMaxR: 16,
      scryptMaxP: 4,
      scryptMaxMemoryBytes: 512 * 1024 * 1024,
      scryptMaxWork: 2 ** 23,
    });
    expect(configFromEnv({}, {}).password.limits).toEqual(DEFAULT_PASSWORD_LIMITS);
    expect(() => configFromEnv({ SHA_CRYPT_MAX_ROUNDS: '999' }, {})).toThrow(new ConfigError('SHA_CRYPT_MAX_ROUNDS must be an integer from 1000 to 999999999'));
    expect(() => configFromEnv({ PHPASS_MAX_LOG2_COUNT: '31' }, {})).toThrow(new ConfigError('PHPASS_MAX_LOG2_COUNT must be an integer from 7 to 30'));
    expect(() => configFromEnv({ PBKDF2_MAX_ITERATIONS: '1.5' }, {})).toThrow('PBKDF2_MAX_ITERATIONS must be an integer');
  });

  it('splits API keys on commas and refuses short or odd keys without echoing them', () => {
    expect(parseApiKeys(' aaaaaaaaaaaaaaaaaaaa , bbbbbbbbbbbbbbbbbbbb=')).toEqual(['aaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbb=']);
    expect(() => parseApiKeys('short')).toThrow(/at least 20 characters/);
    try {
      parseApiKeys('has_underscore_0123456789');
    } catch (err) {
      expect((err as Error).message).not.toContain('has_underscore');
    }
  });
});

describe('the password migration source (SPEC §16)', () => {
  it('is off unless configured', () => {
    expect(configFromEnv({}, {}).passwordMigration).toEqual({ source: 'off' });
  });

  it("firebase: the Web API key (a secret), Google's URL unless overridden locally for the emulator", () => {
    expect(passwordMigrationFromEnv({ PASSWORD_MIGRATION_SOURCE: 'firebase' }, 'web-key')).toEqual({
      source: 'firebase',
      webApiKey: 'web-key',
      authUrl: 'https://identitytoolkit.googleapis.com',
      timeoutMs: 5000,
    });
    const emulator = {
      PASSWORD_MIGRATION_SOURCE: 'Firebase',
      FIREBASE_AUTH_URL: 'http://127.0.0.1:9099/identitytoolkit.googleapis.com/',
      PASSWORD_MIGRATION_TIMEOUT_MS: '1500',
    };
    expect(passwordMigrationFromEnv(emulator, 'k')).toMatchObject({ authUrl: 'http://127.0.0.1:9099/identitytoolkit.googleapis.com', timeoutMs: 1500 });
    expect(() => passwordMigrationFromEnv({ ...emulator, AWS_LAMBDA_FUNCTION_NAME: 'signin' }, 'k')).toThrow(
      'FIREBASE_AUTH_URL can be overridden only locally',
    );
    expect(() => passwordMigrationFromEnv({ PASSWORD_MIGRATION_SOURCE: 'firebase' }, ' ')).toThrow('needs FIREBASE_WEB_API_KEY');
  });

  it('webhook: a URL (https in Lambda) and a secret', () => {
    const env = { PASSWORD_MIGRATION_SOURCE: 'webhook', PASSWORD_MIGRATION_WEBHOOK_URL: 'http://localhost:8080/check' };
    expect(passwordMigrationFromEnv(env, 's3cret')).toEqual({ source: 'webhook', url: 'http://localhost:8080/check', secret: 's3cret', timeoutMs: 5000 });
    expect(() => passwordMigrationFromEnv({ ...env, AWS_LAMBDA_FUNCTION_NAME: 'signin' }, 's3cret')).toThrow(
      'PASSWORD_MIGRATION_WEBHOOK_URL must be an https URL',
    );
    expect(
      passwordMigrationFromEnv({ ...env, PASSWORD_MIGRATION_WEBHOOK_URL: 'https://old.example/check', AWS_LAMBDA_FUNCTION_NAME: 'signin' }, 's'),
    ).toMatchObject({ url: 'https://old.example/check' });
    expect(() => passwordMigrationFromEnv({ ...env, PASSWORD_MIGRATION_WEBHOOK_URL: 'not a url' }, 's')).toThrow(
      'PASSWORD_MIGRATION_WEBHOOK_URL must be a URL',
    );
    expect(() => passwordMigrationFromEnv({ ...env, PASSWORD_MIGRATION_WEBHOOK_URL: 'ftp://x/y' }, 's')).toThrow('must be an https URL');
    expect(() => passwordMigrationFromEnv({ PASSWORD_MIGRATION_SOURCE: 'webhook' }, 's')).toThrow('needs PASSWORD_MIGRATION_WEBHOOK_URL');
    expect(() => passwordMigrationFromEnv(env, undefined)).toThrow('needs PASSWORD_MIGRATION_WEBHOOK_SECRET');
  });

  it("cognito (SPEC §16b): the pool and the app client, the region from the pool's id, AWS's endpoint unless an emulator's locally", () => {
    const env = { PASSWORD_MIGRATION_SOURCE: 'cognito', COGNITO_USER_POOL_ID: 'eu-west-1_AbC123xyz', COGNITO_CLIENT_ID: 'client123' };
    expect(passwordMigrationFromEnv(env, undefined)).toEqual({
      source: 'cognito',
      userPoolId: 'eu-west-1_AbC123xyz',
      clientId: 'client123',
      region: 'eu-west-1',
      endpointUrl: 'https://cognito-idp.eu-west-1.amazonaws.com/',
      clientSecret: undefined,
      clientSecretElsewhere: false,
      timeoutMs: 5000,
    });
    // The secret is optional; the official endpoint may be named, also in Lambda.
    const inLambda = {
      ...env,
      AWS_LAMBDA_FUNCTION_NAME: 'auth-core-dev-emailpassword-signin',
      COGNITO_ENDPOINT_URL: 'https://cognito-idp.eu-west-1.amazonaws.com',
    };
    expect(passwordMigrationFromEnv(inLambda, ' s3cret ')).toMatchObject({
      clientSecret: 's3cret',
      endpointUrl: 'https://cognito-idp.eu-west-1.amazonaws.com/',
    });
    expect(passwordMigrationFromEnv(inLambda, undefined, true)).toMatchObject({ clientSecret: undefined, clientSecretElsewhere: true });
    // cognito-local: its pool ids start with `local_`, so the region is given, beside its endpoint; never in Lambda.
    const local = { ...env, COGNITO_USER_POOL_ID: 'local_4fZ7w0Qa', COGNITO_REGION: 'us-east-1', COGNITO_ENDPOINT_URL: 'http://127.0.0.1:9229/' };
    expect(passwordMigrationFromEnv(local, undefined)).toMatchObject({
      userPoolId: 'local_4fZ7w0Qa',
      region: 'us-east-1',
      endpointUrl: 'http://127.0.0.1:9229',
    });
    expect(() => passwordMigrationFromEnv({ ...local, AWS_LAMBDA_FUNCTION_NAME: 'signin' }, undefined)).toThrow(
      'COGNITO_ENDPOINT_URL can be overridden only locally (for an emulator)',
    );
    // Beside an emulator's endpoint any region will do, the default (`local`) included: the call is unsigned.
    expect(passwordMigrationFromEnv({ ...local, COGNITO_REGION: undefined }, undefined)).toMatchObject({
      region: 'local',
      endpointUrl: 'http://127.0.0.1:9229',
    });
    expect(passwordMigrationFromEnv({ ...local, COGNITO_REGION: 'Europe' }, undefined)).toMatchObject({
      region: 'Europe',
      endpointUrl: 'http://127.0.0.1:9229',
    });
    // Without one, the region names Cognito's endpoint: it must be the pool's, an AWS region.
    const regionError = "COGNITO_REGION (default: COGNITO_USER_POOL_ID's prefix) must be the pool's AWS region";
    expect(() => passwordMigrationFromEnv({ ...local, COGNITO_ENDPOINT_URL: undefined }, undefined)).toThrow(regionError);
    expect(() => passwordMigrationFromEnv({ ...local, COGNITO_REGION: undefined, COGNITO_ENDPOINT_URL: undefined }, undefined)).toThrow(regionError);
    expect(() => passwordMigrationFromEnv({ ...env, COGNITO_REGION: 'us-east-1' }, undefined)).toThrow(regionError);
    // The official endpoint named outright is no emulator.
    expect(() =>
      passwordMigrationFromEnv({ ...local, COGNITO_REGION: undefined, COGNITO_ENDPOINT_URL: 'https://cognito-idp.local.amazonaws.com/' }, undefined),
    ).toThrow(regionError);
    expect(() => passwordMigrationFromEnv({ ...local, COGNITO_ENDPOINT_URL: 'not a url' }, undefined)).toThrow('COGNITO_ENDPOINT_URL must be a URL');
    for (const [name, text] of [
      ['COGNITO_USER_POOL_ID', 'PASSWORD_MIGRATION_SOURCE=cognito needs COGNITO_USER_POOL_ID'],
      ['COGNITO_CLIENT_ID', 'PASSWORD_MIGRATION_SOURCE=cognito needs COGNITO_CLIENT_ID'],
    ]) {
      expect(() => passwordMigrationFromEnv({ ...env, [name]: ' ' }, undefined)).toThrow(text);
    }
    for (const id of ['AbC123xyz', 'eu-west-1-AbC123', 'eu-west-1_', 'EU-WEST-1_AbC', 'eu-west-1_a/b']) {
      expect(() => passwordMigrationFromEnv({ ...env, COGNITO_USER_POOL_ID: id }, undefined)).toThrow('COGNITO_USER_POOL_ID must be <region>_<id>');
    }
  });

  it('anything else is a configuration error naming the choices; a bad timeout names its bounds', () => {
    expect(() => passwordMigrationFromEnv({ PASSWORD_MIGRATION_SOURCE: 'auth0' }, 'k')).toThrow(
      'PASSWORD_MIGRATION_SOURCE must be off, firebase, webhook or cognito',
    );
    expect(() => passwordMigrationFromEnv({ PASSWORD_MIGRATION_SOURCE: 'firebase', PASSWORD_MIGRATION_TIMEOUT_MS: '60000' }, 'k')).toThrow(
      'PASSWORD_MIGRATION_TIMEOUT_MS must be an integer from 100 to 10000',
    );
  });

  it('the secret comes from the environment locally (each source its own variable), from SSM in AWS', async () => {
    const local = createConfigLoader({
      PASSWORD_MIGRATION_SOURCE: 'webhook',
      PASSWORD_MIGRATION_WEBHOOK_URL: 'http://localhost/x',
      PASSWORD_MIGRATION_WEBHOOK_SECRET: 'from-env',
      FIREBASE_WEB_API_KEY: 'not-this',
    });
    expect((await local()).passwordMigration).toMatchObject({ source: 'webhook', secret: 'from-env' });
    const cognito = { PASSWORD_MIGRATION_SOURCE: 'cognito', COGNITO_USER_POOL_ID: 'eu-west-1_AbC123xyz', COGNITO_CLIENT_ID: 'c' };
    expect((await createConfigLoader({ ...cognito, COGNITO_CLIENT_SECRET: 'client-secret' })()).passwordMigration).toMatchObject({
      clientSecret: 'client-secret',
    });
    expect((await createConfigLoader(cognito)()).passwordMigration).toMatchObject({ clientSecret: undefined, clientSecretElsewhere: false });
    const extension = await startParametersExtension({ '/auth/dev/pwmig': 'from-ssm' });
    try {
      const aws = createConfigLoader({
        ...extension.env,
        PASSWORD_MIGRATION_SOURCE: 'firebase',
        PASSWORD_MIGRATION_SECRET_PARAMETER: '/auth/dev/pwmig',
        FIREBASE_WEB_API_KEY: 'ignored',
      });
      expect((await aws()).passwordMigration).toMatchObject({ source: 'firebase', webApiKey: 'from-ssm' });
      expect(extension.requests.map((r) => r.name)).toEqual(['/auth/dev/pwmig']);
      // Cognito's app client secret is optional: sign-in reads the parameter, and without it sends no SECRET_HASH.
      const cognito = {
        ...extension.env,
        AWS_LAMBDA_FUNCTION_NAME: 'auth-core-dev-emailpassword-signin',
        PASSWORD_MIGRATION_SOURCE: 'cognito',
        COGNITO_USER_POOL_ID: 'eu-west-1_AbC123xyz',
        COGNITO_CLIENT_ID: 'c',
      };
      const withSecret = (await createConfigLoader({ ...cognito, PASSWORD_MIGRATION_SECRET_PARAMETER: '/auth/dev/pwmig' })()).passwordMigration;
      expect(withSecret).toMatchObject({ clientSecret: 'from-ssm', clientSecretElsewhere: false });
      const without = (await createConfigLoader({ ...cognito, PASSWORD_MIGRATION_SECRET_PARAMETER: '/auth/dev/none' })()).passwordMigration;
      expect(without).toMatchObject({ clientSecret: undefined, clientSecretElsewhere: false });
      expect(passwordMigrationSource(without)?.kind).toBe('cognito');
      // Every other function: no parameter, so the source is known but cannot be asked.
      const elsewhere = (await createConfigLoader(cognito)()).passwordMigration;
      expect(elsewhere).toMatchObject({ clientSecret: undefined, clientSecretElsewhere: true });
      expect(() => passwordMigrationSource(elsewhere)).toThrow(ConfigError);
    } finally {
      await extension.close();
    }
  });

  it('in a Lambda not given the secret (every function but sign-in) the source is known, its secret absent and never used', async () => {
    const env = {
      AWS_LAMBDA_FUNCTION_NAME: 'auth-core-dev-emailpassword-import',
      PASSWORD_MIGRATION_SOURCE: 'webhook',
      PASSWORD_MIGRATION_WEBHOOK_URL: 'https://old.example/check',
    };
    const asked: string[][] = [];
    const reader = async (names: readonly string[]) => (asked.push([...names]), {});
    const config = await createConfigLoader(env, reader)();
    expect(config.passwordMigration).toEqual({ source: 'webhook', url: 'https://old.example/check', secret: undefined, timeoutMs: 5000 });
    expect(asked).toEqual([]);
    expect(() => passwordMigrationSource(config.passwordMigration)).toThrow(ConfigError);
    // Locally, or in the function that was given the parameter, a missing secret is an error at once.
    await expect(createConfigLoader({ ...env, AWS_LAMBDA_FUNCTION_NAME: undefined })()).rejects.toThrow('needs PASSWORD_MIGRATION_WEBHOOK_SECRET');
    await expect(createConfigLoader({ ...env, PASSWORD_MIGRATION_SECRET_PARAMETER: '/auth/dev/pwmig' }, reader)()).rejects.toThrow(
      'needs PASSWORD_MIGRATION_WEBHOOK_SECRET',
    );
  });
});

describe('secrets from SSM Parameter Store, through the Parameters and Secrets extension', () => {
  const names = { API_KEYS_PARAMETER: '/auth/dev/api_keys', SIGNER_KEY_PARAMETER: '/auth/dev/signer', API_KEYS: 'ignored-when-ssm-is-used-000' };
  let extension: ParametersExtension;
  beforeEach(async () => {
    extension = await startParametersExtension({ '/auth/dev/api_keys': 'ssm-key-0123456789abcdefgh', '/auth/dev/signer': 'c2lnbmVy' });
  });
  afterEach(() => extension.close());

  it('reads each parameter with decryption and the session token, and caches them per cold start', async () => {
    let now = 0;
    const load = createConfigLoader({ ...names, ...extension.env }, undefined, () => now);
    const config = await load();
    expect(config.apiKeys).toEqual(['ssm-key-0123456789abcdefgh']);
    expect(config.signerKey).toBe('c2lnbmVy');
    await load();
    expect(extension.requests.map((r) => r.name).sort()).toEqual(['/auth/dev/api_keys', '/auth/dev/signer']);
    expect(extension.requests.every((r) => r.withDecryption === 'true' && r.token === 'session-token-1')).toBe(true);
    now += 6 * 60 * 1000;
    await load();
    expect(extension.requests).toHaveLength(4);
  });

  it('treats a missing parameter as not configured (the API then fails closed)', async () => {
    const config = await createConfigLoader({ ...extension.env, API_KEYS_PARAMETER: '/auth/dev/none', SIGNER_KEY_PARAMETER: '/auth/dev/neither' })();
    expect(config.apiKeys).toEqual([]);
    expect(config.signerKey).toBeUndefined();
  });

  it('answers a failure with a configuration error naming it, and tries again on the next request', async () => {
    extension.failNext(1);
    const load = createConfigLoader({ ...names, ...extension.env });
    await expect(load()).rejects.toThrow(ConfigError);
    expect((await load()).apiKeys).toEqual(['ssm-key-0123456789abcdefgh']);
    const wrongToken = createConfigLoader({ ...names, ...extension.env, AWS_SESSION_TOKEN: 'another' });
    await expect(wrongToken()).rejects.toThrow('Reading parameter /auth/dev/api_keys through the Parameters and Secrets extension failed: 401');
  });

  it('says the layer is missing when nothing listens on its port', async () => {
    await extension.close();
    const load = createConfigLoader({ ...names, ...extension.env });
    await expect(load()).rejects.toThrow(
      `The Parameters and Secrets extension does not answer on port ${extension.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT} (ECONNREFUSED): is its layer attached?`,
    );
    extension = await startParametersExtension({});
  });
});

describe('the logger', () => {
  it('writes one JSON line per event and redacts secret-named fields', () => {
    const lines: string[] = [];
    const log = createLogger({ route: 'r' }, (l) => lines.push(l)).child({ requestId: 'req-1' });
    log.info('hello', { password: 'hunter2', passwordHash: '$2a$...', linkCode: 'abc', statusCode: 200 });
    const entry = JSON.parse(lines[0]);
    expect(entry).toMatchObject({ level: 'info', message: 'hello', route: 'r', requestId: 'req-1', statusCode: 200 });
    expect(lines[0]).not.toContain('hunter2');
    expect(lines[0]).not.toContain('$2a$');
    expect(entry.linkCode).toBe('[redacted]');
  });
});

describe("knobFrom (tuning knobs: the bulk engine's, shortened by tests)", () => {
  it('reads an integer in range, and falls back on one unset, malformed or out of range', () => {
    expect(knobFrom({ K: '1500' }, 'K', 600_000)).toBe(1500);
    expect(knobFrom({ K: '0' }, 'K', 3)).toBe(0);
    expect(knobFrom({}, 'K', 3)).toBe(3);
    expect(knobFrom({ K: 'soon' }, 'K', 3)).toBe(3);
    expect(knobFrom({ K: '-1' }, 'K', 3)).toBe(3);
    expect(knobFrom({ K: '2.5' }, 'K', 3)).toBe(3);
    expect(knobFrom({ K: '11' }, 'K', 10, 1, 10)).toBe(10);
    expect(knobFrom({ K: '4' }, 'K', 10, 1, 10)).toBe(4);
  });

  it('gives the bulk worker and sweeper their waits through the configuration, not the environment they run in', () => {
    expect(configFromEnv({}, {}).bulkImport).toEqual({ throttledRetryWindowMs: 60_000, staleAfterMs: 600_000 });
    expect(configFromEnv({ BULK_THROTTLED_RETRY_WINDOW_MS: '0', BULK_STALE_AFTER_MS: '1500' }, {}).bulkImport).toEqual({
      throttledRetryWindowMs: 0,
      staleAfterMs: 1500,
    });
    expect(configFromEnv({ BULK_STALE_AFTER_MS: 'soon' }, {}).bulkImport.staleAfterMs).toBe(600_000);
  });
});
