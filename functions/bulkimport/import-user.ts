import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { importUserNow } from '../../lib/recipes/bulkimport/import-now';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';
import { DynamoBulkUserImportStore } from '../../lib/storage/dynamo/dynamo-bulk-user-import-store';

/** `POST /bulk-import/import` with one bulk user as the body (SPEC §15). */
export const handle: ApiHandler<'users' | 'metadata' | 'roles' | 'bulkUserImport'> = (req, deps) => importUserNow(deps, req.body);
export const handler = createHttpHandler('bulkimport-import', { users: DynamoUserStore, metadata: DynamoMetadataStore, roles: DynamoRoleStore, bulkUserImport: DynamoBulkUserImportStore }, handle);
