import type { TenantConfigRecord } from '../../storage/model';
import type { TenantStore } from '../../storage/ports/tenants';
import type { Deps } from '../deps';

/**
 * How long a container answers a tenant's configuration from memory (SPEC §18b: the SDK asks
 * `GET …/tenant/v2` before every sign-in, code and consume): at most 1 read per tenant per 5 s.
 */
export const TENANT_CACHE_MS = 5_000;

/**
 * At most this many tenants are remembered per container; a new one pushes out the one read
 * longest ago.
 */
export const TENANT_CACHE_MAX = 500;

/**
 * At most this much of providers' stored JSON is remembered per container (SPEC §22: a tenant
 * holds up to 50 providers of 64 KiB, 3.2 MiB): past it, the tenants read longest ago go first.
 * 8 MiB keeps the cache (as objects, two to three times its JSON) well inside a 256 MB function,
 * and holds two tenants at that bound, or 500 of 16 KiB; factor lists are a few KB at most.
 */
export const TENANT_CACHE_MAX_BYTES = 8 * 1024 * 1024;

/** A read of a tenant (its promise, so concurrent requests share it), when it began, and its providers' size once read. */
interface Entry {
  readonly readAt: number;
  readonly tenant: Promise<TenantConfigRecord | undefined>;
  bytes: number;
}

/** A container's cache: tenants by id, in the order read, and the bytes of the providers they hold. */
interface Cache {
  readonly entries: Map<string, Entry>;
  bytes: number;
}

/**
 * One cache per container, keyed by its tenant store: a container builds its stores once
 * (`createRuntimeDeps`), and every function has the tenant store; a test's own store starts with
 * an empty one.
 */
const caches = new WeakMap<TenantStore, Cache>();

function cacheOf(store: TenantStore): Cache {
  let cache = caches.get(store);
  if (!cache) {
    cache = { entries: new Map(), bytes: 0 };
    caches.set(store, cache);
  }
  return cache;
}

function drop(cache: Cache, tenantId: string): void {
  const entry = cache.entries.get(tenantId);
  if (!entry) return;
  cache.bytes -= entry.bytes;
  cache.entries.delete(tenantId);
}

/** Pushes out the tenants read longest ago (entries are in the order read) until both bounds hold, never `keep`. */
function evict(cache: Cache, keep?: string): void {
  for (const [tenantId] of cache.entries) {
    if (cache.entries.size <= TENANT_CACHE_MAX && cache.bytes <= TENANT_CACHE_MAX_BYTES) return;
    if (tenantId !== keep) drop(cache, tenantId);
  }
}

/**
 * A tenant with its configuration and providers (`undefined`: no item of it is stored), read at
 * most once per `TENANT_CACHE_MS` per tenant in this container: an answer may be up to that old
 * (another container's `PUT` shows within it), except after a `PUT` or removal here
 * (`forgetTenant`). A read that fails is not kept.
 */
export function cachedTenant(deps: Pick<Deps, 'tenants' | 'tenantConfigs' | 'clock'>, tenantId: string): Promise<TenantConfigRecord | undefined> {
  const cache = cacheOf(deps.tenants);
  const now = deps.clock.now();
  const hit = cache.entries.get(tenantId);
  // A clock moved back (now < readAt) counts as expired: never older than the bound.
  if (hit && now >= hit.readAt && now - hit.readAt < TENANT_CACHE_MS) return hit.tenant;
  drop(cache, tenantId);
  const entry: Entry = { readAt: now, tenant: deps.tenantConfigs.getTenantConfig(tenantId), bytes: 0 };
  cache.entries.set(tenantId, entry);
  evict(cache, tenantId);
  entry.tenant.then(
    (tenant) => {
      if (cache.entries.get(tenantId) !== entry) return;
      entry.bytes = tenant?.providerBytes ?? 0;
      cache.bytes += entry.bytes;
      evict(cache, tenantId);
    },
    () => {
      if (cache.entries.get(tenantId) === entry) drop(cache, tenantId);
    },
  );
  return entry.tenant;
}

/** Drops what this container remembers of a tenant: its next read asks DynamoDB. */
export function forgetTenant(deps: Pick<Deps, 'tenants'>, tenantId: string): void {
  const cache = caches.get(deps.tenants);
  if (cache) drop(cache, tenantId);
}
