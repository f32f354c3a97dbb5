import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { configFromEnv } from '../../lib/config/config';
import { useFirebaseEmulator, type FirebaseEmulator } from '../support/firebase-emulator';
import { cognitoSource, firebaseSource, passwordMigrationSource, webhookSource, type PasswordCheck, type Verdict } from '../../lib/password-migration/sources';
import { slowAnswer } from '../support/slow-answer';

/**
 * The sources of password migration at sign-in (SPEC §16, §16b), against real HTTP servers: a local
 * webhook that checks our signature as a real one would, and stubs that answer as Firebase and
 * Cognito do where their emulators cannot (throttling, outages, Cognito's SECRET_HASH). Every answer maps to match, mismatch or
 * unavailable, and no verdict ever carries the password.
 */

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => unknown;

async function serve(handler: Handler): Promise<{ url: string; server: Server; hits: { body: string; headers: IncomingMessage['headers'] }[] }> {
  const hits: { body: string; headers: IncomingMessage['headers'] }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      hits.push({ body, headers: req.headers });
      void handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, hits };
}
const close = (s: Server) => new Promise<void>((r) => s.close(() => r()));
const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const SECRET = 'webhook-secret-0123456789';
const PASSWORD = 'the-Old-password-7';
const check = (email: string, password = PASSWORD): PasswordCheck => ({ email, password, tenantId: 'public', userId: 'fb-uid-1' });
const noPassword = (v: Verdict) => expect(JSON.stringify(v)).not.toContain(PASSWORD);

describe('the webhook source', () => {
  let hook: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    // What an operator's webhook does: check the signature over the raw body, then the password.
    hook = await serve(async (req, body, res) => {
      const expected = Buffer.from(`sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`);
      const given = Buffer.from(String(req.headers['x-signature'] ?? ''));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return json(res, 401, { error: 'bad signature' });
      const { email, password } = JSON.parse(body);
      if (email.startsWith('forbidden')) return json(res, 403, {});
      if (email.startsWith('broken')) return json(res, 500, {});
      if (email.startsWith('weird')) return json(res, 200, { status: 'maybe' });
      if (email.startsWith('slow')) await slowAnswer(res, 1500);
      if (email.startsWith('huge')) return json(res, 200, { status: 'password_match', padding: 'x'.repeat(100_000) });
      if (email.startsWith('redirect')) {
        res.writeHead(302, { location: 'http://127.0.0.1:9/steal' });
        return res.end();
      }
      return json(res, 200, { status: password === PASSWORD ? 'password_match' : 'password_mismatch' });
    });
  });
  afterAll(() => close(hook.server));
  const source = (over: Partial<{ url: string; secret: string; timeoutMs: number }> = {}) =>
    webhookSource({ url: hook.url, secret: SECRET, timeoutMs: 500, ...over });

  it('sends the email, password, tenant and user id, signed; a right password is a match', async () => {
    const v = await source().check(check('ann@example.com'));
    expect(v).toEqual({ kind: 'match' });
    expect(JSON.parse(hook.hits.at(-1)!.body)).toEqual({ email: 'ann@example.com', password: PASSWORD, tenantId: 'public', userId: 'fb-uid-1' });
  });

  it.each([
    ['a wrong password (200 password_mismatch)', 'ann@example.com', 'wrong', { kind: 'mismatch', code: 'password_mismatch' }],
    ['403', 'forbidden@example.com', PASSWORD, { kind: 'mismatch', code: 'forbidden' }],
  ])('%s is a mismatch', async (_name, email, password, verdict) => {
    const v = await source().check(check(email, password));
    expect(v).toEqual(verdict);
    noPassword(v);
  });

  it.each([
    ['a 500', 'broken@example.com', 'the webhook answered 500'],
    ['a 200 with an unknown status', 'weird@example.com', 'the webhook answered 200 without a known status'],
    ['an answer later than the timeout', 'slow@example.com', 'no answer within 500 ms'],
    ['an answer larger than 64 KiB', 'huge@example.com', 'answer larger than 65536 bytes'],
    ['a redirect (not followed)', 'redirect@example.com', 'the webhook answered 302'],
  ])('%s is an outage, never a wrong password', async (_name, email, reason) => {
    const v = await source().check(check(email));
    expect(v).toEqual({ kind: 'unavailable', reason });
    noPassword(v);
  });

  it('a signature made with another secret is refused by the webhook: an outage, not a wrong password', async () => {
    const v = await source({ secret: 'not-the-shared-secret' }).check(check('ann@example.com'));
    expect(v).toEqual({ kind: 'unavailable', reason: 'the webhook answered 401' });
  });

  it('a webhook that does not listen is an outage (after one retry)', async () => {
    const gone = await serve(() => undefined);
    await close(gone.server);
    const v = await source({ url: gone.url }).check(check('ann@example.com'));
    expect(v).toEqual({ kind: 'unavailable', reason: 'request failed (ECONNREFUSED)' });
  });

  it('is what the configuration names (PASSWORD_MIGRATION_SOURCE=webhook), and nothing when it is off', async () => {
    const env = { PASSWORD_MIGRATION_SOURCE: 'webhook', PASSWORD_MIGRATION_WEBHOOK_URL: hook.url, PASSWORD_MIGRATION_WEBHOOK_SECRET: SECRET };
    const configured = passwordMigrationSource(configFromEnv(env, { passwordMigration: SECRET }).passwordMigration)!;
    expect([configured.kind, await configured.check(check('ann@example.com'))]).toEqual(['webhook', { kind: 'match' }]);
    expect(passwordMigrationSource(configFromEnv({}, {}).passwordMigration)).toBeUndefined();
  });

  it('a connection dropped before the request is retried once', async () => {
    let connections = 0;
    const flaky = await serve((_req, body, res) => json(res, 200, { status: JSON.parse(body).password === PASSWORD ? 'password_match' : 'password_mismatch' }));
    flaky.server.prependListener('connection', (socket) => {
      if (++connections === 1) socket.destroy();
    });
    try {
      const v = await webhookSource({ url: flaky.url, secret: SECRET }).check(check('ann@example.com'));
      expect([v, connections, flaky.hits.length]).toEqual([{ kind: 'match' }, 2, 1]);
    } finally {
      await close(flaky.server);
    }
  });
});

