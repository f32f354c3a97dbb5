import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredJsonObject, requiredString } from '../../lib/http/input';
import { updateUserMetadata } from '../../lib/recipes/usermetadata/update-user-metadata';

/** `PUT /recipe/user/metadata` `{"userId","metadataUpdate"}`. */
export const handle: ApiHandler = (req, deps) =>
  updateUserMetadata(deps, requiredString(req.body, 'userId'), requiredJsonObject(req.body, 'metadataUpdate'));
export const handler = createHttpHandler('usermetadata-update', handle);
