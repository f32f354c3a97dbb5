import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ROUTES, tooLargeText, type RouteDef } from '../infra/routes';
import { HttpError } from '../lib/http/errors';
import { createRouter } from '../lib/http/router';
import { createLogger, type Logger } from '../lib/log/logger';
import type { HttpApiEvent, HttpApiResult, LambdaContext } from '../lib/http/types';

type LambdaHandler = (event: HttpApiEvent, context: LambdaContext) => Promise<HttpApiResult>;

/** API Gateway's own limit on a request payload. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** Lambda's limit on a synchronous invocation's payload, each way: the whole event or answer, body included. */
const MAX_INVOKE_BYTES = 6 * 1024 * 1024;

/**
 * The idle time a kept-alive connection is advertised for (`Keep-Alive: timeout=5`, Node's
 * default); clients stop reusing an idle connection before it ends (undici, which `fetch` is: one
 * second before, give or take its coarse timers).
 */
export const KEEP_ALIVE_ADVERTISED_S = 5;
/**
 * How long an idle connection is really kept open: far past what is advertised. Node closes it
 * one second after the advertised time by default, so a client whose event loop (or this server's)
 * is held up a second or two on a loaded machine reuses a connection just as it is closed, and its
 * request fails with "other side closed" (undici) or ECONNRESET. Half a minute leaves no such race
 * (and stays under Node's 60 s `headersTimeout`).
 */
export const KEEP_ALIVE_HELD_MS = 30_000;

/**
 * Loads the handler bundle of a route: the very file Lambda runs (`dist/functions/<id>/index.js`).
 * Each bundle has its own module state, like a separate Lambda function.
 */
function loadBundle(bundleDir: string, route: RouteDef): LambdaHandler {
  const mod = require(join(bundleDir, route.id, 'index.js')) as { handler: LambdaHandler };
  return mod.handler;
}

