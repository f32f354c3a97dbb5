import { extensionParameterReader, ParameterReadError, type ParameterReader } from './parameters';
import {
  DEFAULT_OWN_HASH_PARAMS,
  DEFAULT_PASSWORD_LIMITS,
  type OwnHashParams,
  PHPASS_MIN_LOG2_COUNT,
  type PasswordLimits,
  SHA_CRYPT_MIN_ROUNDS,
} from '../password/limits';
import { STALE_AFTER_MS, THROTTLED_RETRY_WINDOW_MS } from '../recipes/bulkimport/limits';

/**
 * The service's configuration. In AWS the secrets come from SSM Parameter Store (SecureString),
 * named by the `*_PARAMETER` environment variables the stack sets; locally from the environment.
 * This module (with `./parameters.ts`) is the only one that reads `process.env` or SSM.
 */
export interface Config {
  readonly tableName: string;
  /** Valid API keys; empty when none is configured (every keyed request is then refused). */
  readonly apiKeys: readonly string[];
  /** Base64 vendor (Firebase) scrypt signer key, when configured. */
  readonly signerKey: string | undefined;
  readonly passwordless: {
    readonly codeLifetimeMs: number;
    readonly maxCodeInputAttempts: number;
  };
  readonly emailVerification: {
    /** How long an email verification token works (the core's default: one day). */
    readonly tokenLifetimeMs: number;
  };
  readonly passwordReset: {
    /** How long a password reset token works (the core's default: one hour; at most one day). */
    readonly tokenLifetimeMs: number;
  };
  readonly password: {
    readonly limits: PasswordLimits;
    readonly ownHash: OwnHashParams;
    readonly rehashOnSignin: boolean;
  };
  /** Where the password of a user imported without a hash is checked at its first sign-in (SPEC §16). */
  readonly passwordMigration: PasswordMigrationConfig;
  /** Sessions and their signing keys (SPEC §18), by the core's setting names. */
  readonly sessions: SessionConfig;
  /** The TOTP rate limit (SPEC §20), by the core's settings. */
  readonly totp: {
    /** `TOTP_MAX_ATTEMPTS`: wrong codes in a row before every check answers `LIMIT_REACHED_ERROR`. */
    readonly maxAttempts: number;
    /** `TOTP_RATE_LIMIT_COOLDOWN_SEC`, in ms: how long after the last wrong code the limit holds. */
    readonly rateLimitCooldownMs: number;
  };
  /** WebAuthn (SPEC §21), by the core's setting and the import's guard. */
  readonly webauthn: {
    /** `WEBAUTHN_RECOVER_ACCOUNT_TOKEN_LIFETIME` (ms): how long an account recovery token works. */
    readonly recoverAccountTokenLifetimeMs: number;
    /** `WEBAUTHN_RP_ID`: the relying party ids whose passkeys may be imported (none: imports refused). */
    readonly rpIds: readonly string[];
  };
  /** The bulk-import engine's waits (SPEC §15): tuning knobs, shortened by tests. */
  readonly bulkImport: {
    /** `BULK_THROTTLED_RETRY_WINDOW_MS`: how long into an invocation the worker waits on rows DynamoDB refuses for load. */
    readonly throttledRetryWindowMs: number;
    /** `BULK_STALE_AFTER_MS`: how long a `NEW` or `PROCESSING` row stays unchanged before the sweeper hands it over again. */
    readonly staleAfterMs: number;
  };
}

/**
 * The source's secret (`webApiKey`, `secret`) is `undefined` in a function that does not check
 * passwords: in AWS only the sign-in function may read it (the others only need to know that a
 * source is configured, to accept imports without a hash).
 */
export type PasswordMigrationConfig =
  | { readonly source: 'off' }
  | { readonly source: 'firebase'; readonly webApiKey: string | undefined; readonly authUrl: string; readonly timeoutMs: number }
  | { readonly source: 'webhook'; readonly url: string; readonly secret: string | undefined; readonly timeoutMs: number }
  | CognitoMigrationConfig;

