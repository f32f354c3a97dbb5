import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { linkAccounts } from '../../lib/recipes/accountlinking/link-accounts';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /recipe/accountlinking/user/link` `{"recipeUserId","primaryUserId"}`. */
export const handle: ApiHandler<'users' | 'sessions'> = (req, deps) =>
  linkAccounts(deps, requiredString(req.body, 'recipeUserId'), requiredString(req.body, 'primaryUserId'));
export const handler = createHttpHandler('accountlinking-link', { users: DynamoUserStore, sessions: DynamoSessionStore }, handle);
