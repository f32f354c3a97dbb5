import { createConfigLoader, type Config } from '../config/config';
import { cryptoRandom, systemClock, type Deps } from '../recipes/deps';
import { createDynamoContext, createDynamoStores } from '../storage/dynamo';

/** Loads configuration and builds the dependencies; called once per cold start, then cached. */
export type DepsLoader = () => Promise<Deps>;

/**
 * The production dependencies: configuration from the environment and SSM, stores on DynamoDB.
 * Config is re-read when its secret cache expires (key rotation); stores are built once.
 */
export function createRuntimeDeps(loadConfig = createConfigLoader()): DepsLoader {
  let stores: Omit<Deps, 'config' | 'clock' | 'random'> | undefined;
  return async () => {
    const config: Config = await loadConfig();
    stores ??= createDynamoStores(createDynamoContext(config.tableName));
    return { ...stores, config, clock: systemClock, random: cryptoRandom };
  };
}
