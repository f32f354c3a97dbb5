import { APP_WIDE_ONLY, BadRequestError, HttpError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionalBoolean, requiredString } from '../../lib/http/input';
import { inTenantsOfSessionHandles, sessionHandles } from '../../lib/http/session-input';
import { revokeSessions, revokeSessionsOfUser } from '../../lib/recipes/session/session-data';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/**
 * `POST [/<t>]/recipe/session/remove`: `{"sessionHandles"}` (app-wide), or `{"userId",
 * "revokeAcrossAllTenants"?, "revokeSessionsForLinkedAccounts"?}` (every tenant only from public).
 */
export const handle: ApiHandler<'sessions' | 'users'> = (req, deps) => {
  const byUser = req.body.userId !== undefined;
  if (byUser === (req.body.sessionHandles !== undefined)) throw new BadRequestError('Invalid JSON input - use one of userId or sessionHandles array');
  if (!byUser) {
    for (const flag of ['revokeAcrossAllTenants', 'revokeSessionsForLinkedAccounts']) {
      if (req.body[flag] !== undefined) throw new BadRequestError(`Invalid JSON input - ${flag} can only be set if userId is set`);
    }
    const handles = sessionHandles(req.body);
    return inTenantsOfSessionHandles(deps, handles, () => revokeSessions(deps, handles));
  }
  const acrossTenants = optionalBoolean(req.body, 'revokeAcrossAllTenants', true);
  const linkedAccounts = optionalBoolean(req.body, 'revokeSessionsForLinkedAccounts', true);
  const userId = requiredString(req.body, 'userId');
  if (acrossTenants && req.tenantId !== 'public') throw new HttpError(403, APP_WIDE_ONLY);
  return revokeSessionsOfUser(deps, { userId, tenantId: acrossTenants ? undefined : req.tenantId, linkedAccounts });
};
export const handler = createHttpHandler('session-remove', { sessions: DynamoSessionStore, users: DynamoUserStore }, handle);
