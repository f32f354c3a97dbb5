import { randomUUID } from 'node:crypto';
import { startApi, type TestApi } from '../support/api';
import { ecSigner, importMappedUser, rsaSigner, signToken, startKeyServer, type KeyServer, type Signer } from '../support/key-server';

/**
 * SPEC §19's `supabase` preset against tokens shaped as Supabase Auth (GoTrue) issues its access
 * tokens: ES256 or RS256 with a `kid` from the project's signing keys (JWKS at
 * `<iss>/.well-known/jwks.json`, here the `jwksUri` override on a loopback server), or HS256 with the
 * project's legacy JWT secret. Three projects: signing keys only, the legacy secret only, and one in
 * the middle of the move from the one to the other (both).
 */

const EXCHANGE = '/recipe/migration/session/exchange';
const KEYS_REF = 'kqzvbnwexrtylpamsodu';
const LEGACY_REF = 'hfjdkslaqpwoeirutyzm';
const BOTH_REF = 'mnbvcxzlkjhgfdsapoiu';
const issOf = (ref: string) => `https://${ref}.supabase.co/auth/v1`;
const LEGACY_SECRET = 'super-secret-jwt-token-with-at-least-32-characters-long';
const BOTH_SECRET = 'another-legacy-jwt-secret-of-the-project-in-the-middle';

let api: TestApi;
let keys: KeyServer;
let es: Signer;
let rs: Signer;

/** A Supabase access token's claims for `sub` (an `auth.users.id`), as GoTrue writes them after a password sign-in. */
function supabaseClaims(ref: string, sub: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const t = Math.floor(Date.now() / 1000);
  return {
    iss: issOf(ref),
    sub,
    aud: 'authenticated',
    exp: t + 3600,
    iat: t - 5,
    email: `${sub.slice(0, 8)}@example.test`,
    phone: '',
    app_metadata: { provider: 'email', providers: ['email'] },
    user_metadata: { email_verified: true },
    role: 'authenticated',
    aal: 'aal1',
    amr: [{ method: 'password', timestamp: t - 5 }],
    session_id: randomUUID(),
    is_anonymous: false,
    ...extra,
  };
}

const exchange = (token: string) => api.post(EXCHANGE, { token });
const reasonOf = async (token: string) => {
  const res = await exchange(token);
  expect(res.json.status).toBe('INVALID_TOKEN_ERROR');
  return res.json.reason as string;
};

beforeAll(async () => {
  keys = await startKeyServer();
  es = ecSigner('sb-ec-1');
  rs = rsaSigner('sb-rs-1');
  keys.serve('/keys', { keys: [es.jwk, rs.jwk] });
  keys.serve('/both', { keys: [es.jwk, rs.jwk] });
  const issuers = [
    { id: 'sb-keys', preset: 'supabase', projectRef: KEYS_REF, jwksUri: `${keys.base}/keys` },
    { id: 'sb-legacy', preset: 'supabase', projectRef: LEGACY_REF, secret: LEGACY_SECRET },
    {
      id: 'sb-both',
      preset: 'supabase',
      projectRef: BOTH_REF,
      jwksUri: `${keys.base}/both`,
      secret: BOTH_SECRET,
      algorithms: ['ES256', 'RS256', 'HS256'],
    },
  ];
  api = await startApi({ SESSION_EXCHANGE_ISSUERS: JSON.stringify(issuers) });
});

afterAll(async () => {
  await api?.stop();
  await keys?.stop();
});

