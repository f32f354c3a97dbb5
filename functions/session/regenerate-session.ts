import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { sessionPayload } from '../../lib/http/session-input';
import { regenerateSession } from '../../lib/recipes/session/sessions';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `POST /recipe/session/regenerate` `{"accessToken","userDataInJWT"?}`. */
export const handle: ApiHandler<'sessions'> = (req, deps) =>
  regenerateSession(
    deps,
    requiredString(req.body, 'accessToken'),
    req.body.userDataInJWT === undefined ? undefined : sessionPayload(req.body, 'userDataInJWT'),
  );
export const handler = createHttpHandler('session-regenerate', { sessions: DynamoSessionStore }, handle);
