import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { JsonReply } from '../../lib/http/response';
import { jsonWebKeys } from '../../lib/recipes/session/jwt';
import { DynamoSessionStore } from '../../lib/storage/dynamo/dynamo-session-store';

/** `GET /.well-known/jwks.json`: no API key; cacheable until the next key is due, as the core. */
export const handle: ApiHandler<'sessions'> = async (_req, deps) => {
  const { keys, maxAgeSeconds } = await jsonWebKeys(deps);
  return new JsonReply({ keys }, { 'cache-control': `max-age=${maxAgeSeconds}, must-revalidate` });
};
export const handler = createHttpHandler('jwks', { sessions: DynamoSessionStore }, handle);
