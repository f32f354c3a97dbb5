import type { TenantFactorsChange, TenantRecord } from '../model';

/** Tenants and their factors (SPEC §18b); every route checks its tenant exists. */
export interface TenantStore {
  /**
   * Creates a tenant (at `createdAt`) unless it exists, and applies `change` to its factors, in one
   * write; whether it was created.
   */
  putTenant(tenantId: string, createdAt: number, change?: TenantFactorsChange): Promise<boolean>;
  /** A tenant with its configuration, read consistently; `undefined` when it does not exist. */
  getTenant(tenantId: string): Promise<TenantRecord | undefined>;
  tenantExists(tenantId: string): Promise<boolean>;
  listTenants(): Promise<TenantRecord[]>;
  /** Removes a tenant; `false` if it did not exist. */
  removeTenant(tenantId: string): Promise<boolean>;
}