/**
 * SPEC §16b. The app client's secret is optional (`undefined`: a client without one, no
 * `SECRET_HASH`), so a function that was not given it says so in `clientSecretElsewhere`.
 */
export interface CognitoMigrationConfig {
  readonly source: 'cognito';
  readonly userPoolId: string;
  readonly clientId: string;
  readonly region: string;
  /** `https://cognito-idp.<region>.amazonaws.com/`, or locally an emulator's (cognito-local). */
  readonly endpointUrl: string;
  readonly clientSecret: string | undefined;
  /** This function does not hold the secret parameter (in AWS, every function but sign-in). */
  readonly clientSecretElsewhere: boolean;
  readonly timeoutMs: number;
}

/** SPEC §18's three settings, in milliseconds. */
export interface SessionConfig {
  /** `ACCESS_TOKEN_VALIDITY` (seconds; default 3600). */
  readonly accessTokenValidityMs: number;
  /** `REFRESH_TOKEN_VALIDITY` (minutes, decimals allowed; default 144000 = 100 days). */
  readonly refreshTokenValidityMs: number;
  /** `ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL` (hours, decimals allowed; default 168). */
  readonly keyUpdateIntervalMs: number;
}

/** The secrets of the configuration: from SSM in AWS, from the environment locally. */
export interface Secrets {
  readonly apiKeys?: string;
  readonly signerKey?: string;
  /** Firebase's Web API key (`FIREBASE_WEB_API_KEY`), the webhook's secret (`PASSWORD_MIGRATION_WEBHOOK_SECRET`) or Cognito's app client secret (`COGNITO_CLIENT_SECRET`, optional). */
  readonly passwordMigration?: string;
  /** This function does not hold the password migration secret (in AWS, every function but sign-in). */
  readonly passwordMigrationElsewhere?: boolean;
}

/** A configuration value is malformed: an operator error, answered with a generic 500. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** API keys: at least 20 characters of `[A-Za-z0-9=-]` (the SuperTokens core's rule). */
const API_KEY = /^[A-Za-z0-9=-]{20,}$/;

/** Parses a comma-separated API key list; throws a `ConfigError` naming the rule when a key is malformed. */
export function parseApiKeys(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const keys = raw
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  for (const key of keys) {
    if (!API_KEY.test(key)) {
      throw new ConfigError('Every API key must be at least 20 characters of A-Z, a-z, 0-9, "=" and "-"');
    }
  }
  return keys;
}

/**
 * A tuning knob from the environment (the bulk engine's, mostly shortened by tests): `fallback`
 * when unset or not an integer from `min` to `max`. Configuration proper (`intFrom`) refuses a
 * malformed value instead.
 */
export function knobFrom(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const value = Number(env[name] ?? fallback);
  return Number.isSafeInteger(value) && value >= min && value <= max ? value : fallback;
}

