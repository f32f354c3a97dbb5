import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredBoolean } from '../../lib/http/input';
import { antiCsrfField, tokenField } from '../../lib/http/session-input';
import { verifySession } from '../../lib/recipes/session/sessions';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `POST /recipe/session/verify` (the tenant comes from the token). */
export const handle: ApiHandler<'sessions'> = (req, deps) =>
  verifySession(deps, {
    accessToken: tokenField(req.body, 'accessToken'),
    antiCsrfToken: antiCsrfField(req.body),
    doAntiCsrfCheck: requiredBoolean(req.body, 'doAntiCsrfCheck'),
    enableAntiCsrf: requiredBoolean(req.body, 'enableAntiCsrf'),
    checkDatabase: requiredBoolean(req.body, 'checkDatabase'),
  });
export const handler = createHttpHandler('session-verify', { sessions: DynamoSessionStore }, handle);
