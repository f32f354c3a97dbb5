import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { unlinkAccount } from '../../lib/recipes/accountlinking/unlink-account';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /recipe/accountlinking/user/unlink` `{"recipeUserId"}`. */
export const handle: ApiHandler<'users' | 'sessions'> = (req, deps) => unlinkAccount(deps, requiredString(req.body, 'recipeUserId'));
export const handler = createHttpHandler('accountlinking-unlink', { users: DynamoUserStore, sessions: DynamoSessionStore }, handle);
