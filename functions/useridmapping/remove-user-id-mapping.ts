import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { force, requiredTrimmed, userIdType } from '../../lib/http/useridmapping-input';
import { removeUserIdMapping } from '../../lib/recipes/useridmapping/remove-user-id-mapping';

/** `POST /recipe/userid/map/remove` `{"userId","userIdType"?,"force"?}`. */
export const handle: ApiHandler = (req, deps) =>
  removeUserIdMapping(deps, requiredTrimmed(req.body, 'userId'), userIdType(req.body), force(req.body));
export const handler = createHttpHandler('useridmapping-remove', handle);
