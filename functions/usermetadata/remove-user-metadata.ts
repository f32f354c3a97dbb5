import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { removeUserMetadata } from '../../lib/recipes/usermetadata/remove-user-metadata';

/** `POST /recipe/user/metadata/remove` `{"userId"}`. */
export const handle: ApiHandler = (req, deps) => removeUserMetadata(deps, requiredString(req.body, 'userId'));
export const handler = createHttpHandler('usermetadata-remove', handle);
