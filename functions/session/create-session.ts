import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionalBoolean, requiredBoolean, requiredString } from '../../lib/http/input';
import { sessionPayload } from '../../lib/http/session-input';
import { createSession } from '../../lib/recipes/session/sessions';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `POST /<t>/recipe/session` `{"userId","userDataInJWT","userDataInDatabase","enableAntiCsrf","useDynamicSigningKey"?}`. */
export const handle: ApiHandler<'sessions'> = (req, deps) =>
  createSession(deps, req.tenantId, {
    userId: requiredString(req.body, 'userId'),
    userDataInJWT: sessionPayload(req.body, 'userDataInJWT'),
    userDataInDatabase: sessionPayload(req.body, 'userDataInDatabase'),
    enableAntiCsrf: requiredBoolean(req.body, 'enableAntiCsrf'),
    useDynamicSigningKey: optionalBoolean(req.body, 'useDynamicSigningKey', true),
  });
export const handler = createHttpHandler('session-create', { sessions: DynamoSessionStore }, handle);
