import { invalidField } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { externalUserIdInfo, requiredTrimmed, userIdType } from '../../lib/http/useridmapping-input';
import { updateExternalUserIdInfo } from '../../lib/recipes/useridmapping/update-external-user-id-info';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `PUT /recipe/userid/external-user-id-info` `{"userId","userIdType"?,"externalUserIdInfo"}` (`null` clears it; the key is required). */
export const handle: ApiHandler<'users'> = (req, deps) => {
  if (!('externalUserIdInfo' in req.body)) throw invalidField('externalUserIdInfo');
  return updateExternalUserIdInfo(deps, requiredTrimmed(req.body, 'userId'), userIdType(req.body), externalUserIdInfo(req.body));
};
export const handler = createHttpHandler('useridmapping-update-info', { users: DynamoUserStore }, handle);
