import { generateKeyPairSync } from 'node:crypto';
import { ConfigError } from '../../lib/config/config';
import { createIssuerLoader, sessionExchangeFromEnv } from '../../lib/config/session-exchange-issuers';
import { startParametersExtension, type ParametersExtension } from '../support/parameters-extension';

/** A public EC P-256 signing key as a JWKS lists it. */
const EC_JWK = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig' };

const parse = (issuers: unknown, env: Record<string, string> = {}) =>
  sessionExchangeFromEnv({ SESSION_EXCHANGE_ISSUERS: typeof issuers === 'string' ? issuers : JSON.stringify(issuers), ...env });
const refusal = (issuers: unknown, env: Record<string, string> = {}): string => {
  try {
    parse(issuers, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe('SESSION_EXCHANGE_ISSUERS (SPEC §19)', () => {
  it('absent, empty or [] is no issuer', () => {
    expect(sessionExchangeFromEnv({})).toEqual([]);
    expect(sessionExchangeFromEnv({ SESSION_EXCHANGE_ISSUERS: ' ' })).toEqual([]);
    expect(parse([])).toEqual([]);
  });

  it('fills the firebase preset', () => {
    const [fb] = parse([{ id: 'fb', preset: 'firebase', projectId: 'my-proj' }]);
    expect(fb).toMatchObject({
      id: 'fb',
      issuers: ['https://securetoken.google.com/my-proj'],
      audiences: ['my-proj'],
      keys: { kind: 'x509', url: 'https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com' },
      algorithms: ['RS256'],
      externalIdClaim: 'sub',
      clockSkewSeconds: 60,
      keyRefetchCooldownSeconds: 30,
      maxTokenAgeSeconds: undefined,
      acceptUntil: undefined,
    });
  });

  it('fills the session-cookie, auth0, cognito, supabase and oidc presets', () => {
    const [cookie, a0, cog, sb, sbSecret, oidc] = parse([
      { id: 'cookie', preset: 'firebase-session-cookie', projectId: 'p' },
      { id: 'a0', preset: 'auth0', domain: 'acme.eu.auth0.com', audience: ['c1', 'api'] },
      { id: 'cog', preset: 'cognito', region: 'eu-west-1', userPoolId: 'eu-west-1_AbC', clientId: 'cid', tokenUse: 'access' },
      { id: 'sb', preset: 'supabase', projectRef: 'abcd' },
      { id: 'sb2', preset: 'supabase', issuer: 'https://auth.example.com/auth/v1', secret: 'x'.repeat(32) },
      { id: 'o', preset: 'oidc', issuer: 'https://id.example.com', audiences: 'app', jwks: { keys: [EC_JWK] }, maxTokenAgeSeconds: 3600 },
    ]);
    expect(cookie).toMatchObject({
      issuers: ['https://session.firebase.google.com/p'],
      keys: { kind: 'x509', url: 'https://www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys' },
    });
    expect(a0).toMatchObject({
      issuers: ['https://acme.eu.auth0.com/'],
      audiences: ['c1', 'api'],
      keys: { kind: 'jwks', url: 'https://acme.eu.auth0.com/.well-known/jwks.json' },
    });
    expect(cog).toMatchObject({
      issuers: ['https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC'],
      keys: { kind: 'jwks', url: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC/.well-known/jwks.json' },
      audiences: ['cid'],
      cognito: { tokenUse: 'access' },
    });
    expect(sb).toMatchObject({ issuers: ['https://abcd.supabase.co/auth/v1'], audiences: ['authenticated'], algorithms: ['ES256', 'RS256'] });
    expect(sbSecret).toMatchObject({ algorithms: ['HS256'], keys: { kind: 'none' } });
    expect(oidc).toMatchObject({ issuers: ['https://id.example.com'], audiences: ['app'], keys: { kind: 'inline' }, maxTokenAgeSeconds: 3600 });
  });

  it('takes overrides and http key URLs outside Lambda', () => {
    const [o] = parse([
      {
        id: 'fb',
        preset: 'firebase',
        projectId: 'p',
        x509Uri: 'http://127.0.0.1:9/x509',
        acceptUntil: '2027-01-31T00:00:00Z',
        externalIdClaim: 'user_id',
        clockSkewSeconds: 0,
        keyRefetchCooldownSeconds: 0,
        algorithms: ['RS256', 'ES256'],
      },
    ]);
    expect(o).toMatchObject({
      keys: { kind: 'x509', url: 'http://127.0.0.1:9/x509' },
      acceptUntil: Date.parse('2027-01-31T00:00:00Z'),
      externalIdClaim: 'user_id',
      clockSkewSeconds: 0,
      keyRefetchCooldownSeconds: 0,
      algorithms: ['RS256', 'ES256'],
    });
  });

  it('accepts the emulator preset only when allowed, for demo- projects', () => {
    const emu = { id: 'emu', preset: 'firebase-emulator', projectId: 'demo-x' };
    expect(parse([emu], { SESSION_EXCHANGE_ALLOW_EMULATOR: '1' })[0]).toMatchObject({
      issuers: ['https://securetoken.google.com/demo-x', 'https://session.firebase.google.com/demo-x'],
      algorithms: ['none'],
      keys: { kind: 'none' },
    });
    expect(refusal([emu])).toBe('SESSION_EXCHANGE_ISSUERS: issuer emu: preset firebase-emulator needs SESSION_EXCHANGE_ALLOW_EMULATOR=1');
    expect(refusal([{ ...emu, projectId: 'prod' }], { SESSION_EXCHANGE_ALLOW_EMULATOR: '1' })).toBe(
      'SESSION_EXCHANGE_ISSUERS: issuer emu: preset firebase-emulator needs a projectId starting with demo-',
    );
  });

  it.each([
    ['not JSON', '[{', 'SESSION_EXCHANGE_ISSUERS: not JSON'],
    ['not an array', { id: 'a' }, 'SESSION_EXCHANGE_ISSUERS: not a JSON array'],
    ['an element not an object', [1], 'SESSION_EXCHANGE_ISSUERS: element 0 is not a JSON object'],
    [
      'a missing id',
      [{ preset: 'firebase', projectId: 'p' }],
      'SESSION_EXCHANGE_ISSUERS: element 0: id is missing or not 1 to 64 characters of A-Z, a-z, 0-9, "_" and "-"',
    ],
    [
      'a bad id',
      [{ id: 'a b', preset: 'firebase', projectId: 'p' }],
      'SESSION_EXCHANGE_ISSUERS: element 0: id is missing or not 1 to 64 characters of A-Z, a-z, 0-9, "_" and "-"',
    ],
    [
      'a duplicate id',
      [
        { id: 'a', preset: 'firebase', projectId: 'p' },
        { id: 'a', preset: 'firebase', projectId: 'q' },
      ],
      'SESSION_EXCHANGE_ISSUERS: issuer a: id is used twice',
    ],
    [
      'an unknown preset',
      [{ id: 'a', preset: 'okta' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: preset must be one of firebase, firebase-session-cookie, auth0, cognito, supabase, oidc, firebase-emulator',
    ],
    ['firebase without projectId', [{ id: 'a', preset: 'firebase' }], 'SESSION_EXCHANGE_ISSUERS: issuer a: preset firebase needs projectId'],
    ['auth0 without domain', [{ id: 'a', preset: 'auth0', audience: 'x' }], 'SESSION_EXCHANGE_ISSUERS: issuer a: preset auth0 needs domain'],
    ['auth0 without audience', [{ id: 'a', preset: 'auth0', domain: 'x.auth0.com' }], 'SESSION_EXCHANGE_ISSUERS: issuer a: preset auth0 needs audience'],
    [
      'cognito without clientId',
      [{ id: 'a', preset: 'cognito', region: 'r', userPoolId: 'p' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: preset cognito needs clientId',
    ],
    [
      'a bad tokenUse',
      [{ id: 'a', preset: 'cognito', region: 'r', userPoolId: 'p', clientId: 'c', tokenUse: 'refresh' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: tokenUse must be id, access or any',
    ],
    [
      'supabase without projectRef or issuer',
      [{ id: 'a', preset: 'supabase' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: preset supabase needs projectRef or issuer',
    ],
    [
      'oidc without issuer',
      [{ id: 'a', preset: 'oidc', audiences: ['x'], jwksUri: 'https://x/j' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: preset oidc needs issuer',
    ],
    [
      'oidc without keys',
      [{ id: 'a', preset: 'oidc', issuer: 'https://x', audiences: ['x'] }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: preset oidc needs jwksUri or jwks',
    ],
    [
      'two issuers with one issuer string',
      [
        { id: 'a', preset: 'firebase', projectId: 'p' },
        { id: 'b', preset: 'oidc', issuer: 'https://securetoken.google.com/p', audiences: ['p'], jwksUri: 'https://x/j' },
      ],
      "SESSION_EXCHANGE_ISSUERS: issuer b: issuer https://securetoken.google.com/p is also issuer a's",
    ],
    [
      'none outside the emulator',
      [{ id: 'a', preset: 'firebase', projectId: 'p', algorithms: ['none'] }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: algorithm none is accepted only by preset firebase-emulator',
    ],
    [
      'HS256 without secret',
      [{ id: 'a', preset: 'firebase', projectId: 'p', algorithms: ['HS256'] }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: algorithm HS256 needs secret',
    ],
    [
      'an unknown algorithm',
      [{ id: 'a', preset: 'firebase', projectId: 'p', algorithms: ['XX1'] }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: algorithm XX1 is not one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, HS256',
    ],
    [
      'a short secret',
      [{ id: 'a', preset: 'supabase', projectRef: 'r', secret: 'short' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: secret must be a string of at least 32 characters',
    ],
    [
      'a bad acceptUntil',
      [{ id: 'a', preset: 'firebase', projectId: 'p', acceptUntil: 'next week' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: acceptUntil must be an ISO 8601 date-time (e.g. 2027-01-31T00:00:00Z)',
    ],
    [
      'an acceptUntil that is no day of the calendar',
      [{ id: 'a', preset: 'firebase', projectId: 'p', acceptUntil: '2027-02-30T00:00:00Z' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: acceptUntil must be an ISO 8601 date-time (e.g. 2027-01-31T00:00:00Z)',
    ],
    [
      'a supabase issuer that is not a URL (its key URL is made from it)',
      [{ id: 'a', preset: 'supabase', issuer: 'auth.example.com/auth/v1' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: issuer must be a URL',
    ],
    [
      'a negative number',
      [{ id: 'a', preset: 'firebase', projectId: 'p', maxTokenAgeSeconds: -1 }],
      `SESSION_EXCHANGE_ISSUERS: issuer a: maxTokenAgeSeconds must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`,
    ],
    [
      'a skew over 300',
      [{ id: 'a', preset: 'firebase', projectId: 'p', clockSkewSeconds: 301 }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: clockSkewSeconds must be an integer from 0 to 300',
    ],
    [
      'a negative cooldown',
      [{ id: 'a', preset: 'firebase', projectId: 'p', keyRefetchCooldownSeconds: -1 }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: keyRefetchCooldownSeconds must be an integer from 0 to 3600',
    ],
    [
      'a key URL that is not a URL',
      [{ id: 'a', preset: 'firebase', projectId: 'p', x509Uri: 'nope' }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: x509Uri must be a URL',
    ],
    [
      'a bad jwks',
      [{ id: 'a', preset: 'oidc', issuer: 'https://x', audiences: ['x'], jwks: [] }],
      'SESSION_EXCHANGE_ISSUERS: issuer a: jwks must be a JWKS ({"keys":[…]})',
    ],
    [
      'an inline jwks without a usable key',
      [
        {
          id: 'a',
          preset: 'oidc',
          issuer: 'https://x',
          audiences: ['x'],
          jwks: {
            keys: [
              { kty: 'oct', k: 'c2VjcmV0' },
              { ...EC_JWK, use: 'enc' },
            ],
          },
        },
      ],
      'SESSION_EXCHANGE_ISSUERS: issuer a: jwks has no usable key (an RSA or EC public key for signatures)',
    ],
  ])('refuses %s with one sentence naming it', (_what, issuers, sentence) => {
    expect(refusal(issuers)).toBe(sentence);
  });

  it('refuses an http key URL in Lambda', () => {
    expect(
      refusal([{ id: 'a', preset: 'auth0', domain: 'x.auth0.com', audience: 'c', jwksUri: 'http://127.0.0.1/j' }], { AWS_LAMBDA_FUNCTION_NAME: 'f' }),
    ).toBe('SESSION_EXCHANGE_ISSUERS: issuer a: jwksUri must be an https URL');
    // A supabase issuer is where its keys are fetched from: the same rule.
    expect(refusal([{ id: 'a', preset: 'supabase', issuer: 'http://127.0.0.1/auth/v1' }], { AWS_LAMBDA_FUNCTION_NAME: 'f' })).toBe(
      'SESSION_EXCHANGE_ISSUERS: issuer a: issuer must be an https URL',
    );
    expect(parse([{ id: 'a', preset: 'supabase', issuer: 'http://127.0.0.1/auth/v1' }])[0]).toMatchObject({
      issuers: ['http://127.0.0.1/auth/v1'],
      keys: { kind: 'jwks', url: 'http://127.0.0.1/auth/v1/.well-known/jwks.json' },
    });
  });

  it("takes a cognito issuer's audiences override as its app client ids", () => {
    const [cog] = parse([{ id: 'c', preset: 'cognito', region: 'r', userPoolId: 'r_P', clientId: 'web', audiences: ['web', 'mobile'], tokenUse: 'any' }]);
    expect(cog).toMatchObject({ audiences: ['web', 'mobile'], cognito: { tokenUse: 'any' } });
  });

  it('a malformed value is a ConfigError', () => {
    expect(sessionExchangeFromEnv({ SESSION_EXCHANGE_ISSUERS: '[{"id":"a","preset":"firebase","projectId":"p"}]' })).toHaveLength(1);
    expect(() => sessionExchangeFromEnv({ SESSION_EXCHANGE_ISSUERS: '{' })).toThrow(ConfigError);
  });
});

describe('the issuers of a Lambda: the context list, then the SSM parameter', () => {
  const PARAMETER = '/auth-core/dev/session_exchange_issuers';
  const fromContext = JSON.stringify([{ id: 'fb', preset: 'firebase', projectId: 'p' }]);
  const fromParameter = JSON.stringify([{ id: 'sb', preset: 'supabase', projectRef: 'ref', secret: 'a-legacy-jwt-secret-of-32-characters-or-more' }]);
  let extension: ParametersExtension | undefined;
  afterEach(async () => {
    await extension?.close();
    extension = undefined;
  });
  const lambdaEnv = (ext: ParametersExtension, env: Record<string, string> = {}) => ({
    ...ext.env,
    AWS_LAMBDA_FUNCTION_NAME: 'auth-core-dev-session-exchange',
    SESSION_EXCHANGE_ISSUERS_PARAMETER: PARAMETER,
    ...env,
  });

  it('reads both, in that order, and keeps them until they are due again', async () => {
    extension = await startParametersExtension({ [PARAMETER]: fromParameter });
    let clock = 0;
    const load = createIssuerLoader(lambdaEnv(extension, { SESSION_EXCHANGE_ISSUERS: fromContext }), undefined, () => clock);
    expect((await load()).map((i) => [i.id, i.keys.kind])).toEqual([
      ['fb', 'x509'],
      ['sb', 'none'],
    ]);
    await load();
    expect(extension.requests.map((r) => r.name)).toEqual([PARAMETER]);
    clock += 5 * 60 * 1000;
    await load();
    expect(extension.requests.map((r) => r.name)).toEqual([PARAMETER, PARAMETER]);
  });

  it('takes a parameter the operator never created as no issuer, and reads nothing without a parameter name', async () => {
    extension = await startParametersExtension({});
    expect((await createIssuerLoader(lambdaEnv(extension, { SESSION_EXCHANGE_ISSUERS: fromContext }))()).map((i) => i.id)).toEqual(['fb']);
    expect(await createIssuerLoader(lambdaEnv(extension))()).toEqual([]);
    const { SESSION_EXCHANGE_ISSUERS_PARAMETER: _, ...withoutName } = lambdaEnv(extension);
    const before = extension.requests.length;
    expect(await createIssuerLoader(withoutName)()).toEqual([]);
    expect(extension.requests).toHaveLength(before);
  });

  it('checks the two lists as one, naming the list a refusal comes from', async () => {
    const same = JSON.stringify([{ id: 'fb', preset: 'oidc', issuer: 'https://id.example', audiences: 'a', jwksUri: 'https://id.example/jwks' }]);
    extension = await startParametersExtension({ [PARAMETER]: same });
    await expect(createIssuerLoader(lambdaEnv(extension, { SESSION_EXCHANGE_ISSUERS: fromContext }))()).rejects.toThrow(
      new ConfigError(`Parameter ${PARAMETER}: issuer fb: id is used twice`),
    );
    await extension.close();
    extension = await startParametersExtension({ [PARAMETER]: '{"id":"x"}' });
    await expect(createIssuerLoader(lambdaEnv(extension))()).rejects.toThrow(new ConfigError(`Parameter ${PARAMETER}: not a JSON array`));
  });

  it('answers a parameter that cannot be read as a ConfigError, and tries again on the next call', async () => {
    extension = await startParametersExtension({ [PARAMETER]: fromParameter });
    extension.failNext(1);
    const load = createIssuerLoader(lambdaEnv(extension));
    await expect(load()).rejects.toBeInstanceOf(ConfigError);
    expect((await load()).map((i) => i.id)).toEqual(['sb']);
  });
});
