import { createConfigLoader, type Config } from '../config/config';
import { cryptoRandom, systemClock, type Deps } from '../recipes/deps';
import { createDynamoContext, type DynamoContext } from '../storage/dynamo/transact';
import { DynamoTenantStore } from '../storage/dynamo/dynamo-tenant-store';
import type { Stores } from '../storage/ports/stores';

export type StoreName = keyof Stores;

/**
 * The stores a function uses, each by its DynamoDB class. A function names only those, so its
 * bundle carries only their code (issue #15: the other stores were ~18 KB of every bundle); the
 * types make a recipe that needs a store the function did not name fail to compile.
 */
export type StoreClasses<K extends StoreName> = { readonly [N in K]: new (ctx: DynamoContext) => Stores[N] };

/** What a function's code may use: the stores it named, the tenants (every route checks its tenant), config, clock, randomness. */
export type DepsWith<K extends StoreName> = Pick<Deps, K | 'tenants' | 'config' | 'clock' | 'random'>;

/** Loads configuration and builds the dependencies; called once per cold start, then cached. */
export type DepsLoader<K extends StoreName = StoreName> = () => Promise<DepsWith<K>>;

/**
 * The production dependencies: configuration from the environment and SSM, the named stores on
 * DynamoDB. Config is re-read when its secret cache expires (key rotation); stores are built once.
 */
export function createRuntimeDeps<K extends StoreName>(classes: StoreClasses<K>, loadConfig = createConfigLoader()): DepsLoader<K> {
  let stores: Pick<Stores, K | 'tenants'> | undefined;
  return async () => {
    const config: Config = await loadConfig();
    if (!stores) {
      const ctx = createDynamoContext(config.tableName);
      const all: Record<string, unknown> = { tenants: DynamoTenantStore, ...classes };
      stores = Object.fromEntries(Object.entries(all).map(([name, Store]) => [name, new (Store as new (c: DynamoContext) => unknown)(ctx)])) as Pick<
        Stores,
        K | 'tenants'
      >;
    }
    return { ...stores, config, clock: systemClock, random: cryptoRandom } as DepsWith<K>;
  };
}
