import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { createPrimaryUser } from '../../lib/recipes/accountlinking/create-primary-user';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /recipe/accountlinking/user/primary` `{"recipeUserId"}`. */
export const handle: ApiHandler<'users'> = (req, deps) => createPrimaryUser(deps, requiredString(req.body, 'recipeUserId'));
export const handler = createHttpHandler('accountlinking-primary', { users: DynamoUserStore }, handle);
