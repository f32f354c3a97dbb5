import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionalBoolean, requiredString } from '../../lib/http/input';
import { jwtValidity, sessionPayload } from '../../lib/http/session-input';
import { createJwt } from '../../lib/recipes/session/jwt';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `POST /recipe/jwt` `{"algorithm","jwksDomain","payload","validity","useStaticSigningKey"?}`. */
export const handle: ApiHandler<'sessions'> = (req, deps) =>
  createJwt(deps, {
    algorithm: requiredString(req.body, 'algorithm'),
    jwksDomain: requiredString(req.body, 'jwksDomain'),
    payload: sessionPayload(req.body, 'payload'),
    validity: jwtValidity(req.body),
    useStaticSigningKey: optionalBoolean(req.body, 'useStaticSigningKey', true),
  });
export const handler = createHttpHandler('jwt-create', { sessions: DynamoSessionStore }, handle);
