import { createHttpHandler } from '../../lib/http/handler';
import { TextReply } from '../../lib/http/response';

/** `GET /hello`: health check, no API key. */
export const handler = createHttpHandler('hello', {}, async () => new TextReply(200, 'Hello'));
