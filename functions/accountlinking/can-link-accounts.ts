import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { canLinkAccounts } from '../../lib/recipes/accountlinking/link-accounts';

/** `GET /recipe/accountlinking/user/link/check?recipeUserId=&primaryUserId=`. */
export const handle: ApiHandler = (req, deps) =>
  canLinkAccounts(deps, requiredQueryParam(req.query, 'recipeUserId'), requiredQueryParam(req.query, 'primaryUserId'));
export const handler = createHttpHandler('accountlinking-link-check', handle);
