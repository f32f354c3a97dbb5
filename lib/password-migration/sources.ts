import { createHmac } from 'node:crypto';
import { ConfigError, type PasswordMigrationConfig } from '../config/config';
import { sideEffectsAllowed } from '../side-effect-gate';

/**
 * The previous provider, asked once whether a password is right (SPEC §16): a user imported
 * without a hash signs in, and the service checks the password where the hash still is. Two
 * sources: Firebase (`accounts:signInWithPassword` with the project's Web API key) and a signed
 * webhook for everything else. Each answer is one of three verdicts, and the difference between
 * the last two is the point: a mismatch is a wrong password, an outage is not (it must never look
 * like one, nor change the user).
 *
 * The password goes only to the configured URL (never one from a request), no redirect is
 * followed, at most 64 KiB of an answer is read, and nothing here logs: callers log the verdict.
 */

export type Verdict =
  | { readonly kind: 'match' }
  /** A definite no from the source; `code` is the source's own word for it (for the log). */
  | { readonly kind: 'mismatch'; readonly code: string }
  /** The source could not say: timeout, connection refused, 5xx, throttling, an answer it never gives. */
  | { readonly kind: 'unavailable'; readonly reason: string };

export interface PasswordCheck {
  readonly email: string;
  readonly password: string;
  readonly tenantId: string;
  /** The user's id as the app sees it (the external id when mapped). */
  readonly userId: string;
}

/** A configured source's name (also the `Source` dimension of its metrics). */
export type PasswordMigrationSourceName = Exclude<PasswordMigrationConfig['source'], 'off'>;

export interface PasswordMigrationSource {
  readonly kind: PasswordMigrationSourceName;
  check(input: PasswordCheck): Promise<Verdict>;
}

export interface SourceOptions {
  /** Per attempt (SPEC §16: 5 s). */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 5000;
const MAX_ANSWER_BYTES = 64 * 1024;

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** Connection-level failures worth one retry: the request never reached the source. */
const CONNECT_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

/**
 * POSTs JSON and reads at most 64 KiB of the answer as JSON (undefined when it is not JSON).
 * Retries once when the connection failed before the request was sent; a timeout is not retried
 * (the source may have seen the request, and the caller waits long enough already).
 */
async function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<Answer | { failed: string }> {
  // Not for a request that may change nothing (a tenant that does not exist): its gate's error.
  await sideEffectsAllowed();
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await readCapped(res, MAX_ANSWER_BYTES);
      if (text === undefined) return { failed: `answer larger than ${MAX_ANSWER_BYTES} bytes` };
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, body: parsed };
    } catch (err) {
      const code = (err as { cause?: { code?: string } }).cause?.code;
      if (attempt === 0 && code !== undefined && CONNECT_ERRORS.has(code)) continue;
      const name = (err as Error).name;
      return { failed: name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `request failed (${code ?? name})` };
    }
  }
}

async function readCapped(res: Response, max: number): Promise<string | undefined> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > max) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Firebase's own words for "no" (SPEC §16); any other error is an outage. */
const FIREBASE_MISMATCH = new Set(['INVALID_PASSWORD', 'EMAIL_NOT_FOUND', 'INVALID_LOGIN_CREDENTIALS', 'USER_DISABLED', 'INVALID_EMAIL', 'MISSING_PASSWORD']);

export interface FirebaseSourceConfig extends SourceOptions {
  /** The project's Web API key (a secret here: it is what lets anyone try passwords). */
  readonly webApiKey: string;
  /** Default `https://identitytoolkit.googleapis.com`; the emulator's is `http://127.0.0.1:9099/identitytoolkit.googleapis.com`. */
  readonly authUrl?: string;
}

