import { createSecretKey, type KeyObject } from 'node:crypto';
import type { ExchangeIssuer } from './issuers';
import { keysOfJwks, keysOfX509Map, type IssuerKey } from './public-keys';

/**
 * The verification keys of the old providers (SPEC §19): a JWKS or a Firebase x509 map, fetched on
 * first need and kept per process (a Lambda container) for up to 10 minutes; a `kid` not among them
 * refetches once, unless the last fetch is younger than the issuer's cooldown. A failed fetch keeps
 * nothing and is a `KeysUnavailableError` (a 503), never an invalid token.
 */

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
