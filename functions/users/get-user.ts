import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { getUserById } from '../../lib/recipes/users/get-user';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `GET /user/id?userId=`. */
export const handle: ApiHandler<'users'> = (req, deps) => getUserById(deps, requiredString(req.query, 'userId'));
export const handler = createHttpHandler('user-get', { users: DynamoUserStore }, handle);
