import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { inTenantsOfSessionHandles } from '../../lib/http/session-input';
import { getSessionInformation } from '../../lib/recipes/session/session-data';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `GET /recipe/session?sessionHandle=`. */
export const handle: ApiHandler<'sessions'> = (req, deps) => {
  const sessionHandle = requiredQueryParam(req.query, 'sessionHandle');
  return inTenantsOfSessionHandles(deps, [sessionHandle], () => getSessionInformation(deps, sessionHandle));
};
export const handler = createHttpHandler('session-get', { sessions: DynamoSessionStore }, handle);