describe('POST /recipe/migration/session/exchange with Supabase tokens (SPEC §19, preset supabase)', () => {
  // First: the key server has seen no request at all yet.
  it('exchanges an HS256 token with the legacy secret without fetching any key', async () => {
    const sub = randomUUID();
    await importMappedUser(api, sub);
    const res = await exchange(await signToken({ alg: 'HS256', secret: LEGACY_SECRET }, supabaseClaims(LEGACY_REF, sub), { typ: 'JWT' }));
    expect(res.json).toMatchObject({ status: 'OK', recipeUserId: sub, externalUserId: sub, issuer: 'sb-legacy' });
    // Supabase tokens carry no auth_time (their sign-in time is in `amr`), so no authTime.
    expect(res.json.authTime).toBeUndefined();
    expect(keys.fetches()).toBe(0);
    // Another secret's token: refused, still without a fetch.
    expect(await reasonOf(await signToken({ alg: 'HS256', secret: BOTH_SECRET }, supabaseClaims(LEGACY_REF, sub)))).toBe("The token's signature is invalid");
    // The project's signing keys are not accepted by an issuer configured with its secret only.
    expect(await reasonOf(await signToken(es, supabaseClaims(LEGACY_REF, sub)))).toBe("The token's algorithm is not accepted");
    expect(keys.fetches()).toBe(0);
  });

  it('exchanges ES256 and RS256 tokens of the signing keys (JWKS), once each', async () => {
    const sub = randomUUID();
    await importMappedUser(api, sub);
    const token = await signToken(es, supabaseClaims(KEYS_REF, sub), { typ: 'JWT' });
    const res = await exchange(token);
    expect(res.json).toMatchObject({ status: 'OK', externalUserId: sub, tenantId: 'public', issuer: 'sb-keys' });
    expect(res.json.user.loginMethods.map((lm: { recipeUserId: string }) => lm.recipeUserId)).toContain(sub);
    expect(keys.fetches('/keys')).toBe(1);
    expect((await exchange(token)).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
    expect((await exchange(await signToken(rs, supabaseClaims(KEYS_REF, sub)))).json).toMatchObject({ status: 'OK', issuer: 'sb-keys' });
    expect(keys.fetches('/keys')).toBe(1);
  });

  it('refuses an HS256 token under the signing keys only, whatever it is signed with', async () => {
    const sub = randomUUID();
    await importMappedUser(api, sub);
    const algorithm = "The token's algorithm is not accepted";
    expect(await reasonOf(await signToken({ alg: 'HS256', secret: LEGACY_SECRET }, supabaseClaims(KEYS_REF, sub)))).toBe(algorithm);
    // The key confusion attack: the published public key (PEM, or its JWK's JSON) as the HMAC secret, with its kid.
    const pem = rs.publicKey.export({ format: 'pem', type: 'spki' });
    expect(await reasonOf(await signToken({ alg: 'HS256', secret: pem, kid: rs.kid }, supabaseClaims(KEYS_REF, sub)))).toBe(algorithm);
    expect(await reasonOf(await signToken({ alg: 'HS256', secret: JSON.stringify(es.jwk), kid: es.kid }, supabaseClaims(KEYS_REF, sub)))).toBe(algorithm);
  });

  it('during the move from the legacy secret to signing keys, accepts both, and never a public key as the HMAC secret', async () => {
    const sub = randomUUID();
    await importMappedUser(api, sub);
    expect((await exchange(await signToken({ alg: 'HS256', secret: BOTH_SECRET }, supabaseClaims(BOTH_REF, sub)))).json).toMatchObject({
      status: 'OK',
      issuer: 'sb-both',
    });
    expect((await exchange(await signToken(es, supabaseClaims(BOTH_REF, sub)))).json).toMatchObject({ status: 'OK', issuer: 'sb-both' });
    // HS256 here is accepted, but verified only with the configured secret, never with a key of the JWKS.
    const signature = "The token's signature is invalid";
    for (const secret of [
      rs.publicKey.export({ format: 'pem', type: 'spki' }),
      rs.publicKey.export({ format: 'pem', type: 'pkcs1' }),
      JSON.stringify(rs.jwk),
    ]) {
      expect(await reasonOf(await signToken({ alg: 'HS256', secret, kid: rs.kid }, supabaseClaims(BOTH_REF, sub)))).toBe(signature);
    }
    expect(
      await reasonOf(
        await signToken({ alg: 'HS256', secret: es.publicKey.export({ format: 'pem', type: 'spki' }), kid: es.kid }, supabaseClaims(BOTH_REF, sub)),
      ),
    ).toBe(signature);
  });

  it("checks Supabase's audience and issuer: a token for another audience, and the project's anon API key", async () => {
    const sub = randomUUID();
    await importMappedUser(api, sub);
    expect(await reasonOf(await signToken(es, supabaseClaims(KEYS_REF, sub, { aud: 'anon' })))).toBe("The token's audience is not accepted");
    // The anon key is a JWT too (`iss: "supabase"`, `role: "anon"`, no `sub`): sent by mistake, its issuer is unknown.
    const t = Math.floor(Date.now() / 1000);
    const anonKey = await signToken(
      { alg: 'HS256', secret: LEGACY_SECRET },
      { iss: 'supabase', ref: LEGACY_REF, role: 'anon', iat: t - 100, exp: t + 10 * 365 * 86400 },
    );
    expect((await exchange(anonKey)).json).toEqual({ status: 'UNKNOWN_ISSUER_ERROR' });
    // A token of another project with the same secret: its issuer is not configured.
    expect((await exchange(await signToken({ alg: 'HS256', secret: LEGACY_SECRET }, supabaseClaims('otherprojectrefxxxxx', sub)))).json).toEqual({
      status: 'UNKNOWN_ISSUER_ERROR',
    });
  });
});
