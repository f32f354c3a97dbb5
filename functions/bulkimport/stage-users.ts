import { idempotencyKeyOf, usersOf } from '../../lib/http/bulkimport-input';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { stageUsers } from '../../lib/recipes/bulkimport/stage-users';
import { DynamoRoleReader } from '../../lib/storage/dynamo/dynamo-role-reader';
import { DynamoBulkImportStore } from '../../lib/storage/dynamo/dynamo-bulk-import-store';

/** `POST /bulk-import/users` `{"users":[…]}` (SPEC §15), with an optional `idempotency-key` header. */
export const handle: ApiHandler<'roleReader' | 'bulkImport'> = (req, deps) => stageUsers(deps, usersOf(req.body), idempotencyKeyOf(req.headers));
export const handler = createHttpHandler('bulkimport-stage', { roleReader: DynamoRoleReader, bulkImport: DynamoBulkImportStore }, handle);
