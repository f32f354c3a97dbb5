import type { TenantFactorsChange, TenantRecord } from '../model';

/**
 * Tenants and their factors (SPEC §18b); every route checks its tenant exists, so every function
 * bundles this store: it stays small. A tenant's providers (SPEC §22) are `TenantConfigStore`'s.
 */
export interface TenantStore {
  /**
   * Creates a tenant (at `createdAt`) unless it exists, and applies `change` to its factors, in one
   * write; whether it was created.
   */
  putTenant(tenantId: string, createdAt: number, change?: TenantFactorsChange): Promise<boolean>;
  tenantExists(tenantId: string): Promise<boolean>;
  /** Every tenant with its factors (not its providers). */
  listTenants(): Promise<TenantRecord[]>;
}
