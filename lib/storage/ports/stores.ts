import type { BulkImportStore } from './bulk-import';
import type { BulkUserImportStore } from './bulk-user-import';
import type { BulkWorkerStore } from './bulk-worker';
import type { EmailVerificationStore } from './email-verification';
import type { MetadataStore } from './metadata';
import type { PasswordResetStore } from './password-reset';
import type { PasswordlessStore } from './passwordless';
import type { RoleReader, RoleStore } from './roles';
import type { SessionStore } from './sessions';
import type { TenantConfigStore } from './tenant-configs';
import type { TenantStore } from './tenants';
import type { TotpStore, TotpUsage } from './totp';
import type { UserLists } from './user-lists';
import type { UserLookups } from './user-lookups';
import type { UserSearch } from './user-search';
import type { UserAccounts, UserStore } from './users';
import type { WebauthnStore } from './webauthn';
import type { WebauthnRecoveryStore } from './webauthn-recovery';

/** Every storage port, by the name a recipe's `Deps` gives it. */
export interface Stores {
  readonly bulkImport: BulkImportStore;
  readonly bulkUserImport: BulkUserImportStore;
  readonly bulkWorker: BulkWorkerStore;
  readonly roles: RoleStore;
  readonly roleReader: RoleReader;
  readonly users: UserStore;
  readonly userAccounts: UserAccounts;
  readonly userLookups: UserLookups;
  readonly userLists: UserLists;
  readonly metadata: MetadataStore;
  readonly emailVerification: EmailVerificationStore;
  readonly passwordReset: PasswordResetStore;
  readonly passwordless: PasswordlessStore;
  readonly tenants: TenantStore;
  readonly tenantConfigs: TenantConfigStore;
  readonly totp: TotpStore;
  readonly totpUsage: TotpUsage;
  readonly sessions: SessionStore;
  readonly userSearch: UserSearch;
  readonly webauthn: WebauthnStore;
  readonly webauthnRecovery: WebauthnRecoveryStore;
}
