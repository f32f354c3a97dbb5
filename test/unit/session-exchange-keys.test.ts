import { generateKeyPairSync } from 'node:crypto';
import type { ExchangeIssuer } from '../../lib/session-exchange/issuers';
import { issuerKeys } from '../../lib/session-exchange/issuer-keys';
import { keysOfJwks, keysOfX509Map } from '../../lib/session-exchange/public-keys';
import { rsaSigner, startKeyServer, type KeyServer } from '../support/key-server';

describe('the exchange reads issuer keys (SPEC §19)', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

  it('takes RSA and EC signing keys of a JWKS, honouring use and alg', () => {
    const keys = keysOfJwks({
      keys: [
        { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'r', alg: 'RS256', use: 'sig' },
        { ...ec.publicKey.export({ format: 'jwk' }), kid: 'e' },
        { ...rsa.publicKey.export({ format: 'jwk' }), kid: 'enc', use: 'enc' },
        { kty: 'oct', k: 'c2VjcmV0', kid: 'o' },
        { kty: 'RSA', kid: 'broken', n: 'x' },
        null,
      ],
    });
    expect(keys.map((k) => [k.kid, k.alg, k.key.asymmetricKeyType])).toEqual([
      ['r', 'RS256', 'rsa'],
      ['e', undefined, 'ec'],
    ]);
  });

  it('keeps only the public half of a private JWK', () => {
    const [key] = keysOfJwks({ keys: [{ ...rsa.privateKey.export({ format: 'jwk' }), kid: 'p' }] });
    expect(key.key.type).toBe('public');
  });

  it('answers no key for what is not a JWKS or an x509 map', () => {
    expect(keysOfJwks(null)).toEqual([]);
    expect(keysOfJwks({ keys: 'x' })).toEqual([]);
    expect(keysOfX509Map([])).toEqual([]);
    expect(keysOfX509Map({ a: 'not a certificate', b: 5 })).toEqual([]);
  });
});

describe('the exchange keeps fetched issuer keys (SPEC §19)', () => {
  const MINUTE = 60_000;
  const signer = rsaSigner('cache-1');
  const next = rsaSigner('cache-2');
  let server: KeyServer;
  beforeAll(async () => {
    server = await startKeyServer();
  });
  afterAll(() => server.stop());

  /** An issuer of its own JWKS path (the cache is per process, by issuer id and URL). */
  const issuerAt = (path: string, keyRefetchCooldownSeconds = 30): ExchangeIssuer => ({
    id: path.slice(1),
    preset: 'oidc',
    issuers: [`https://${path.slice(1)}.example.test`],
    audiences: ['app'],
    keys: { kind: 'jwks', url: `${server.base}${path}` },
    secret: undefined,
    algorithms: ['RS256'],
    maxTokenAgeSeconds: undefined,
    acceptUntil: undefined,
    externalIdClaim: 'sub',
    clockSkewSeconds: 60,
    keyRefetchCooldownSeconds,
  });
  const kids = (keys: readonly { kid: string | undefined }[]) => keys.map((k) => k.kid);

  it('uses the keys for 10 minutes, then fetches them once again', async () => {
    server.serve('/ten', { keys: [signer.jwk] });
    const issuer = issuerAt('/ten');
    expect(kids(await issuerKeys(issuer, signer.kid, Date.now()))).toEqual([signer.kid]);
    expect(server.fetches('/ten')).toBe(1);
    // Changed at the source: unseen while the cache is younger than 10 minutes.
    server.serve('/ten', { keys: [signer.jwk, next.jwk] });
    expect(kids(await issuerKeys(issuer, signer.kid, Date.now() + 9 * MINUTE))).toEqual([signer.kid]);
    expect(kids(await issuerKeys(issuer, undefined, Date.now() + 9 * MINUTE))).toEqual([signer.kid]);
    expect(server.fetches('/ten')).toBe(1);
    expect(kids(await issuerKeys(issuer, signer.kid, Date.now() + 11 * MINUTE))).toEqual([signer.kid, next.kid]);
    expect(server.fetches('/ten')).toBe(2);
    // Fresh again.
    expect(kids(await issuerKeys(issuer, next.kid, Date.now() + MINUTE))).toEqual([signer.kid, next.kid]);
    expect(server.fetches('/ten')).toBe(2);
  });

  it('refetches for an unknown kid only past the cooldown', async () => {
    server.serve('/cooldown', { keys: [signer.jwk] });
    const issuer = issuerAt('/cooldown', 30);
    await issuerKeys(issuer, signer.kid, Date.now());
    server.serve('/cooldown', { keys: [signer.jwk, next.jwk] });
    expect(kids(await issuerKeys(issuer, next.kid, Date.now() + 10_000))).toEqual([signer.kid]);
    expect(server.fetches('/cooldown')).toBe(1);
    expect(kids(await issuerKeys(issuer, next.kid, Date.now() + 40_000))).toEqual([signer.kid, next.kid]);
    expect(server.fetches('/cooldown')).toBe(2);
  });

  it('keeps nothing of a failed fetch: the next need fetches again', async () => {
    const issuer = issuerAt('/flaky');
    await expect(issuerKeys(issuer, signer.kid, Date.now())).rejects.toMatchObject({ name: 'KeysUnavailableError', issuerId: 'flaky', causeText: 'HTTP 503' });
    server.serve('/flaky', { keys: [signer.jwk] });
    expect(kids(await issuerKeys(issuer, signer.kid, Date.now()))).toEqual([signer.kid]);
    expect(server.fetches('/flaky')).toBe(2);
  });
});
