import { createPublicKey, createSecretKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { ExchangeIssuer } from '../config/session-exchange';

/**
 * The verification keys of the old providers (SPEC §19): a JWKS or a Firebase x509 map, fetched on
 * first need and kept per process (a Lambda container) for up to 10 minutes; a `kid` not among them
 * refetches once, unless the last fetch is younger than the issuer's cooldown. A failed fetch keeps
 * nothing and is a `KeysUnavailableError` (a 503), never an invalid token.
 */

export interface IssuerKey {
  readonly kid: string | undefined;
  readonly key: KeyObject;
  /** The key's `alg` when the JWKS gives one. */
  readonly alg: string | undefined;
}

export class KeysUnavailableError extends Error {
  constructor(
    readonly issuerId: string,
    readonly causeText: string,
  ) {
    super(`The token issuer's keys could not be fetched, try again later`);
    this.name = 'KeysUnavailableError';
  }
}

export const KEY_FETCH_TIMEOUT_MS = 5000;
const CACHE_MAX_AGE_MS = 10 * 60 * 1000;

interface Cached {
  readonly keys: readonly IssuerKey[];
  readonly at: number;
}

/** Per process: issuer id and URL → the keys last fetched. */
const cache = new Map<string, Cached>();
/** Fetches under way, so racing exchanges of one container share one request. */
const pending = new Map<string, Promise<Cached>>();

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

async function fetchKeys(issuer: ExchangeIssuer, kind: 'jwks' | 'x509', url: string): Promise<IssuerKey[]> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(KEY_FETCH_TIMEOUT_MS), redirect: 'error' });
  } catch (err) {
    const name = err instanceof Error ? err.name : 'error';
    throw new KeysUnavailableError(issuer.id, name === 'TimeoutError' ? 'timeout' : `request failed (${name})`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new KeysUnavailableError(issuer.id, `HTTP ${res.status}`);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new KeysUnavailableError(issuer.id, 'not JSON');
  }
  const keys = kind === 'jwks' ? keysOfJwks(body) : keysOfX509Map(body);
  if (keys.length === 0) throw new KeysUnavailableError(issuer.id, 'no usable key');
  return keys;
}

/**
 * The issuer's keys for a token of `kid`: from the cache while fresh; fetched when none are cached
 * or they are older than 10 minutes; refetched once for an unknown `kid` past the cooldown.
 */
export async function issuerKeys(issuer: ExchangeIssuer, kid: string | undefined, now: number): Promise<readonly IssuerKey[]> {
  const source = issuer.keys;
  if (source.kind === 'none') return [];
  if (source.kind === 'inline') return source.keys;
  const cacheKey = `${issuer.id} ${source.url}`;
  const load = (): Promise<Cached> => {
    let p = pending.get(cacheKey);
    if (!p) {
      p = fetchKeys(issuer, source.kind, source.url)
        .then((keys) => {
          const entry = { keys, at: now };
          cache.set(cacheKey, entry);
          return entry;
        })
        .finally(() => pending.delete(cacheKey));
      pending.set(cacheKey, p);
    }
    return p;
  };
  let entry = cache.get(cacheKey);
  if (!entry || now - entry.at > CACHE_MAX_AGE_MS) entry = await load();
  if (kid !== undefined && !entry.keys.some((k) => k.kid === kid) && now - entry.at >= issuer.keyRefetchCooldownSeconds * 1000) {
    entry = await load();
  }
  return entry.keys;
}

/** The inline HS256 secret as a key. */
export const secretKeyOf = (secret: string): KeyObject => createSecretKey(Buffer.from(secret, 'utf8'));