describe('the Firebase source against a stub answering as Firebase does', () => {
  let stub: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    const error = (res: ServerResponse, status: number, message: string) =>
      json(res, status, { error: { code: status, message, errors: [{ message, reason: 'invalid', domain: 'global' }] } });
    stub = await serve((req, body, res) => {
      const { email, password } = JSON.parse(body);
      if (!req.url!.startsWith('/v1/accounts:signInWithPassword?key=web-api-key')) return error(res, 400, 'API key not valid. Please pass a valid API key.');
      if (email.startsWith('locked'))
        return error(res, 400, 'TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled due to many failed login attempts.');
      if (email.startsWith('down')) return json(res, 503, {});
      if (email.startsWith('mfa')) return json(res, 200, { mfaPendingCredential: 'cred', mfaInfo: [{ phoneInfo: '+1***' }] });
      if (email.startsWith('gone')) return error(res, 400, 'EMAIL_NOT_FOUND');
      if (email.startsWith('disabled')) return error(res, 400, 'USER_DISABLED');
      if (email.startsWith('private')) return error(res, 400, 'INVALID_LOGIN_CREDENTIALS');
      if (password !== PASSWORD) return error(res, 400, 'INVALID_PASSWORD');
      return json(res, 200, { kind: 'identitytoolkit#VerifyPasswordResponse', localId: 'fb-uid-1', email, registered: true });
    });
  });
  afterAll(() => close(stub.server));
  const source = (webApiKey = 'web-api-key') => firebaseSource({ webApiKey, authUrl: stub.url, timeoutMs: 500 });

  it('calls accounts:signInWithPassword with the key, the email and the password, no token asked', async () => {
    expect(await source().check(check('ann@example.com'))).toEqual({ kind: 'match' });
    expect(JSON.parse(stub.hits.at(-1)!.body)).toEqual({ email: 'ann@example.com', password: PASSWORD, returnSecureToken: false });
  });

  it.each([
    ['a right password for a user with a second factor', 'mfa@example.com', PASSWORD, { kind: 'match' }],
    ['a wrong password', 'ann@example.com', 'nope', { kind: 'mismatch', code: 'INVALID_PASSWORD' }],
    ['an unknown email', 'gone@example.com', PASSWORD, { kind: 'mismatch', code: 'EMAIL_NOT_FOUND' }],
    ['a disabled user', 'disabled@example.com', PASSWORD, { kind: 'mismatch', code: 'USER_DISABLED' }],
    ['email enumeration protection', 'private@example.com', PASSWORD, { kind: 'mismatch', code: 'INVALID_LOGIN_CREDENTIALS' }],
    [
      'an account locked for too many attempts',
      'locked@example.com',
      PASSWORD,
      { kind: 'unavailable', reason: 'Firebase answered 400 TOO_MANY_ATTEMPTS_TRY_LATER' },
    ],
    ['a 503', 'down@example.com', PASSWORD, { kind: 'unavailable', reason: 'Firebase answered 503' }],
  ])('%s', async (_name, email, password, verdict) => {
    const v = await source().check(check(email, password));
    expect(v).toEqual(verdict);
    noPassword(v);
  });

  it('a wrong Web API key is an outage (a configuration error), not a wrong password', async () => {
    expect(await source('not-the-key').check(check('ann@example.com'))).toEqual({
      kind: 'unavailable',
      reason: 'Firebase answered 400 API key not valid. Please pass a valid API key.',
    });
  });
});

