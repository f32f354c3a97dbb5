import type { Stores } from '../ports/stores';
import { DynamoBulkImportStore } from './dynamo-bulk-import-store';
import { DynamoBulkRowImportStore } from './dynamo-bulk-row-import-store';
import { DynamoBulkWorkerStore } from './dynamo-bulk-worker-store';
import { DynamoEmailVerificationStore } from './dynamo-email-verification-store';
import { DynamoMetadataStore } from './dynamo-metadata-store';
import { DynamoPasswordlessStore } from './dynamo-passwordless-store';
import { DynamoPasswordResetStore } from './dynamo-password-reset-store';
import { DynamoRoleReader } from './dynamo-role-reader';
import { DynamoRoleStore } from './dynamo-role-store';
import { DynamoSessionStore } from './dynamo-session-store';
import { DynamoTenantConfigStore } from './dynamo-tenant-config-store';
import { DynamoTenantStore } from './dynamo-tenant-store';
import { DynamoTotpStore } from './dynamo-totp-store';
import { DynamoTotpUsage } from './dynamo-totp-usage';
import { DynamoUserSearch } from './dynamo-user-search';
import { DynamoUserAccounts } from './dynamo-user-accounts';
import { DynamoUserLists } from './dynamo-user-lists';
import { DynamoUserLookups } from './dynamo-user-lookups';
import { DynamoUserStore } from './dynamo-user-store';
import { DynamoWebauthnStore } from './dynamo-webauthn-store';
import { DynamoWebauthnRecoveryStore } from './dynamo-webauthn-recovery-store';
import { createDynamoContext, type DynamoContext } from './transact';

export { createDynamoContext, type DynamoContext };

/** Every store on one DynamoDB table. */
export function createDynamoStores(ctx: DynamoContext): Stores {
  return {
    users: new DynamoUserStore(ctx),
    userAccounts: new DynamoUserAccounts(ctx),
    userLookups: new DynamoUserLookups(ctx),
    userLists: new DynamoUserLists(ctx),
    metadata: new DynamoMetadataStore(ctx),
    emailVerification: new DynamoEmailVerificationStore(ctx),
    roles: new DynamoRoleStore(ctx),
    roleReader: new DynamoRoleReader(ctx),
    passwordless: new DynamoPasswordlessStore(ctx),
    passwordReset: new DynamoPasswordResetStore(ctx),
    tenants: new DynamoTenantStore(ctx),
    tenantConfigs: new DynamoTenantConfigStore(ctx),
    totp: new DynamoTotpStore(ctx),
    totpUsage: new DynamoTotpUsage(ctx),
    sessions: new DynamoSessionStore(ctx),
    userSearch: new DynamoUserSearch(ctx),
    bulkImport: new DynamoBulkImportStore(ctx),
    bulkUserImport: new DynamoBulkRowImportStore(ctx),
    bulkWorker: new DynamoBulkWorkerStore(ctx),
    webauthn: new DynamoWebauthnStore(ctx),
    webauthnRecovery: new DynamoWebauthnRecoveryStore(ctx),
  };
}