export function firebaseSource(cfg: FirebaseSourceConfig): PasswordMigrationSource {
  const base = (cfg.authUrl ?? 'https://identitytoolkit.googleapis.com').replace(/\/+$/, '');
  const url = `${base}/v1/accounts:signInWithPassword?key=${encodeURIComponent(cfg.webApiKey)}`;
  return {
    kind: 'firebase',
    async check({ email, password }) {
      const answer = await post(url, JSON.stringify({ email, password, returnSecureToken: false }), {}, cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      if ('failed' in answer) return { kind: 'unavailable', reason: answer.failed };
      const body = answer.body as { localId?: unknown; mfaPendingCredential?: unknown; error?: { message?: unknown } } | undefined;
      // A right password: 200 with the user's id, or, for a user with a second factor, a pending credential.
      if (answer.status === 200 && (typeof body?.localId === 'string' || typeof body?.mfaPendingCredential === 'string')) return { kind: 'match' };
      // Errors read "CODE" or "CODE : explanation".
      const message = typeof body?.error?.message === 'string' ? body.error.message : '';
      const code = message.split(' : ')[0].trim();
      if (answer.status === 400 && FIREBASE_MISMATCH.has(code)) return { kind: 'mismatch', code };
      return { kind: 'unavailable', reason: `Firebase answered ${answer.status}${code ? ` ${code.slice(0, 80)}` : ''}` };
    },
  };
}

export interface WebhookSourceConfig extends SourceOptions {
  readonly url: string;
  /** Shared secret: the body's HMAC-SHA256 goes in `x-signature` so the webhook knows it is us. */
  readonly secret: string;
}

/** `x-signature` of a body: `sha256=<hex HMAC-SHA256 of the raw body with the secret>`. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export function webhookSource(cfg: WebhookSourceConfig): PasswordMigrationSource {
  return {
    kind: 'webhook',
    async check({ email, password, tenantId, userId }) {
      const body = JSON.stringify({ email, password, tenantId, userId });
      const answer = await post(cfg.url, body, { 'x-signature': webhookSignature(cfg.secret, body) }, cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      if ('failed' in answer) return { kind: 'unavailable', reason: answer.failed };
      const status = (answer.body as { status?: unknown } | undefined)?.status;
      if (answer.status === 200 && status === 'password_match') return { kind: 'match' };
      if (answer.status === 200 && status === 'password_mismatch') return { kind: 'mismatch', code: 'password_mismatch' };
      if (answer.status === 403) return { kind: 'mismatch', code: 'forbidden' };
      return { kind: 'unavailable', reason: `the webhook answered ${answer.status}${answer.status === 200 ? ' without a known status' : ''}` };
    },
  };
}

/** Cognito's `__type`s for "no" (SPEC §16b); cognito-local answers a wrong password `InvalidPasswordException`. */
const COGNITO_MISMATCH = new Set([
  'NotAuthorizedException',
  'UserNotFoundException',
  'InvalidPasswordException',
  'PasswordResetRequiredException',
  'UserNotConfirmedException',
]);
/** `__type`s that say the pool or the app client is set up wrong: outages, logged as such. */
const COGNITO_CONFIG_ERRORS = new Set(['InvalidParameterException', 'ResourceNotFoundException', 'InvalidUserPoolConfigurationException']);
/** The one `NotAuthorizedException` that is no answer about the password: the user is locked out for a while. */
const PASSWORD_ATTEMPTS_EXCEEDED = 'Password attempts exceeded';
/**
 * Unlike SPEC §16b's letter: a `NotAuthorizedException` about the client secret (`Unable to verify
 * secret hash for client …`, `Client … is configured for secret but secret was not received`) says
 * nothing about the password. As a mismatch it would refuse every waiting user's right password
 * and raise no alarm; as the configuration error it is, it is an outage (503, logged, alarmed).
 */
const ABOUT_THE_SECRET = /\bsecret\b/i;

export interface CognitoSourceConfig extends SourceOptions {
  readonly clientId: string;
  /** The app client's secret, when it has one: then every call carries `SECRET_HASH`. */
  readonly clientSecret?: string;
  /** `https://cognito-idp.<region>.amazonaws.com/`, or an emulator's. */
  readonly endpointUrl: string;
}

/** Cognito's `SECRET_HASH`: base64 HMAC-SHA256 of username + client id, keyed by the client secret. */
export function cognitoSecretHash(clientSecret: string, username: string, clientId: string): string {
  return createHmac('sha256', clientSecret)
    .update(username + clientId, 'utf8')
    .digest('base64');
}

/**
 * Cognito's own `InitiateAuth` with `USER_PASSWORD_AUTH` (SPEC §16b), an unsigned public call of its
 * JSON protocol, the email as USERNAME. Any 200 is a match: tokens, or a challenge Cognito asks only
 * after accepting the password (`NEW_PASSWORD_REQUIRED`, MFA…); neither tokens nor the challenge's
 * session are kept (only the verdict leaves this function).
 */
export function cognitoSource(cfg: CognitoSourceConfig): PasswordMigrationSource {
  const headers = { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' };
  return {
    kind: 'cognito',
    async check({ email, password }) {
      const params = {
        USERNAME: email,
        PASSWORD: password,
        ...(cfg.clientSecret ? { SECRET_HASH: cognitoSecretHash(cfg.clientSecret, email, cfg.clientId) } : {}),
      };
      const body = JSON.stringify({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: cfg.clientId, AuthParameters: params });
      const answer = await post(cfg.endpointUrl, body, headers, cfg.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      if ('failed' in answer) return { kind: 'unavailable', reason: answer.failed };
      return cognitoVerdict(answer);
    },
  };
}

/** An answer of `InitiateAuth` as a verdict (SPEC §16b): the error's `__type` (after the last `#`) decides. */
function cognitoVerdict({ status, body }: Answer): Verdict {
  if (typeof body !== 'object' || body === null) return { kind: 'unavailable', reason: `Cognito answered ${status} without JSON` };
  const answer = body as { AuthenticationResult?: unknown; ChallengeName?: unknown; __type?: unknown; message?: unknown; Message?: unknown };
  if (status === 200) {
    if ((typeof answer.AuthenticationResult === 'object' && answer.AuthenticationResult !== null) || typeof answer.ChallengeName === 'string') {
      return { kind: 'match' };
    }
    return { kind: 'unavailable', reason: 'Cognito answered 200 without a result or a challenge' };
  }
  const type = typeof answer.__type === 'string' ? (answer.__type.split('#').at(-1) ?? '') : '';
  const message = String(answer.message ?? answer.Message ?? '').trim();
  const notAnAnswer = type === 'NotAuthorizedException' && (message.startsWith(PASSWORD_ATTEMPTS_EXCEEDED) || ABOUT_THE_SECRET.test(message));
  if (status === 400 && COGNITO_MISMATCH.has(type) && !notAnAnswer) return { kind: 'mismatch', code: type };
  const said = `Cognito answered ${status}${type ? ` ${type.slice(0, 80)}` : ''}`;
  if (status === 400 && type === 'NotAuthorizedException' && ABOUT_THE_SECRET.test(message)) {
    return { kind: 'unavailable', reason: `${said} (a configuration error: the app client's secret, COGNITO_CLIENT_SECRET)` };
  }
  if (status === 400 && type === 'NotAuthorizedException') return { kind: 'unavailable', reason: `${said}: ${PASSWORD_ATTEMPTS_EXCEEDED}` };
  if (COGNITO_CONFIG_ERRORS.has(type)) return { kind: 'unavailable', reason: `${said} (a configuration error: ${message.slice(0, 160)})` };
  return { kind: 'unavailable', reason: said };
}

/**
 * The configured source (SPEC §16), or undefined when password migration is off. Throws a
 * `ConfigError` in a function that was not given the source's secret.
 */
export function passwordMigrationSource(cfg: PasswordMigrationConfig): PasswordMigrationSource | undefined {
  if (cfg.source === 'off') return undefined;
  const notGiven = () => new ConfigError('This function was not given the password migration secret (PASSWORD_MIGRATION_SECRET_PARAMETER)');
  if (cfg.source === 'cognito') {
    // Its secret is optional: only a function that was not given the parameter cannot tell.
    if (cfg.clientSecretElsewhere) throw notGiven();
    return cognitoSource({ clientId: cfg.clientId, clientSecret: cfg.clientSecret, endpointUrl: cfg.endpointUrl, timeoutMs: cfg.timeoutMs });
  }
  const secret = cfg.source === 'firebase' ? cfg.webApiKey : cfg.secret;
  if (secret === undefined) throw notGiven();
  if (cfg.source === 'firebase') return firebaseSource({ webApiKey: secret, authUrl: cfg.authUrl, timeoutMs: cfg.timeoutMs });
  return webhookSource({ url: cfg.url, secret, timeoutMs: cfg.timeoutMs });
}
