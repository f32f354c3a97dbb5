import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionalString, requiredBoolean, requiredString } from '../../lib/http/input';
import { refreshSession } from '../../lib/recipes/session/sessions';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `POST /recipe/session/refresh` (the tenant comes from the token). */
export const handle: ApiHandler<'sessions'> = (req, deps) =>
  refreshSession(deps, {
    refreshToken: requiredString(req.body, 'refreshToken'),
    antiCsrfToken: optionalString(req.body, 'antiCsrfToken'),
    enableAntiCsrf: requiredBoolean(req.body, 'enableAntiCsrf'),
    useDynamicSigningKey: requiredBoolean(req.body, 'useDynamicSigningKey'),
  });
export const handler = createHttpHandler('session-refresh', { sessions: DynamoSessionStore }, handle);
