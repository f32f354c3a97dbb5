import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { inTenantsOfSessionHandles, sessionPayload } from '../../lib/http/session-input';
import { updateSessionData } from '../../lib/recipes/session/session-data';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `PUT /recipe/session/data` `{"sessionHandle","userDataInDatabase"}`. */
export const handle: ApiHandler<'sessions'> = (req, deps) => {
  const sessionHandle = requiredString(req.body, 'sessionHandle');
  const data = sessionPayload(req.body, 'userDataInDatabase');
  return inTenantsOfSessionHandles(deps, [sessionHandle], () => updateSessionData(deps, sessionHandle, data));
};
export const handler = createHttpHandler('session-data-update', { sessions: DynamoSessionStore }, handle);
