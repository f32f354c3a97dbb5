import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { distinctFreePorts, INSTALL_LIMIT_MS, npmToolBin, npmToolCacheDir, startTool, statusAndBody, useTool, type NpmTool } from './npm-tool';

/**
 * cognito-local (https://github.com/jagregory/cognito-local), a Cognito user pool emulator that runs
 * offline, for tests that need tokens Cognito-shaped and signed by a server we do not control, or a
 * password checked by `InitiateAuth`. Installed on first use into `~/.cache/auth-core-tests/` (about
 * 25 s, 128 MB, so not a dependency of the project; `COGNITO_LOCAL_CACHE` moves it); with no registry,
 * the tests skip with one sentence.
 *
 * What its tokens look like (measured with 5.3.0, and read in its `lib/services/tokenGenerator.js`):
 *
 * - Header `{"alg":"RS256","typ":"JWT","kid":"CognitoLocal"}`: one RSA key for every pool and every
 *   run, whose private half ships in the package (`lib/keys/cognitoLocal.private.json`), so anyone
 *   can forge its tokens: fit for tests only.
 * - `iss` is `http://<HOST>:<PORT>/<userPoolId>` (here `http://127.0.0.1:<port>/local_XXXXXXXX`),
 *   where Cognito's is `https://cognito-idp.<region>.amazonaws.com/<userPoolId>`; pool ids are
 *   `local_` and 8 characters where Cognito's are `<region>_` and 9.
 * - Keys at `<iss>/.well-known/jwks.json` (`{"keys":[{kty:"RSA",kid:"CognitoLocal",alg:"RS256",use:"sig",…}]}`,
 *   the same for any pool id, even an unknown one), as Cognito's. Its `openid-configuration` names
 *   `http://localhost:9229/…` whatever the port, so configure `jwksUri` directly, not by discovery.
 * - ID token: `sub` (a v4 uuid), `aud` = the app client id, `token_use: "id"`, `cognito:username`
 *   (the `sub` too when the pool signs in by email, as `UsernameAttributes: ["email"]` here), `email`,
 *   `email_verified` (a boolean), `auth_time` = `iat` (seconds), `exp` (24 h by default), `jti`,
 *   `event_id`, custom attributes.
 * - Access token: no `aud`; `client_id`, `token_use: "access"`, `scope: "aws.cognito.signin.user.admin"`,
 *   `username`, `sub`, `auth_time`, `iat`, `exp`, `jti`, `event_id`. Cognito's also has
 *   `origin_jti`; cognito-local's has `jti` on both tokens, so two sign-ins in one second differ.
 *
 * Its deviations from Cognito that a test may meet: `SECRET_HASH` is never checked (this module
 * sends it anyway, as Cognito requires for a client with a secret); a wrong password answers
 * `InvalidPasswordException` "Invalid password" where Cognito answers `NotAuthorizedException`
 * "Incorrect username or password."; an unknown user answers `NotAuthorizedException` "User not
 * authorized"; a user created by `AdminCreateUser` is `FORCE_CHANGE_PASSWORD` (a
 * `NEW_PASSWORD_REQUIRED` challenge) until `AdminSetUserPassword` with `Permanent: true`.
 */

export const COGNITO_LOCAL_VERSION = '5.3.0';

const COGNITO_LOCAL: NpmTool = { name: 'cognito-local', version: COGNITO_LOCAL_VERSION, bin: 'cognito-local', purpose: 'the cognito-local tests' };

/** It answers in about 1 s; up to this on a loaded machine while it makes progress. */
const START_LIMIT_MS = 2 * 60_000;
const SETUP_LIMIT_MS = INSTALL_LIMIT_MS + START_LIMIT_MS + 60_000;

/** One answer of the `AWSCognitoIdentityProviderService` JSON protocol: 200 and the result, or 400 and `{ __type, message }`. */
export type CognitoResponse = Awaited<ReturnType<typeof statusAndBody>>;

