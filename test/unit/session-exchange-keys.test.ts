import { generateKeyPairSync } from 'node:crypto';
import { keysOfJwks, keysOfX509Map } from '../../lib/session-exchange/issuer-keys';

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
