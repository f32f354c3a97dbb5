/**
 * Deployment settings: the names every resource derives from the stage, and how the CDK context
 * (`-c stage=prod`, `cdk.json`) turns into the stack's props. Pure functions, no CDK imports, so
 * the tests and the app read the context the same way.
 */
import { checkSettings, ConfigError } from '../lib/config/config';
import { sessionExchangeFromEnv } from '../lib/config/session-exchange-issuers';
import type { RouteDef } from './routes';

/** Prefix of every resource name and of the SSM parameter paths. */
export const APP_NAME = 'auth-core';

/**
 * A stage name becomes part of resource names (table, functions, log groups, API) and of SSM
 * paths: lower-case, starts with a letter, short enough that `auth-core-<stage>-<route id>` stays
 * within Lambda's 64-character function name limit.
 */
export const STAGE_NAME = /^[a-z][a-z0-9-]{0,20}$/;

/** Stages treated as production unless the `productionStages` context says otherwise. */
export const DEFAULT_PRODUCTION_STAGES: readonly string[] = ['prod'];

export type LambdaArch = 'x86_64' | 'arm64';

/** Requests per second (steady) and burst of the API stage. */
export interface Throttling {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * Stage throttling defaults. Far below the account's 10,000 rps so that a runaway client of one
 * stage cannot starve the others, or run up the DynamoDB on-demand bill unbounded.
 */
export const DEFAULT_THROTTLING: Readonly<Record<'production' | 'other', Throttling>> = {
  production: { rateLimit: 2000, burstLimit: 4000 },
  other: { rateLimit: 500, burstLimit: 1000 },
};

/**
 * Configuration variables an operator may set for every function through the
 * `functionEnvironment` context (see `lib/config/config.ts`). Anything else is refused, so that
 * secrets (API keys, signer key) can never end up as plain-text Lambda environment variables:
 * they live in SSM SecureString parameters only.
 */
export const ALLOWED_FUNCTION_ENV: readonly string[] = [
  'PASSWORDLESS_CODE_LIFETIME',
  'PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS',
  'EMAIL_VERIFICATION_TOKEN_LIFETIME',
  'PASSWORD_RESET_TOKEN_LIFETIME',
  'PASSWORD_REHASH_ON_SIGNIN',
  'BCRYPT_MIN_COST',
  'BCRYPT_MAX_COST',
  'ARGON2_MAX_MEMORY_KIB',
  'ARGON2_MAX_ITERATIONS',
  'ARGON2_MAX_PARALLELISM',
  'SCRYPT_MAX_MEM_COST',
  'SCRYPT_MAX_ROUNDS',
  // SPEC §7b's families.
  'PBKDF2_MAX_ITERATIONS',
  'SHA_CRYPT_MAX_ROUNDS',
  'PHPASS_MAX_LOG2_COUNT',
  'SCRYPT_MAX_N',
  'SCRYPT_MAX_R',
  'SCRYPT_MAX_P',
  'SCRYPT_MAX_MEMORY_BYTES',
  'SCRYPT_MAX_WORK',
  'ARGON2_MEMORY_KIB',
  'ARGON2_ITERATIONS',
  'ARGON2_PARALLELISM',
  // Password migration at sign-in (SPEC §16); its secret is an SSM parameter (`parameterNames`).
  'PASSWORD_MIGRATION_SOURCE',
  'PASSWORD_MIGRATION_WEBHOOK_URL',
  'PASSWORD_MIGRATION_TIMEOUT_MS',
  // Cognito as the source (SPEC §16b); its app client secret, if any, is the same SSM parameter.
  'COGNITO_USER_POOL_ID',
  'COGNITO_CLIENT_ID',
  'COGNITO_REGION',
  // Sessions (SPEC §18), by the core's names.
  'ACCESS_TOKEN_VALIDITY',
  'REFRESH_TOKEN_VALIDITY',
  'ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL',
  // The TOTP rate limit (SPEC §20), by the core's names.
  'TOTP_MAX_ATTEMPTS',
  'TOTP_RATE_LIMIT_COOLDOWN_SEC',
  // WebAuthn (SPEC §21): the core's recovery token lifetime, and the RP ids passkey import accepts.
  'WEBAUTHN_RECOVER_ACCOUNT_TOKEN_LIFETIME',
  'WEBAUTHN_RP_ID',
];

/** Everything the stack needs to know about the stage it deploys. */
export interface StageSettings {
  readonly stage: string;
  /** Production stages keep their table and logs on stack deletion and protect the table. */
  readonly isProduction: boolean;
  readonly architecture: LambdaArch;
  readonly throttling: Throttling;
  /** Extra configuration variables for every function (keys from `ALLOWED_FUNCTION_ENV`). */
  readonly functionEnvironment: Readonly<Record<string, string>>;
  /** SNS topic the alarms notify, when given. */
  readonly alarmTopicArn?: string;
  /**
   * The table's warm throughput (write units per second) before a bulk migration: a new on-demand
   * table takes 4,000 at once, 10 million users in an hour need about 70,000 (bench/SCALE.md).
   * Unset: DynamoDB's default. Above the account's per-table quota (40,000) it needs a quota raise.
   */
  readonly warmWriteUnitsPerSecond?: number;
  /**
   * Provisioned capacity for a migration window instead of on-demand (bench/SCALE.md: 10 million
   * users for about a third of the on-demand price, when the import uses the capacity fully, which
   * the worker can: a row refused for capacity waits, it is never failed). Table units; each GSI
   * gets its `GSI_PROVISIONED_SHARE` of both. Unset: on-demand. Deploy without it after the window.
   */
  readonly provisionedCapacity?: ProvisionedCapacity;
  /**
   * The session exchange's issuers (SPEC §19) from the `sessionExchangeIssuers` context, checked
   * and written as compact JSON: the exchange function's `SESSION_EXCHANGE_ISSUERS`.
   */
  readonly sessionExchangeIssuers?: string;
  /**
   * `[]` with the `routes=none` context: the stage without its routes (no route function, no API
   * route; the API answers 404), the first of the two deploys that move a stage deployed as one
   * stack to the nested stacks of the route families (docs/DEPLOY.md). Unset: the route table.
   */
  readonly routes?: readonly RouteDef[];
}

/** A table's provisioned read and write capacity units. */
export interface ProvisionedCapacity {
  readonly writeUnits: number;
  readonly readUnits: number;
}

/** A context value is malformed: synth stops with a message naming the key. */
export class SettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettingsError';
  }
}