/** Builds an API Gateway HTTP API (payload format 2.0) event from a Node request. */
export function toHttpApiEvent(req: IncomingMessage, url: URL, body: Buffer, route: RouteDef, requestId: string): HttpApiEvent {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const type = (headers['content-type'] ?? '').toLowerCase();
  // API Gateway base64-encodes bodies it does not consider text.
  const isText = type === '' || type.startsWith('text/') || type.includes('json') || type.includes('x-www-form-urlencoded');
  return {
    version: '2.0',
    routeKey: `${route.method} ${route.path}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    ...(body.length > 0 ? { body: isText ? body.toString('utf8') : body.toString('base64'), isBase64Encoded: !isText } : { isBase64Encoded: false }),
    requestContext: {
      requestId,
      http: { method: req.method ?? 'GET', path: url.pathname },
    },
  };
}

/**
 * What API Gateway answers when the function's answer is over Lambda's 6 MB (Lambda refuses to
 * return it): here too, so an answer too large for AWS is found locally. Returns the text it
 * answered instead of the function's answer, if it did.
 */
function sendResult(res: ServerResponse, result: HttpApiResult, requestId: string): string | undefined {
  if ((result.body?.length ?? 0) > 1024 * 1024 && Buffer.byteLength(JSON.stringify(result), 'utf8') > MAX_INVOKE_BYTES) {
    const text = `Internal error: the function's answer is over Lambda's 6 MB (request id ${requestId})`;
    sendText(res, 500, text);
    return text;
  }
  send(res, result);
  return undefined;
}

function send(res: ServerResponse, result: HttpApiResult): void {
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
  // Set here, Node writes no Keep-Alive header of its own (it would say the held time).
  const keepAlive = res.shouldKeepAlive ? { 'keep-alive': `timeout=${KEEP_ALIVE_ADVERTISED_S}` } : {};
  res.writeHead(result.statusCode, { ...result.headers, ...keepAlive, 'content-length': String(body.length) });
  res.end(body);
}

function sendText(res: ServerResponse, statusCode: number, text: string): void {
  send(res, { statusCode, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: text });
}

/**
 * The path of a request for a log line: without its query string, which carries emails and phone
 * numbers (the stack's access log leaves it out for the same reason).
 */
function pathOf(rawUrl: string | undefined): string {
  return (rawUrl ?? '/').split('?')[0].slice(0, 2048);
}

/**
 * The local stand-in for API Gateway: routes with the shared route table and invokes the same
 * handler bundles Lambda runs. No separate code path for local.
 *
 * A handler logs its own request line. An answer the server gives itself, where API Gateway would
 * answer in AWS without a function (no route: 404; the path with another method: 405; a body or
 * answer over the limits; malformed HTTP), gets a line of its own, as API Gateway's access log
 * has one: method, path (no query string), status. So a call an SDK makes that no route takes
 * shows in `npm start`'s output. `log` writes the lines (stdout, as the handlers', by default).
 */
export function createLocalServer(bundleDir: string, log: Logger = createLogger()): Server {
  const answered = (method: string | undefined, path: string, statusCode: number, routeId: string | undefined, text: string) =>
    log.info('request', { route: routeId ?? '-', method: method ?? '-', path, statusCode, answer: text });
  const route = createRouter(ROUTES);
  const handlers = new Map<string, LambdaHandler>();
  const handlerOf = (r: RouteDef) => {
    let h = handlers.get(r.id);
    if (!h) handlers.set(r.id, (h = loadBundle(bundleDir, r)));
    return h;
  };

  const server = createServer((req, res) => {
    let url: URL;
    let target: RouteDef;
    try {
      // Prefixing the origin (rather than passing it as a base) keeps paths such as `//x` paths.
      url = new URL(`http://localhost${req.url ?? '/'}`);
      target = route(req.method ?? 'GET', url.pathname);
    } catch (err) {
      req.resume();
      const [statusCode, text] = err instanceof HttpError ? [err.statusCode, err.message] : [400, 'Malformed request URL'];
      answered(req.method, pathOf(req.url), statusCode, undefined, text);
      return sendText(res, statusCode, text);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PAYLOAD_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (tooLarge) {
        const text = `Request body is larger than ${MAX_PAYLOAD_BYTES} bytes`;
        answered(req.method, url.pathname, 413, target.id, text);
        return sendText(res, 413, text);
      }
      const requestId = randomUUID();
      const event = toHttpApiEvent(req, url, Buffer.concat(chunks), target, requestId);
      // Lambda refuses an event over its limit before any code runs; in AWS, API Gateway then
      // answers for the function. Here the route's own 413 text stands in for that answer.
      if (size > 1024 * 1024 && Buffer.byteLength(JSON.stringify(event), 'utf8') > MAX_INVOKE_BYTES) {
        answered(req.method, url.pathname, 413, target.id, tooLargeText(target));
        return sendText(res, 413, tooLargeText(target));
      }
      Promise.resolve()
        .then(() => handlerOf(target)(event, { awsRequestId: requestId, functionName: target.id }))
        .then(
          (result) => {
            const replaced = sendResult(res, result, requestId);
            if (replaced) answered(req.method, url.pathname, 500, target.id, replaced);
          },
          () => {
            const text = `Internal error (request id ${requestId})`;
            answered(req.method, url.pathname, 500, target.id, text);
            sendText(res, 500, text);
          },
        );
    });
  });
  server.keepAliveTimeout = KEEP_ALIVE_HELD_MS;
  // Requests Node itself refuses (headers or URL over its 16 KB limit, malformed HTTP) get a
  // plain-text answer too, as API Gateway gives its own.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, text] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? ['431 Request Header Fields Too Large', 'Request headers or URL are too large']
        : ['400 Bad Request', 'Malformed HTTP request'];
    answered(undefined, '-', Number(status.slice(0, 3)), undefined, text);
    socket.end(
      `HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
    );
  });
  return server;
}
