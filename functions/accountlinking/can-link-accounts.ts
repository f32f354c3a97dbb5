import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { canLinkAccounts } from '../../lib/recipes/accountlinking/link-accounts';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `GET /recipe/accountlinking/user/link/check?recipeUserId=&primaryUserId=`. */
export const handle: ApiHandler<'users'> = (req, deps) =>
  canLinkAccounts(deps, requiredQueryParam(req.query, 'recipeUserId'), requiredQueryParam(req.query, 'primaryUserId'));
export const handler = createHttpHandler('accountlinking-link-check', { users: DynamoUserStore }, handle);