/** `auth-core-<stage>-<suffix>`, or `auth-core-<stage>` without a suffix. */
export function resourceName(stage: string, suffix?: string): string {
  return suffix === undefined ? `${APP_NAME}-${stage}` : `${APP_NAME}-${stage}-${suffix}`;
}

/**
 * The one log group of a stage's functions (`functionLogGroup` in `infra/constructs/route-function.ts`);
 * each function's streams carry its name (`auth-core-<stage>-<route id>`).
 */
export function functionLogGroupName(stage: string): string {
  return `/aws/lambda/${resourceName(stage)}`;
}

/** The CloudFormation stack name of a stage. */
export function stackName(stage: string): string {
  return `AuthCore-${stage}`;
}

/** The SSM parameter names (SecureString, created by the operator) a stage reads its secrets from. */
export function parameterNames(stage: string): { apiKeys: string; signerKey: string; passwordMigration: string; sessionExchange: string } {
  return {
    apiKeys: `/${APP_NAME}/${stage}/api_keys`,
    signerKey: `/${APP_NAME}/${stage}/vendor_password_hashing_signer_key`,
    /** Firebase's Web API key or the webhook's signing secret (SPEC §16), read by sign-in only. */
    passwordMigration: `/${APP_NAME}/${stage}/password_migration_secret`,
    /**
     * Optional: more issuers of the session exchange (SPEC §19), a JSON array like the
     * `sessionExchangeIssuers` context; where an issuer with an inline `secret` belongs.
     */
    sessionExchange: `/${APP_NAME}/${stage}/session_exchange_issuers`,
  };
}

