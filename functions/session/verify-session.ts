import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionalString, requiredBoolean, requiredString } from '../../lib/http/input';
import { verifySession } from '../../lib/recipes/session/sessions';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `POST /recipe/session/verify` (the tenant comes from the token). */
export const handle: ApiHandler<'sessions'> = (req, deps) =>
  verifySession(deps, {
    accessToken: requiredString(req.body, 'accessToken'),
    antiCsrfToken: optionalString(req.body, 'antiCsrfToken'),
    doAntiCsrfCheck: requiredBoolean(req.body, 'doAntiCsrfCheck'),
    enableAntiCsrf: requiredBoolean(req.body, 'enableAntiCsrf'),
    checkDatabase: requiredBoolean(req.body, 'checkDatabase'),
  });
export const handler = createHttpHandler('session-verify', { sessions: DynamoSessionStore }, handle);