/** An app client of a pool, as `CreateUserPoolClient` made it. */
export interface CognitoClient {
  readonly userPoolId: string;
  readonly clientId: string;
  /** Set when it was made with `GenerateSecret`; then `SECRET_HASH` goes with every sign-in. */
  readonly clientSecret: string | undefined;
}

export interface CognitoTokens {
  readonly idToken: string;
  readonly accessToken: string;
  readonly refreshToken: string;
}

/** A running cognito-local on a loopback port, with its own data folder. */
export interface CognitoLocal {
  /** `http://127.0.0.1:<port>`: the endpoint the JSON protocol is posted to. */
  readonly origin: string;
  /** The process's output so far (the last 64 kB). */
  logs(): string;
  /** The `iss` of the pool's tokens. */
  issuerOf(userPoolId: string): string;
  /** The pool's JWKS URL. */
  jwksUriOf(userPoolId: string): string;
  /** Any operation of the JSON protocol (`X-Amz-Target: AWSCognitoIdentityProviderService.<op>`), its answer as is. */
  call(op: string, body: Record<string, unknown>): Promise<CognitoResponse>;
  /** A pool whose users sign in by email (their username is then their `sub`); resolves to its id. */
  createUserPool(name?: string): Promise<string>;
  /** An app client allowing `USER_PASSWORD_AUTH`, with a secret or without. */
  createClient(userPoolId: string, options?: { secret?: boolean }): Promise<CognitoClient>;
  /**
   * A confirmed user with a permanent password (`AdminCreateUser` without a message, then
   * `AdminSetUserPassword`), its email verified; resolves to its `sub`.
   */
  createUser(userPoolId: string, email: string, password: string, attributes?: Record<string, string>): Promise<string>;
  /** `InitiateAuth` with `USER_PASSWORD_AUTH` (and `SECRET_HASH` for a client with a secret), its answer as is. */
  initiateAuth(client: CognitoClient, username: string, password: string): Promise<CognitoResponse>;
  /** `initiateAuth` that must give tokens. */
  signIn(client: CognitoClient, username: string, password: string): Promise<CognitoTokens>;
  /** Stops it (SIGTERM, then SIGKILL to its process group) and removes its folder. Safe to call twice. */
  stop(): Promise<void>;
}

/** Cognito's `SECRET_HASH`: base64 HMAC-SHA256 of username + client id, keyed by the client secret. */
export function secretHash(client: CognitoClient, username: string): string | undefined {
  if (client.clientSecret === undefined) return undefined;
  return createHmac('sha256', client.clientSecret)
    .update(username + client.clientId)
    .digest('base64');
}

/**
 * Starts a cognito-local of its own: a free loopback port and a temporary folder as its working
 * directory (it keeps its pools in `.cognito/` there), so parallel jest workers never meet. Resolves
 * once it answers `/health`; rejects with its output if it exits first or stalls. Resolves to
 * `{ skip }` only when cognito-local cannot be installed.
 */