function intFrom(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

function boolFrom(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes', 'on'].includes(raw)) return true;
  if (['false', '0', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false`);
}

/** A positive decimal setting (`REFRESH_TOKEN_VALIDITY` in minutes, the key interval in hours), in ms. */
function decimalMsFrom(env: Env, name: string, fallback: number, unitMs: number, maxUnits: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback * unitMs;
  const value = Number(raw);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(raw) || !(value > 0) || value > maxUnits || Math.round(value * unitMs) < 1) {
    throw new ConfigError(`${name} must be a number greater than 0 and at most ${maxUnits}`);
  }
  return Math.round(value * unitMs);
}

/** A domain name as an RP ID is one (lower case): labels of letters, digits and inner hyphens. */
const RP_ID = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** `WEBAUTHN_RP_ID`: comma-separated relying party ids (SPEC §21), trimmed and lower-cased. */
function rpIdsFrom(env: Env): string[] {
  const ids = (env.WEBAUTHN_RP_ID ?? '')
    .split(',')
    .map((id) => id.trim().toLowerCase())
    .filter((id) => id !== '');
  const bad = ids.find((id) => !RP_ID.test(id) || id.length > 253);
  if (bad !== undefined) throw new ConfigError(`WEBAUTHN_RP_ID must be a comma-separated list of domain names; '${bad.slice(0, 64)}' is not one`);
  return ids;
}

/** SPEC §18's settings; the refresh token must outlive the access token (the core's rule). */
export function sessionConfigFromEnv(env: Env): SessionConfig {
  const accessTokenValidityMs = intFrom(env, 'ACCESS_TOKEN_VALIDITY', 3600, 1, 86_400_000) * 1000;
  const refreshTokenValidityMs = decimalMsFrom(env, 'REFRESH_TOKEN_VALIDITY', 144_000, 60_000, 1_440_000_000);
  const keyUpdateIntervalMs = decimalMsFrom(env, 'ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL', 168, 3_600_000, 876_000);
  if (refreshTokenValidityMs <= accessTokenValidityMs) {
    throw new ConfigError('REFRESH_TOKEN_VALIDITY (minutes) × 60 must be greater than ACCESS_TOKEN_VALIDITY (seconds)');
  }
  return { accessTokenValidityMs, refreshTokenValidityMs, keyUpdateIntervalMs };
}

const FIREBASE_AUTH_URL = 'https://identitytoolkit.googleapis.com';

/**
 * A URL the password is sent to: it must parse, and in Lambda (where the base URL of Firebase
 * cannot be overridden, SPEC §16's emulator being local only) it must be https.
 */
function passwordUrl(env: Env, name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`${name} must be a URL`);
  }
  const inLambda = env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
  if (url.protocol !== 'https:' && (inLambda || url.protocol !== 'http:')) throw new ConfigError(`${name} must be an https URL`);
  return url.toString().replace(/\/+$/, '');
}

/** `PASSWORD_MIGRATION_SOURCE` as given, trimmed and lower-cased; `off` when unset (not checked: see below). */
export function passwordMigrationSourceOf(env: Env): string {
  return env.PASSWORD_MIGRATION_SOURCE?.trim().toLowerCase() || 'off';
}

/** `PASSWORD_MIGRATION_SOURCE` and what the source needs; a missing piece is a `ConfigError` naming it. */
export function passwordMigrationFromEnv(env: Env, secret: string | undefined, secretElsewhere = false): PasswordMigrationConfig {
  const source = passwordMigrationSourceOf(env);
  const timeoutMs = intFrom(env, 'PASSWORD_MIGRATION_TIMEOUT_MS', 5000, 100, 10_000);
  const key = secret?.trim() || undefined;
  const need = (name: string, value = env[name]?.trim()): string => {
    if (!value) throw new ConfigError(`PASSWORD_MIGRATION_SOURCE=${source} needs ${name}`);
    return value;
  };
  if (source === 'off') return { source: 'off' };
  if (source === 'firebase') {
    if (!secretElsewhere) need('FIREBASE_WEB_API_KEY', key);
    return { source, webApiKey: key, authUrl: emulatorUrl(env, 'FIREBASE_AUTH_URL', FIREBASE_AUTH_URL), timeoutMs };
  }
  if (source === 'webhook') {
    const url = passwordUrl(env, 'PASSWORD_MIGRATION_WEBHOOK_URL', need('PASSWORD_MIGRATION_WEBHOOK_URL'));
    if (!secretElsewhere) need('PASSWORD_MIGRATION_WEBHOOK_SECRET', key);
    return { source, url, secret: key, timeoutMs };
  }
  if (source !== 'cognito') throw new ConfigError('PASSWORD_MIGRATION_SOURCE must be off, firebase, webhook or cognito');
  // SPEC §16b. A real pool's id starts with its region; cognito-local's (`local_…`) with none, so
  // beside an emulator's COGNITO_ENDPOINT_URL (local only) any region will do, the default
  // included: the call is unsigned, and the region only names the official endpoint.
  const userPoolId = need('COGNITO_USER_POOL_ID');
  const clientId = need('COGNITO_CLIENT_ID');
  const prefix = /^([a-z0-9-]+)_[0-9A-Za-z]+$/.exec(userPoolId)?.[1];
  if (!prefix) throw new ConfigError('COGNITO_USER_POOL_ID must be <region>_<id>');
  const region = env.COGNITO_REGION?.trim() || prefix;
  const official = `https://cognito-idp.${region}.amazonaws.com/`;
  const endpointUrl = emulatorUrl(env, 'COGNITO_ENDPOINT_URL', official);
  if (endpointUrl === official && (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region) || region !== prefix)) {
    throw new ConfigError("COGNITO_REGION (default: COGNITO_USER_POOL_ID's prefix) must be the pool's AWS region");
  }
  return { source, userPoolId, clientId, region, endpointUrl, clientSecret: key, clientSecretElsewhere: secretElsewhere, timeoutMs };
}

/** A URL only an emulator replaces: another value than `official` is a `ConfigError` in Lambda. */
function emulatorUrl(env: Env, name: string, official: string): string {
  const override = env[name]?.trim();
  if (!override || override.replace(/\/+$/, '') === official.replace(/\/+$/, '')) return official;
  if (env.AWS_LAMBDA_FUNCTION_NAME !== undefined) throw new ConfigError(`${name} can be overridden only locally (for an emulator)`);
  return passwordUrl(env, name, override);
}

/** The secret of the configured password migration source, from the environment (locally). */
function passwordMigrationSecretFromEnv(env: Env): string | undefined {
  const source = env.PASSWORD_MIGRATION_SOURCE?.trim().toLowerCase();
  if (source === 'cognito') return env.COGNITO_CLIENT_SECRET;
  return source === 'firebase' ? env.FIREBASE_WEB_API_KEY : source === 'webhook' ? env.PASSWORD_MIGRATION_WEBHOOK_SECRET : undefined;
}

/** The secrets as the environment holds them (locally, where no SSM parameter is named). */
function secretsFromEnv(env: Env): Secrets {
  return { apiKeys: env.API_KEYS, signerKey: env.VENDOR_PASSWORD_HASHING_SIGNER_KEY, passwordMigration: passwordMigrationSecretFromEnv(env) };
}

/**
 * Every setting, checked once when the service starts (SPEC §16b), by building the configuration
 * as a function does: throws the `ConfigError` of the first bad one. `local` (`npm start`): the
 * secrets are in the environment too. `lambda` (`cdk synth`): what a function's environment holds,
 * read as in Lambda (https URLs only, no emulator); its secrets are in SSM, read at run time.
 */
export function checkSettings(env: Env, where: 'local' | 'lambda'): void {
  if (where === 'local') configFromEnv(env, secretsFromEnv(env));
  else configFromEnv({ ...env, AWS_LAMBDA_FUNCTION_NAME: env.AWS_LAMBDA_FUNCTION_NAME ?? 'synth' }, { passwordMigrationElsewhere: true });
}

/** The non-secret part of the configuration, from environment variables. */
export function configFromEnv(env: Env, secrets: Secrets): Config {
  const l = DEFAULT_PASSWORD_LIMITS;
  const signerKey = secrets.signerKey?.trim();
  const limits: PasswordLimits = {
    bcryptMinCost: intFrom(env, 'BCRYPT_MIN_COST', l.bcryptMinCost, 4, 31),
    bcryptMaxCost: intFrom(env, 'BCRYPT_MAX_COST', l.bcryptMaxCost, 4, 31),
    argon2MaxMemoryKiB: intFrom(env, 'ARGON2_MAX_MEMORY_KIB', l.argon2MaxMemoryKiB, 8, 4 * 1024 * 1024),
    argon2MaxIterations: intFrom(env, 'ARGON2_MAX_ITERATIONS', l.argon2MaxIterations, 1, 1000),
    argon2MaxParallelism: intFrom(env, 'ARGON2_MAX_PARALLELISM', l.argon2MaxParallelism, 1, 255),
    scryptMaxMemCost: intFrom(env, 'SCRYPT_MAX_MEM_COST', l.scryptMaxMemCost, 1, 24),
    scryptMaxRounds: intFrom(env, 'SCRYPT_MAX_ROUNDS', l.scryptMaxRounds, 1, 64),
    // SPEC §7b's families, up to each format's own ceiling: glibc's rounds, phpass's count,
    // ASP.NET's uint32 iterations, scrypt's r·p < 2^30; sizing keeps the memory within Lambda's.
    pbkdf2MaxIterations: intFrom(env, 'PBKDF2_MAX_ITERATIONS', l.pbkdf2MaxIterations, 1, 0xffffffff),
    shaCryptMaxRounds: intFrom(env, 'SHA_CRYPT_MAX_ROUNDS', l.shaCryptMaxRounds, SHA_CRYPT_MIN_ROUNDS, 999_999_999),
    phpassMaxLog2Count: intFrom(env, 'PHPASS_MAX_LOG2_COUNT', l.phpassMaxLog2Count, PHPASS_MIN_LOG2_COUNT, 30),
    scryptMaxN: intFrom(env, 'SCRYPT_MAX_N', l.scryptMaxN, 2, 2 ** 40),
    scryptMaxR: intFrom(env, 'SCRYPT_MAX_R', l.scryptMaxR, 1, 2 ** 30 - 1),
    scryptMaxP: intFrom(env, 'SCRYPT_MAX_P', l.scryptMaxP, 1, 2 ** 30 - 1),
    scryptMaxMemoryBytes: intFrom(env, 'SCRYPT_MAX_MEMORY_BYTES', l.scryptMaxMemoryBytes, 1024, 10240 * 1024 * 1024),
    scryptMaxWork: intFrom(env, 'SCRYPT_MAX_WORK', l.scryptMaxWork, 1, 2 ** 40),
  };
  if (limits.bcryptMinCost > limits.bcryptMaxCost) throw new ConfigError('BCRYPT_MIN_COST must be at most BCRYPT_MAX_COST');
  return {
    tableName: env.TABLE_NAME?.trim() || 'auth-core',
    apiKeys: parseApiKeys(secrets.apiKeys),
    signerKey: signerKey ? signerKey : undefined,
    passwordless: {
      codeLifetimeMs: intFrom(env, 'PASSWORDLESS_CODE_LIFETIME', 900_000, 1, 31 * 24 * 3600 * 1000),
      maxCodeInputAttempts: intFrom(env, 'PASSWORDLESS_MAX_CODE_INPUT_ATTEMPTS', 5, 1, 1000),
    },
    emailVerification: {
      tokenLifetimeMs: intFrom(env, 'EMAIL_VERIFICATION_TOKEN_LIFETIME', 86_400_000, 1, 31 * 24 * 3600 * 1000),
    },
    passwordReset: {
      tokenLifetimeMs: intFrom(env, 'PASSWORD_RESET_TOKEN_LIFETIME', 3_600_000, 1, 86_400_000),
    },
    password: {
      limits,
      ownHash: {
        memoryKiB: intFrom(env, 'ARGON2_MEMORY_KIB', DEFAULT_OWN_HASH_PARAMS.memoryKiB, 8, 1024 * 1024),
        iterations: intFrom(env, 'ARGON2_ITERATIONS', DEFAULT_OWN_HASH_PARAMS.iterations, 1, 100),
        parallelism: intFrom(env, 'ARGON2_PARALLELISM', DEFAULT_OWN_HASH_PARAMS.parallelism, 1, 16),
      },
      rehashOnSignin: boolFrom(env, 'PASSWORD_REHASH_ON_SIGNIN', true),
    },
    passwordMigration: passwordMigrationFromEnv(env, secrets.passwordMigration, secrets.passwordMigrationElsewhere),
    sessions: sessionConfigFromEnv(env),
    totp: {
      // At most 1,000: a user's attempts item keeps the last N checks (about 65 KB at 1,000).
      maxAttempts: intFrom(env, 'TOTP_MAX_ATTEMPTS', 5, 1, 1000),
      rateLimitCooldownMs: intFrom(env, 'TOTP_RATE_LIMIT_COOLDOWN_SEC', 900, 1, 31 * 24 * 3600) * 1000,
    },
    webauthn: {
      recoverAccountTokenLifetimeMs: intFrom(env, 'WEBAUTHN_RECOVER_ACCOUNT_TOKEN_LIFETIME', 3_600_000, 1, 365 * 24 * 3600 * 1000),
      rpIds: rpIdsFrom(env),
    },
    bulkImport: {
      throttledRetryWindowMs: knobFrom(env, 'BULK_THROTTLED_RETRY_WINDOW_MS', THROTTLED_RETRY_WINDOW_MS),
      staleAfterMs: knobFrom(env, 'BULK_STALE_AFTER_MS', STALE_AFTER_MS),
    },
  };
}

/**
 * Secrets are re-read after this long, so a rotated API key reaches warm functions without a
 * redeploy while each cold start still costs only one SSM call.
 */
const SECRET_CACHE_MS = 5 * 60 * 1000;

export type ConfigLoader = () => Promise<Config>;

/**
 * Reads SSM parameters for the configuration: a parameter that cannot be read (a missing grant or
 * layer) is a `ConfigError`, logged with its message, unlike an unexpected error.
 */
export async function readParametersAsConfig(readParameters: ParameterReader, names: readonly string[]): Promise<Record<string, string>> {
  if (names.length === 0) return {};
  try {
    return await readParameters(names);
  } catch (err) {
    if (err instanceof ParameterReadError) throw new ConfigError(err.message);
    throw err;
  }
}

/**
 * Runs `load` once, then again when its value is `SECRET_CACHE_MS` old; concurrent callers share
 * one load, and a failed load is not kept (the next call tries again).
 */
export function refreshingLoader<T>(load: () => Promise<T>, now: () => number = Date.now): () => Promise<T> {
  let cached: { value: T; at: number } | undefined;
  let pending: Promise<T> | undefined;
  return async () => {
    if (cached && now() - cached.at < SECRET_CACHE_MS) return cached.value;
    pending ??= load().then(
      (value) => {
        cached = { value, at: now() };
        pending = undefined;
        return value;
      },
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };
}

/**
 * Creates a loader that builds the configuration once per cold start (secrets cached for
 * `SECRET_CACHE_MS`). In AWS the secrets are SSM parameters read through the Parameters and
 * Secrets extension (`./parameters.ts`); `readParameters` is injectable for tests.
 */
export function createConfigLoader(
  env: Env = process.env,
  readParameters: ParameterReader = extensionParameterReader(env),
  now: () => number = Date.now,
): ConfigLoader {
  return refreshingLoader(async () => {
    const names = { apiKeys: env.API_KEYS_PARAMETER, signerKey: env.SIGNER_KEY_PARAMETER, passwordMigration: env.PASSWORD_MIGRATION_SECRET_PARAMETER };
    const fromSsm = await readParametersAsConfig(
      readParameters,
      Object.values(names).filter((n): n is string => !!n),
    );
    const local = secretsFromEnv(env);
    return configFromEnv(env, {
      apiKeys: names.apiKeys ? fromSsm[names.apiKeys] : local.apiKeys,
      signerKey: names.signerKey ? fromSsm[names.signerKey] : local.signerKey,
      passwordMigration: names.passwordMigration ? fromSsm[names.passwordMigration] : local.passwordMigration,
      // In Lambda a function reads the secret only when the stack named its parameter (sign-in).
      passwordMigrationElsewhere: !names.passwordMigration && env.AWS_LAMBDA_FUNCTION_NAME !== undefined,
    });
  }, now);
}