describe('the Firebase source against the real Firebase Auth emulator', () => {
  const itEmulator = useFirebaseEmulator('Firebase source tests against the emulator');
  const source = (emulator: FirebaseEmulator) => firebaseSource({ webApiKey: 'any-key', authUrl: emulator.baseUrl, timeoutMs: 2000 });

  itEmulator(
    'right password → match (any case of the email); wrong → INVALID_PASSWORD; unknown → EMAIL_NOT_FOUND; disabled → USER_DISABLED; second factor → match',
    async (emulator) => {
      await emulator.signUp('grace@example.com', PASSWORD);
      const disabled = await emulator.signUp('dora@example.com', PASSWORD);
      await emulator.disable(disabled);
      await emulator.createMfaUser('mia@example.com', PASSWORD);
      const verdicts = [
        await source(emulator).check(check('grace@example.com')),
        await source(emulator).check(check('Grace@Example.com')),
        await source(emulator).check(check('grace@example.com', 'not-it')),
        await source(emulator).check(check('nobody@example.com')),
        await source(emulator).check(check('dora@example.com')),
        await source(emulator).check(check('mia@example.com')),
      ];
      expect(verdicts).toEqual([
        { kind: 'match' },
        { kind: 'match' },
        { kind: 'mismatch', code: 'INVALID_PASSWORD' },
        { kind: 'mismatch', code: 'EMAIL_NOT_FOUND' },
        { kind: 'mismatch', code: 'USER_DISABLED' },
        { kind: 'match' },
      ]);
    },
  );

  itEmulator('once the emulator is stopped: an outage, never a wrong password', async (emulator) => {
    await emulator.stop();
    expect(await source(emulator).check(check('grace@example.com'))).toEqual({ kind: 'unavailable', reason: 'request failed (ECONNREFUSED)' });
  });
});

