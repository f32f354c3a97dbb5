import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';

/**
 * An old provider's public keys as published (a JWKS, or Firebase's map of x509 certificates),
 * imported as the `node:crypto` keys a token is verified with. No I/O: `./issuer-keys.ts` fetches
 * and caches them, `./issuers.ts` imports an issuer's inline JWKS when the list is read.
 */

export interface IssuerKey {
  readonly kid: string | undefined;
  readonly key: KeyObject;
  /** The key's `alg` when the JWKS gives one. */
  readonly alg: string | undefined;
}

/** A JWKS's usable keys: RSA and EC P-256/P-384 signing keys (`use`, when present, must be `sig`). */
export function keysOfJwks(jwks: unknown): IssuerKey[] {
  const list = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(list)) return [];
  const out: IssuerKey[] = [];
  for (const jwk of list as Record<string, unknown>[]) {
    if (jwk === null || typeof jwk !== 'object') continue;
    if (jwk.use !== undefined && jwk.use !== 'sig') continue;
    if (jwk.kty !== 'RSA' && jwk.kty !== 'EC') continue;
    try {
      // Only the public part: a private JWK's `d` is dropped before import.
      const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...pub } = jwk;
      const key = createPublicKey({ key: pub as import('node:crypto').JsonWebKey, format: 'jwk' });
      out.push({ kid: typeof jwk.kid === 'string' ? jwk.kid : undefined, key, alg: typeof jwk.alg === 'string' ? jwk.alg : undefined });
    } catch {
      // Not a key this service can use: skipped, as an unknown key type would be.
    }
  }
  return out;
}

/** A Firebase x509 map's keys: each certificate's public key (its dates are ignored). */
export function keysOfX509Map(map: unknown): IssuerKey[] {
  if (map === null || typeof map !== 'object' || Array.isArray(map)) return [];
  const out: IssuerKey[] = [];
  for (const [kid, pem] of Object.entries(map as Record<string, unknown>)) {
    if (typeof pem !== 'string') continue;
    try {
      out.push({ kid, key: new X509Certificate(pem).publicKey, alg: undefined });
    } catch {
      // Not a certificate: skipped.
    }
  }
  return out;
}