/** Reads one context value; `undefined` when unset. */
export type ContextReader = (key: string) => unknown;

function str(read: ContextReader, key: string): string | undefined {
  const v = read(key);
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new SettingsError(`Context "${key}" must be a string`);
  return v.trim();
}

function list(read: ContextReader, key: string): string[] | undefined {
  const v = read(key);
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.map((x) => x.trim());
  if (typeof v === 'string')
    return v
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  throw new SettingsError(`Context "${key}" must be a list of strings or a comma-separated string`);
}

function positiveInt(read: ContextReader, key: string, fallback: number): number {
  const v = read(key);
  if (v === undefined || v === null || v === '') return fallback;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new SettingsError(`Context "${key}" must be a positive integer`);
  return n;
}

function functionEnvironment(read: ContextReader): Record<string, string> {
  const v = read('functionEnvironment');
  if (v === undefined || v === null) return {};
  const raw: unknown = typeof v === 'string' ? JSON.parse(v) : v;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SettingsError('Context "functionEnvironment" must be an object of configuration variables');
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (!ALLOWED_FUNCTION_ENV.includes(name)) {
      throw new SettingsError(`Context "functionEnvironment" may not set ${name}: allowed are ${ALLOWED_FUNCTION_ENV.join(', ')} (secrets belong in SSM)`);
    }
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new SettingsError(`Context "functionEnvironment.${name}" must be a string, number or boolean`);
    }
    env[name] = String(value);
  }
  // Every setting checked as a Lambda reads it (https only, no emulator URL), the secrets being in SSM.
  try {
    checkSettings(env, 'lambda');
  } catch (err) {
    if (err instanceof ConfigError) throw new SettingsError(`Context "functionEnvironment": ${err.message}`);
    throw err;
  }
  return env;
}

/**
 * Turns the CDK context into stage settings. Keys: `stage` (default `dev`), `productionStages`,
 * `arch` (`x86_64` | `arm64`), `throttleRateLimit`, `throttleBurstLimit`, `functionEnvironment`,
 * `alarmTopicArn`, `warmWriteUnitsPerSecond`, `provisionedWriteUnits` with `provisionedReadUnits`,
 * `sessionExchangeIssuers`, `routes` (`none` only). Throws a `SettingsError` naming the key when a
 * value is malformed.
 */
export function settingsFromContext(read: ContextReader): StageSettings {
  const stage = str(read, 'stage') ?? 'dev';
  if (!STAGE_NAME.test(stage)) {
    throw new SettingsError(`Context "stage" must match ${STAGE_NAME.source} (lower-case letter first, then up to 20 of a-z, 0-9, "-"), got "${stage}"`);
  }
  const productionStages = list(read, 'productionStages') ?? DEFAULT_PRODUCTION_STAGES;
  const isProduction = productionStages.includes(stage);
  const arch = str(read, 'arch') ?? 'x86_64';
  if (arch !== 'x86_64' && arch !== 'arm64') {
    throw new SettingsError(`Context "arch" must be x86_64 or arm64, got "${arch}"`);
  }
  const defaults = DEFAULT_THROTTLING[isProduction ? 'production' : 'other'];
  const throttling = {
    rateLimit: positiveInt(read, 'throttleRateLimit', defaults.rateLimit),
    burstLimit: positiveInt(read, 'throttleBurstLimit', defaults.burstLimit),
  };
  const alarmTopicArn = str(read, 'alarmTopicArn');
  if (alarmTopicArn !== undefined && !/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/.test(alarmTopicArn)) {
    throw new SettingsError(`Context "alarmTopicArn" must be an SNS topic ARN, got "${alarmTopicArn}"`);
  }
  const warm = read('warmWriteUnitsPerSecond') === undefined ? undefined : positiveInt(read, 'warmWriteUnitsPerSecond', 0);
  const provisionedCapacity = provisioned(read);
  if (provisionedCapacity && warm !== undefined) {
    throw new SettingsError(
      'Context "warmWriteUnitsPerSecond" is for an on-demand table: with "provisionedWriteUnits" the provisioned capacity is the warm throughput, leave it out',
    );
  }
  const exchangeIssuers = sessionExchangeIssuers(read, stage);
  const routes = str(read, 'routes');
  if (routes !== undefined && routes !== 'none') {
    throw new SettingsError(`Context "routes" may only be "none" (the stage without its routes, docs/DEPLOY.md), got "${routes}"`);
  }
  return {
    stage,
    isProduction,
    architecture: arch,
    throttling,
    functionEnvironment: functionEnvironment(read),
    ...(alarmTopicArn !== undefined ? { alarmTopicArn } : {}),
    ...(warm !== undefined ? { warmWriteUnitsPerSecond: warm } : {}),
    ...(provisionedCapacity ? { provisionedCapacity } : {}),
    ...(exchangeIssuers !== undefined ? { sessionExchangeIssuers: exchangeIssuers } : {}),
    ...(routes === 'none' ? { routes: [] } : {}),
  };
}

