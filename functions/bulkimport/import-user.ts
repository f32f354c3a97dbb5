import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { importUserNow } from '../../lib/recipes/bulkimport/import-now';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';
import { DynamoBulkImportStore } from '../../lib/storage/dynamo/dynamo-bulk-import-store';

/** `POST /bulk-import/import` with one bulk user as the body (SPEC §15). */
export const handle: ApiHandler<'users' | 'metadata' | 'roles' | 'bulkImport'> = (req, deps) => importUserNow(deps, req.body);
export const handler = createHttpHandler('bulkimport-import', { users: DynamoUserStore, metadata: DynamoMetadataStore, roles: DynamoRoleStore, bulkImport: DynamoBulkImportStore }, handle);
