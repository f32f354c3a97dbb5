import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { createPrimaryUser } from '../../lib/recipes/accountlinking/create-primary-user';

/** `POST /recipe/accountlinking/user/primary` `{"recipeUserId"}`. */
export const handle: ApiHandler = (req, deps) => createPrimaryUser(deps, requiredString(req.body, 'recipeUserId'));
export const handler = createHttpHandler('accountlinking-primary', handle);