/**
 * Lambda's environment holds at most 4 KB in all; the issuers' JSON may take this much of it (an
 * inline JWKS of a few RSA keys fits). Longer lists belong in the SSM parameter.
 */
export const MAX_EXCHANGE_ISSUERS_BYTES = 3072;

/**
 * `sessionExchangeIssuers`: a JSON array (or its text) checked as the exchange function will read
 * it in Lambda (https key URLs, no emulator preset). An inline `secret` is refused: a Lambda
 * environment variable is no place for one, the stage's SSM parameter is.
 */
function sessionExchangeIssuers(read: ContextReader, stage: string): string | undefined {
  const v = read('sessionExchangeIssuers');
  if (v === undefined || v === null || v === '') return undefined;
  let list: unknown;
  try {
    list = typeof v === 'string' ? JSON.parse(v) : v;
  } catch {
    throw new SettingsError('Context "sessionExchangeIssuers" must be a JSON array of issuers (SPEC §19)');
  }
  const json = JSON.stringify(list);
  try {
    sessionExchangeFromEnv({ SESSION_EXCHANGE_ISSUERS: json, AWS_LAMBDA_FUNCTION_NAME: 'synth' });
  } catch (err) {
    if (err instanceof ConfigError) throw new SettingsError(`Context "sessionExchangeIssuers": ${err.message.replace(/^SESSION_EXCHANGE_ISSUERS: /, '')}`);
    throw err;
  }
  const withSecret = (list as Record<string, unknown>[]).find((issuer) => issuer.secret !== undefined);
  if (withSecret) {
    throw new SettingsError(
      `Context "sessionExchangeIssuers": issuer ${String(withSecret.id)}: a secret may not be in the context, put this issuer in the SSM parameter ${parameterNames(stage).sessionExchange}`,
    );
  }
  if (Buffer.byteLength(json) > MAX_EXCHANGE_ISSUERS_BYTES) {
    throw new SettingsError(
      `Context "sessionExchangeIssuers" is ${Buffer.byteLength(json)} bytes as JSON, over the ${MAX_EXCHANGE_ISSUERS_BYTES} a Lambda environment leaves it: put the issuers in the SSM parameter ${parameterNames(stage).sessionExchange}`,
    );
  }
  return json;
}

/** `provisionedWriteUnits` and `provisionedReadUnits`: both or neither. */
function provisioned(read: ContextReader): ProvisionedCapacity | undefined {
  const given = (key: string) => ![undefined, null, ''].includes(read(key) as string | null | undefined);
  const [hasWrite, hasRead] = [given('provisionedWriteUnits'), given('provisionedReadUnits')];
  if (!hasWrite && !hasRead) return undefined;
  if (!hasWrite || !hasRead) {
    const [missing, present] = hasWrite ? ['provisionedReadUnits', 'provisionedWriteUnits'] : ['provisionedWriteUnits', 'provisionedReadUnits'];
    throw new SettingsError(
      `Context "${missing}" must be given with "${present}": a provisioned table needs both (the reads of sign-ins and listings during the window too)`,
    );
  }
  return { writeUnits: positiveInt(read, 'provisionedWriteUnits', 0), readUnits: positiveInt(read, 'provisionedReadUnits', 0) };
}