describe('the Cognito source against a stub answering as Cognito does (SPEC §16b)', () => {
  const CLIENT_ID = '3n4b5urk1ft4fl3mg5e62d9ado';
  const CLIENT_SECRET = 'client-secret-of-the-app-client';
  let stub: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    const error = (res: ServerResponse, status: number, __type: string, message: string) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': __type });
      res.end(JSON.stringify({ __type, message }));
    };
    stub = await serve(async (req, body, res) => {
      if (req.headers['x-amz-target'] !== 'AWSCognitoIdentityProviderService.InitiateAuth') return error(res, 400, 'UnknownOperationException', '');
      const { AuthParameters: p } = JSON.parse(body);
      const user: string = p.USERNAME;
      // Cognito checks SECRET_HASH for a client with a secret: "secret@…" users belong to one here.
      if (user.startsWith('secret')) {
        const expected = createHmac('sha256', CLIENT_SECRET).update(`${user}${CLIENT_ID}`).digest('base64');
        if (p.SECRET_HASH !== expected) return error(res, 400, 'NotAuthorizedException', `Unable to verify secret hash for client ${CLIENT_ID}`);
      }
      const kind = user.split('@')[0];
      const answers: Record<string, () => unknown> = {
        tokens: () =>
          json(res, 200, {
            AuthenticationResult: { AccessToken: 'a.b.c', IdToken: 'a.b.c', RefreshToken: 'r', ExpiresIn: 3600, TokenType: 'Bearer' },
            ChallengeParameters: {},
          }),
        secret: () => json(res, 200, { AuthenticationResult: { AccessToken: 'a.b.c' }, ChallengeParameters: {} }),
        newpassword: () => json(res, 200, { ChallengeName: 'NEW_PASSWORD_REQUIRED', Session: 'session-blob', ChallengeParameters: { USER_ID_FOR_SRP: 'x' } }),
        totp: () => json(res, 200, { ChallengeName: 'SOFTWARE_TOKEN_MFA', Session: 'session-blob', ChallengeParameters: {} }),
        empty: () => json(res, 200, {}),
        wrong: () => error(res, 400, 'NotAuthorizedException', 'Incorrect username or password.'),
        namespaced: () => error(res, 400, 'com.amazonaws.cognito.identity.idp.model#NotAuthorizedException', 'Incorrect username or password.'),
        gone: () => error(res, 400, 'UserNotFoundException', 'User does not exist.'),
        local: () => error(res, 400, 'InvalidPasswordException', 'Invalid password'),
        reset: () => error(res, 400, 'PasswordResetRequiredException', 'Password reset required for the user'),
        unconfirmed: () => error(res, 400, 'UserNotConfirmedException', 'User is not confirmed.'),
        locked: () => error(res, 400, 'NotAuthorizedException', 'Password attempts exceeded'),
        throttled: () => error(res, 400, 'TooManyRequestsException', 'Rate exceeded'),
        limit: () => error(res, 400, 'LimitExceededException', 'Attempt limit exceeded, please try after some time.'),
        internal: () => error(res, 500, 'InternalErrorException', 'Internal error'),
        flow: () => error(res, 400, 'InvalidParameterException', 'USER_PASSWORD_AUTH flow not enabled for this client'),
        pool: () => error(res, 400, 'ResourceNotFoundException', 'User pool client 3n4b5 does not exist.'),
        config: () => error(res, 400, 'InvalidUserPoolConfigurationException', 'Cognito invalid user pool configuration'),
        other: () => error(res, 400, 'CodeMismatchException', 'Invalid code provided, please request a code again.'),
        gateway: () => json(res, 502, { message: 'Bad Gateway' }),
        html: () => {
          res.writeHead(503, { 'content-type': 'text/html' });
          res.end('<html><body>Service Unavailable</body></html>');
        },
        garbled: () => {
          res.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
          res.end('{"AuthenticationResult":');
        },
        slow: async () => {
          await slowAnswer(res, 1500);
          json(res, 200, { AuthenticationResult: { AccessToken: 'late' } });
        },
      };
      return (answers[kind] ?? answers.wrong)();
    });
  });
  afterAll(() => close(stub.server));
  const source = (clientSecret?: string, endpointUrl = stub.url) => cognitoSource({ clientId: CLIENT_ID, clientSecret, endpointUrl, timeoutMs: 500 });

  it('posts InitiateAuth (USER_PASSWORD_AUTH) unsigned in the JSON protocol, the email as USERNAME, no SECRET_HASH without a secret', async () => {
    expect(await source().check(check('tokens@example.com'))).toEqual({ kind: 'match' });
    const hit = stub.hits.at(-1)!;
    expect(hit.headers).toMatchObject({ 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AWSCognitoIdentityProviderService.InitiateAuth' });
    expect(hit.headers.authorization).toBeUndefined();
    expect(JSON.parse(hit.body)).toEqual({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: CLIENT_ID,
      AuthParameters: { USERNAME: 'tokens@example.com', PASSWORD: PASSWORD },
    });
  });

  it('sends SECRET_HASH = base64(HMAC-SHA256(secret, USERNAME + ClientId)) with a secret, which the stub checks; another secret is refused', async () => {
    expect(await source(CLIENT_SECRET).check(check('secret@example.com'))).toEqual({ kind: 'match' });
    const sent = JSON.parse(stub.hits.at(-1)!.body).AuthParameters.SECRET_HASH;
    expect(sent).toBe(createHmac('sha256', CLIENT_SECRET).update(`secret@example.com${CLIENT_ID}`).digest('base64'));
    // Cognito answers a wrong secret hash with NotAuthorizedException; unlike SPEC §16b's letter it is
    // the configuration error it is (an outage, alarmed), not every waiting user's wrong password.
    expect(await source('not-the-secret').check(check('secret@example.com'))).toEqual({
      kind: 'unavailable',
      reason: "Cognito answered 400 NotAuthorizedException (a configuration error: the app client's secret, COGNITO_CLIENT_SECRET)",
    });
  });

  it.each([
    ['tokens (AuthenticationResult)', 'tokens', { kind: 'match' }],
    ['a NEW_PASSWORD_REQUIRED challenge (FORCE_CHANGE_PASSWORD)', 'newpassword', { kind: 'match' }],
    ['a SOFTWARE_TOKEN_MFA challenge', 'totp', { kind: 'match' }],
    ['NotAuthorizedException (wrong password)', 'wrong', { kind: 'mismatch', code: 'NotAuthorizedException' }],
    ['a __type with a namespace before #', 'namespaced', { kind: 'mismatch', code: 'NotAuthorizedException' }],
    ['UserNotFoundException', 'gone', { kind: 'mismatch', code: 'UserNotFoundException' }],
    ["InvalidPasswordException (cognito-local's wrong password)", 'local', { kind: 'mismatch', code: 'InvalidPasswordException' }],
    ['PasswordResetRequiredException', 'reset', { kind: 'mismatch', code: 'PasswordResetRequiredException' }],
    ['UserNotConfirmedException', 'unconfirmed', { kind: 'mismatch', code: 'UserNotConfirmedException' }],
    [
      'NotAuthorizedException "Password attempts exceeded"',
      'locked',
      { kind: 'unavailable', reason: 'Cognito answered 400 NotAuthorizedException: Password attempts exceeded' },
    ],
    ['TooManyRequestsException', 'throttled', { kind: 'unavailable', reason: 'Cognito answered 400 TooManyRequestsException' }],
    ['LimitExceededException', 'limit', { kind: 'unavailable', reason: 'Cognito answered 400 LimitExceededException' }],
    ['InternalErrorException (500)', 'internal', { kind: 'unavailable', reason: 'Cognito answered 500 InternalErrorException' }],
    [
      'InvalidParameterException (the client lacks ALLOW_USER_PASSWORD_AUTH)',
      'flow',
      {
        kind: 'unavailable',
        reason: 'Cognito answered 400 InvalidParameterException (a configuration error: USER_PASSWORD_AUTH flow not enabled for this client)',
      },
    ],
    [
      'ResourceNotFoundException',
      'pool',
      { kind: 'unavailable', reason: 'Cognito answered 400 ResourceNotFoundException (a configuration error: User pool client 3n4b5 does not exist.)' },
    ],
    [
      'InvalidUserPoolConfigurationException',
      'config',
      {
        kind: 'unavailable',
        reason: 'Cognito answered 400 InvalidUserPoolConfigurationException (a configuration error: Cognito invalid user pool configuration)',
      },
    ],
    ['any other __type', 'other', { kind: 'unavailable', reason: 'Cognito answered 400 CodeMismatchException' }],
    ['a 502 without __type', 'gateway', { kind: 'unavailable', reason: 'Cognito answered 502' }],
    ['a 503 in HTML', 'html', { kind: 'unavailable', reason: 'Cognito answered 503 without JSON' }],
    ['a 200 cut short (not JSON)', 'garbled', { kind: 'unavailable', reason: 'Cognito answered 200 without JSON' }],
    ['a 200 without tokens or a challenge', 'empty', { kind: 'unavailable', reason: 'Cognito answered 200 without a result or a challenge' }],
    ['an answer later than the timeout', 'slow', { kind: 'unavailable', reason: 'no answer within 500 ms' }],
  ])('%s', async (_name, kind, verdict) => {
    const v = await source().check(check(`${kind}@example.com`));
    expect(v).toEqual(verdict);
    noPassword(v);
    // Nothing of the tokens or the challenge's session leaves the source.
    expect(JSON.stringify(v)).not.toMatch(/a\.b\.c|session-blob|late/);
  });

  it('a Cognito endpoint that does not listen is an outage after one retry', async () => {
    let connections = 0;
    const gone = await serve(() => undefined);
    await close(gone.server);
    const flaky = await serve((_req, _body, res) => json(res, 200, { AuthenticationResult: { AccessToken: 'a.b.c' } }));
    flaky.server.prependListener('connection', (socket) => {
      if (++connections === 1) socket.destroy();
    });
    try {
      expect(await source(undefined, gone.url).check(check('tokens@example.com'))).toEqual({ kind: 'unavailable', reason: 'request failed (ECONNREFUSED)' });
      expect([await source(undefined, flaky.url).check(check('tokens@example.com')), connections, flaky.hits.length]).toEqual([{ kind: 'match' }, 2, 1]);
    } finally {
      await close(flaky.server);
    }
  });

  it('is what the configuration names (PASSWORD_MIGRATION_SOURCE=cognito), with the secret from COGNITO_CLIENT_SECRET locally', async () => {
    const env = {
      PASSWORD_MIGRATION_SOURCE: 'cognito',
      COGNITO_USER_POOL_ID: 'local_AbCd1234',
      COGNITO_REGION: 'us-east-1',
      COGNITO_CLIENT_ID: CLIENT_ID,
      COGNITO_ENDPOINT_URL: stub.url,
    };
    const configured = passwordMigrationSource(configFromEnv(env, { passwordMigration: CLIENT_SECRET }).passwordMigration)!;
    expect([configured.kind, await configured.check(check('secret@example.com'))]).toEqual(['cognito', { kind: 'match' }]);
  });
});
