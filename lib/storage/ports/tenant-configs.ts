import type { TenantConfigRecord, ThirdPartyProvider } from '../model';

/** A write of a tenant's providers: `STALE` when the list changed since it was read, or the tenant went. */
export type ProvidersWriteResult = 'OK' | 'STALE';

/**
 * A tenant's login configuration with its third-party providers (SPEC §22): what `GET …/tenant/v2`
 * and the list answer, the providers' writes, and a tenant's removal (which takes its providers).
 */
export interface TenantConfigStore {
  /**
   * A tenant with its providers in their order, read consistently in one call (while they take
   * under 1 MB; one more call per further MB); `undefined` when no item of it is stored.
   */
  getTenantConfig(tenantId: string): Promise<TenantConfigRecord | undefined>;
  /**
   * Every tenant with its providers; `undefined` when their stored JSON takes more than
   * `maxBytes` (the read stops there).
   */
  listTenantConfigs(maxBytes: number): Promise<TenantConfigRecord[] | undefined>;
  /**
   * Puts `provider` (new, or over the one with its id) and makes `order` the tenant's list of
   * provider ids, in one transaction, only while that list is at `version` (0: never written).
   * With `createdAt`, a tenant without an item gets one (`public`); without, the tenant must exist.
   */
  putProvider(tenantId: string, version: number, order: readonly string[], provider: ThirdPartyProvider, createdAt?: number): Promise<ProvidersWriteResult>;
  /** Deletes the provider `thirdPartyId` and makes `order` the tenant's list, only while that list is at `version`. */
  removeProvider(tenantId: string, version: number, order: readonly string[], thirdPartyId: string): Promise<ProvidersWriteResult>;
  /** Removes a tenant with its providers; `false` if it did not exist. */
  removeTenant(tenantId: string): Promise<boolean>;
}
