import { invalidField } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { removeUser } from '../../lib/recipes/users/remove-user';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /user/remove` `{"userId","removeAllLinkedAccounts"?}` (default `true`, as in the core). */
export const handle: ApiHandler<'users' | 'sessions'> = (req, deps) => {
  const userId = requiredString(req.body, 'userId');
  const all = req.body.removeAllLinkedAccounts;
  if (all !== undefined && all !== null && typeof all !== 'boolean') throw invalidField('removeAllLinkedAccounts');
  return removeUser(deps, userId, all !== false);
};
export const handler = createHttpHandler('user-remove', { users: DynamoUserStore, sessions: DynamoSessionStore }, handle);
