import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { inTenantsOfSessionHandles, sessionPayload } from '../../lib/http/session-input';
import { updateAccessTokenPayload } from '../../lib/recipes/session/session-data';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `PUT /recipe/jwt/data` `{"sessionHandle","userDataInJWT"}`. */
export const handle: ApiHandler<'sessions'> = (req, deps) => {
  const sessionHandle = requiredString(req.body, 'sessionHandle');
  const data = sessionPayload(req.body, 'userDataInJWT');
  return inTenantsOfSessionHandles(deps, [sessionHandle], () => updateAccessTokenPayload(deps, sessionHandle, data));
};
export const handler = createHttpHandler('jwt-data-update', { sessions: DynamoSessionStore }, handle);
