import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { getUserMetadata } from '../../lib/recipes/usermetadata/get-user-metadata';

/** `GET /recipe/user/metadata?userId=`. */
export const handle: ApiHandler = (req, deps) => getUserMetadata(deps, requiredQueryParam(req.query, 'userId'));
export const handler = createHttpHandler('usermetadata-get', handle);
