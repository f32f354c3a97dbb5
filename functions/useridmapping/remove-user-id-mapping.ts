import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { force, requiredTrimmed, userIdType } from '../../lib/http/useridmapping-input';
import { removeUserIdMapping } from '../../lib/recipes/useridmapping/remove-user-id-mapping';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';
import { DynamoTotpUsage } from '../../lib/storage/dynamo/dynamo-totp-usage';

/** `POST /recipe/userid/map/remove` `{"userId","userIdType"?,"force"?}`. */
export const handle: ApiHandler<'users' | 'metadata' | 'roles' | 'totpUsage'> = (req, deps) =>
  removeUserIdMapping(deps, requiredTrimmed(req.body, 'userId'), userIdType(req.body), force(req.body));
export const handler = createHttpHandler(
  'useridmapping-remove',
  { users: DynamoUserStore, metadata: DynamoMetadataStore, roles: DynamoRoleStore, totpUsage: DynamoTotpUsage },
  handle,
);
