import type { TenantRecord } from '../../storage/model';
import type { TenantStore } from '../../storage/ports/tenants';
import type { Deps } from '../deps';

/**
 * How long a container answers a tenant's configuration from memory (SPEC §18b: the SDK asks
 * `GET …/tenant/v2` before every sign-in, code and consume): at most 1 read per tenant per 5 s.
 */
export const TENANT_CACHE_MS = 5_000;

/**
 * At most this many tenants are remembered per container; a new one pushes out the one read
 * longest ago. An entry is at most two lists of 20 names of 64 characters (about 5 KB), so the
 * cache stays under about 2.5 MB.
 */
export const TENANT_CACHE_MAX = 500;

/** A read of a tenant (its promise, so concurrent requests share it) and when it began. */
interface Entry {
  readonly readAt: number;
  readonly tenant: Promise<TenantRecord | undefined>;
}

/**
 * One cache per store: a container builds its stores once (`createRuntimeDeps`), so this is one
 * per container; a test's own store starts with an empty one. By tenant id, in the order read.
 */
const caches = new WeakMap<TenantStore, Map<string, Entry>>();

function cacheOf(store: TenantStore): Map<string, Entry> {
  let cache = caches.get(store);
  if (!cache) {
    cache = new Map();
    caches.set(store, cache);
  }
  return cache;
}

/**
 * A tenant with its configuration (`undefined`: it does not exist), read at most once per
 * `TENANT_CACHE_MS` per tenant in this container: an answer may be up to that old (another
 * container's `PUT` shows within it), except after a `PUT` or removal here (`forgetTenant`).
 * A read that fails is not kept.
 */
export function cachedTenant(deps: Pick<Deps, 'tenants' | 'clock'>, tenantId: string): Promise<TenantRecord | undefined> {
  const cache = cacheOf(deps.tenants);
  const now = deps.clock.now();
  const hit = cache.get(tenantId);
  // A clock moved back (now < readAt) counts as expired: never older than the bound.
  if (hit && now >= hit.readAt && now - hit.readAt < TENANT_CACHE_MS) return hit.tenant;
  cache.delete(tenantId);
  // Entries are in the order read (a re-read is deleted, then set again): the first is the oldest.
  if (cache.size >= TENANT_CACHE_MAX) cache.delete(cache.keys().next().value as string);
  const entry: Entry = { readAt: now, tenant: deps.tenants.getTenant(tenantId) };
  cache.set(tenantId, entry);
  entry.tenant.catch(() => {
    if (cache.get(tenantId) === entry) cache.delete(tenantId);
  });
  return entry.tenant;
}

/** Drops what this container remembers of a tenant: its next read asks DynamoDB. */
export function forgetTenant(deps: Pick<Deps, 'tenants'>, tenantId: string): void {
  caches.get(deps.tenants)?.delete(tenantId);
}
