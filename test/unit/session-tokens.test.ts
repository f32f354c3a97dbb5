import { ConfigError, sessionConfigFromEnv } from '../../lib/config/config';
import { cryptoRandom } from '../../lib/recipes/deps';
import { keyLifetimeMs, liveDynamicKeys, nextKeyDueAt, publishLeadMs, signingKeyOf } from '../../lib/recipes/session/key-ring';
import { CompactSign } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import type { KeyRing } from '../../lib/recipes/session/key-ring';
import { InvalidAccessToken, openRefreshToken, sealRefreshToken, verifyAccessToken } from '../../lib/recipes/session/tokens';

describe('session settings (SPEC §18)', () => {
  it("defaults to the core's: 3600 s, 144000 min, 168 h", () => {
    expect(sessionConfigFromEnv({})).toEqual({
      accessTokenValidityMs: 3_600_000,
      refreshTokenValidityMs: 144_000 * 60_000,
      keyUpdateIntervalMs: 168 * 3_600_000,
    });
  });

  it('takes decimals for the refresh validity and the key interval, and refuses what is malformed by name', () => {
    const c = sessionConfigFromEnv({
      ACCESS_TOKEN_VALIDITY: '10',
      REFRESH_TOKEN_VALIDITY: '0.4',
      ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL: '0.0027778',
    });
    expect(c).toEqual({ accessTokenValidityMs: 10_000, refreshTokenValidityMs: 24_000, keyUpdateIntervalMs: 10_000 });
    for (const [name, bad] of [
      ['ACCESS_TOKEN_VALIDITY', '1.5'],
      ['ACCESS_TOKEN_VALIDITY', '0'],
      ['REFRESH_TOKEN_VALIDITY', 'soon'],
      ['REFRESH_TOKEN_VALIDITY', '-1'],
      ['ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL', '0'],
      ['ACCESS_TOKEN_DYNAMIC_SIGNING_KEY_UPDATE_INTERVAL', '1e3'],
    ]) {
      expect(() => sessionConfigFromEnv({ [name]: bad })).toThrow(new RegExp(`^${name} must be`));
    }
    expect(() => sessionConfigFromEnv({ ACCESS_TOKEN_VALIDITY: '60', REFRESH_TOKEN_VALIDITY: '1' })).toThrow(ConfigError);
  });
});

describe('the rotation of dynamic keys', () => {
  const t = { intervalMs: 100_000, accessTokenValidityMs: 10_000 };
  const key = (createdAt: number, generation: number) => ({ kid: `d-${createdAt}`, createdAt, generation, privateKey: '', publicKey: '' });

  it('publishes a key P before it signs, P = min(60 s, I/2); keeps old ones for I + 2V', () => {
    expect(publishLeadMs(t)).toBe(50_000);
    expect(publishLeadMs({ intervalMs: 3_600_000, accessTokenValidityMs: 1 })).toBe(60_000);
    expect(keyLifetimeMs(t)).toBe(120_000);
    const k0 = key(0, 0);
    const k1 = key(50_000, 1);
    // The very first key signs at once; the next is due at I − P.
    expect(signingKeyOf([k0], 0, t)).toBe(k0);
    expect(nextKeyDueAt([k0], t)).toBe(50_000);
    // A new key is published but does not sign until it is P old; then it does.
    expect(signingKeyOf(liveDynamicKeys([k0, k1], 60_000, t), 60_000, t)).toBe(k0);
    expect(signingKeyOf(liveDynamicKeys([k0, k1], 100_000, t), 100_000, t)).toBe(k1);
    // The old key stays valid until its creation + I + 2V, then leaves.
    expect(liveDynamicKeys([k0, k1], 119_999, t).map((k) => k.kid)).toEqual(['d-50000', 'd-0']);
    expect(liveDynamicKeys([k0, k1], 120_000, t).map((k) => k.kid)).toEqual(['d-50000']);
    // A key made late (after a long idle spell) signs at once when the previous one is older than I.
    const late = key(500_000, 2);
    expect(signingKeyOf(liveDynamicKeys([k1, late], 500_001, t), 500_001, t)).toBe(late);
    expect(nextKeyDueAt([], t)).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe('refresh tokens', () => {
  const key = cryptoRandom.bytes(32);

  it('open to what was sealed, and to nothing when altered or sealed with another key', () => {
    const token = sealRefreshToken(key, { sessionHandle: 'h-1', parentRefreshTokenHash1: 'p', antiCsrfToken: 'a' }, cryptoRandom);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.V2$/);
    expect(openRefreshToken(key, token)).toEqual({ sessionHandle: 'h-1', parentRefreshTokenHash1: 'p', antiCsrfToken: 'a' });
    expect(openRefreshToken(cryptoRandom.bytes(32), token)).toBeUndefined();
    const body = token.slice(0, -3);
    // Every seventh character but the last (whose low bits may be padding that decodes alike).
    for (let i = 0; i < body.length - 1; i += 7) {
      const flipped = body.slice(0, i) + (body[i] === 'A' ? 'B' : 'A') + body.slice(i + 1);
      expect(openRefreshToken(key, `${flipped}.V2`)).toBeUndefined();
    }
    for (const junk of ['', '.V2', 'abc', `${body}.V1`, `${body}=.V2`, 'A'.repeat(30) + '.V2']) expect(openRefreshToken(key, junk)).toBeUndefined();
    // Two tokens of one session differ (random IV and nonce).
    expect(sealRefreshToken(key, { sessionHandle: 'h-1' }, cryptoRandom)).not.toBe(sealRefreshToken(key, { sessionHandle: 'h-1' }, cryptoRandom));
  });
});

describe("an access token's header version (SPEC §18 Tokens)", () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ring = { verifier: async (kid: string) => (kid === 'k' ? publicKey : undefined) } as unknown as KeyRing;
  const now = Date.now();
  const claims = {
    sub: 'u',
    exp: Math.floor(now / 1000) + 60,
    iat: Math.floor(now / 1000),
    tId: 'public',
    rsub: 'u',
    sessionHandle: 'h',
    refreshTokenHash1: 'r',
    parentRefreshTokenHash1: null,
    antiCsrfToken: null,
  };
  const signed = (header: Record<string, unknown>) =>
    new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: 'k', ...header }).sign(privateKey);

  it('reads a missing version as "5", as the core reads a JWT the session recipe did not make', async () => {
    for (const header of [{ version: '5' }, {}]) {
      expect(await verifyAccessToken(ring, await signed(header), now)).toMatchObject({ userId: 'u', sessionHandle: 'h', userData: {} });
    }
  });

  it.each([['1'], ['2'], ['3'], ['4'], ['6'], [5], [null], [['5']], [{}]])('refuses version %j', async (version) => {
    await expect(verifyAccessToken(ring, await signed({ version }), now)).rejects.toThrow(InvalidAccessToken);
  });
});
