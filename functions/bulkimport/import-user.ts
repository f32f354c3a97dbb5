import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { importUserNow } from '../../lib/recipes/bulkimport/import-now';
import { DynamoUserAccounts } from '../../lib/storage/dynamo/dynamo-user-accounts';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';
import { DynamoRoleReader } from '../../lib/storage/dynamo/dynamo-role-reader';
import { DynamoBulkUserImportStore } from '../../lib/storage/dynamo/dynamo-bulk-user-import-store';

/** `POST /bulk-import/import` with one bulk user as the body (SPEC §15). */
export const handle: ApiHandler<'userAccounts' | 'metadata' | 'roleReader' | 'bulkUserImport'> = (req, deps) => importUserNow(deps, req.body);
export const handler = createHttpHandler(
  'bulkimport-import',
  { userAccounts: DynamoUserAccounts, metadata: DynamoMetadataStore, roleReader: DynamoRoleReader, bulkUserImport: DynamoBulkUserImportStore },
  handle,
);
