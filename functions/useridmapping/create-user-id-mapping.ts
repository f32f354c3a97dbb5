import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { externalUserIdInfo, force, requiredTrimmed } from '../../lib/http/useridmapping-input';
import { createUserIdMapping } from '../../lib/recipes/useridmapping/create-user-id-mapping';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoMetadataStore } from '../../lib/storage/dynamo/dynamo-metadata-store';
import { DynamoRoleStore } from '../../lib/storage/dynamo/dynamo-role-store';
import { DynamoTotpUsage } from '../../lib/storage/dynamo/dynamo-totp-usage';

/** `POST /recipe/userid/map` `{"superTokensUserId","externalUserId","externalUserIdInfo"?,"force"?}`. */
export const handle: ApiHandler<'users' | 'metadata' | 'roles' | 'totpUsage'> = (req, deps) => {
  const info = externalUserIdInfo(req.body);
  return createUserIdMapping(deps, {
    superTokensUserId: requiredTrimmed(req.body, 'superTokensUserId'),
    externalUserId: requiredTrimmed(req.body, 'externalUserId'),
    ...(info !== null ? { externalUserIdInfo: info } : {}),
    force: force(req.body),
  });
};
export const handler = createHttpHandler(
  'useridmapping-create',
  { users: DynamoUserStore, metadata: DynamoMetadataStore, roles: DynamoRoleStore, totpUsage: DynamoTotpUsage },
  handle,
);
