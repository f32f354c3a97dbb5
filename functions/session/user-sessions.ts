import { APP_WIDE_ONLY, HttpError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { queryFlag } from '../../lib/http/session-input';
import { sessionHandlesOfUser } from '../../lib/recipes/session/session-data';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `GET [/<t>]/recipe/session/user?userId=&fetchAcrossAllTenants=&fetchSessionsForAllLinkedAccounts=`. */
export const handle: ApiHandler<'sessions' | 'users'> = (req, deps) => {
  const userId = requiredQueryParam(req.query, 'userId');
  const acrossTenants = queryFlag(req.query, 'fetchAcrossAllTenants');
  if (acrossTenants && req.tenantId !== 'public') throw new HttpError(403, APP_WIDE_ONLY);
  return sessionHandlesOfUser(deps, {
    userId,
    tenantId: acrossTenants ? undefined : req.tenantId,
    linkedAccounts: queryFlag(req.query, 'fetchSessionsForAllLinkedAccounts'),
  });
};
export const handler = createHttpHandler('session-user', { sessions: DynamoSessionStore, users: DynamoUserStore }, handle);
