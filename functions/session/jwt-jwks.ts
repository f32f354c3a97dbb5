import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { jsonWebKeys } from '../../lib/recipes/session/jwt';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `GET /recipe/jwt/jwks` (deprecated): the same keys with a `status`. */
export const handle: ApiHandler<'sessions'> = async (_req, deps) => ({ keys: (await jsonWebKeys(deps)).keys, status: 'OK' });
export const handler = createHttpHandler('jwt-jwks', { sessions: DynamoSessionStore }, handle);
