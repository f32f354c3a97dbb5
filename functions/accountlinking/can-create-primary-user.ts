import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { canCreatePrimaryUser } from '../../lib/recipes/accountlinking/create-primary-user';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `GET /recipe/accountlinking/user/primary/check?recipeUserId=`. */
export const handle: ApiHandler<'users'> = (req, deps) => canCreatePrimaryUser(deps, requiredQueryParam(req.query, 'recipeUserId'));
export const handler = createHttpHandler('accountlinking-primary-check', { users: DynamoUserStore }, handle);