export async function startCognitoLocal(): Promise<CognitoLocal | { skip: string }> {
  const found = await npmToolBin(COGNITO_LOCAL, process.env.COGNITO_LOCAL_CACHE ?? npmToolCacheDir(COGNITO_LOCAL));
  if ('skip' in found) return found;

  const dir = mkdtempSync(join(tmpdir(), 'cognito-local-'));
  const [port] = await distinctFreePorts(1);
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', NO_UPDATE_NOTIFIER: '1' };
  // Its bundled aws-sdk v2 (for Lambda triggers, unused here) must never meet real credentials.
  for (const k of Object.keys(env)) if (k.startsWith('AWS_')) delete env[k];
  delete env.DEBUG;
  delete env.COGNITO_LOCAL_DEVMODE;
  const origin = `http://127.0.0.1:${port}`;
  const tool = await startTool('cognito-local', [found.bin], { dir, env, readyUrl: `${origin}/health`, limitMs: START_LIMIT_MS });

  const call = async (op: string, body: Record<string, unknown>): Promise<CognitoResponse> =>
    statusAndBody(
      await fetch(origin, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': `AWSCognitoIdentityProviderService.${op}` },
        body: JSON.stringify(body),
      }),
    );
  /** A set-up call that must succeed: a failure here is a broken harness, not a test result. */
  const must = async (op: string, body: Record<string, unknown>) => {
    const res = await call(op, body);
    if (res.status !== 200) throw new Error(`cognito-local ${op}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const initiateAuth = (client: CognitoClient, username: string, password: string) => {
    const hash = secretHash(client, username);
    return call('InitiateAuth', {
      ClientId: client.clientId,
      AuthFlow: 'USER_PASSWORD_AUTH',
      AuthParameters: { USERNAME: username, PASSWORD: password, ...(hash === undefined ? {} : { SECRET_HASH: hash }) },
    });
  };

  return {
    origin,
    logs: tool.logs,
    issuerOf: (userPoolId) => `${origin}/${userPoolId}`,
    jwksUriOf: (userPoolId) => `${origin}/${userPoolId}/.well-known/jwks.json`,
    call,
    createUserPool: async (name = `pool-${randomBytes(4).toString('hex')}`) =>
      (await must('CreateUserPool', { PoolName: name, UsernameAttributes: ['email'] })).UserPool.Id,
    createClient: async (userPoolId, options = {}) => {
      const made = (
        await must('CreateUserPoolClient', {
          UserPoolId: userPoolId,
          ClientName: `client-${randomBytes(4).toString('hex')}`,
          GenerateSecret: options.secret === true,
          ExplicitAuthFlows: ['ALLOW_USER_PASSWORD_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
        })
      ).UserPoolClient;
      return { userPoolId, clientId: made.ClientId, clientSecret: made.ClientSecret };
    },
    createUser: async (userPoolId, email, password, attributes = {}) => {
      const created = await must('AdminCreateUser', {
        UserPoolId: userPoolId,
        Username: email,
        MessageAction: 'SUPPRESS',
        UserAttributes: Object.entries({ email, email_verified: 'true', ...attributes }).map(([Name, Value]) => ({ Name, Value })),
      });
      await must('AdminSetUserPassword', { UserPoolId: userPoolId, Username: email, Password: password, Permanent: true });
      const sub = (created.User.Attributes as { Name: string; Value: string }[]).find((a) => a.Name === 'sub')?.Value;
      if (!sub) throw new Error(`cognito-local AdminCreateUser gave no sub: ${JSON.stringify(created)}`);
      return sub;
    },
    initiateAuth,
    signIn: async (client, username, password) => {
      const res = await initiateAuth(client, username, password);
      const result = res.body?.AuthenticationResult;
      if (res.status !== 200 || !result)
        throw new Error(`cognito-local InitiateAuth gave no tokens: ${res.status} ${JSON.stringify(res.body?.__type ?? res.body?.ChallengeName)}`);
      return { idToken: result.IdToken, accessToken: result.AccessToken, refreshToken: result.RefreshToken };
    },
    stop: () => tool.stop('SIGTERM'),
  };
}

/**
 * One cognito-local for the tests of a file (started in `beforeAll`, stopped in `afterAll`; a test
 * may stop it earlier), and `it` that runs a test against it: when cognito-local cannot be installed (no
 * registry), the reason is printed once and the tests pass without running. `setUp` runs once after
 * the start (pools, clients, users, then whatever needs them, e.g. the API under test).
 */
export function useCognitoLocal(
  what: string,
  setUp?: (cognito: CognitoLocal) => Promise<void>,
): (name: string, fn: (cognito: CognitoLocal) => Promise<void>) => void {
  return useTool(what, startCognitoLocal, SETUP_LIMIT_MS, setUp);
}
