import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ROUTES, tooLargeText, type RouteDef } from '../infra/routes';
import { HttpError } from '../lib/http/errors';
import { createRouter } from '../lib/http/router';
import type { HttpApiEvent, HttpApiResult, LambdaContext } from '../lib/http/types';

type LambdaHandler = (event: HttpApiEvent, context: LambdaContext) => Promise<HttpApiResult>;

/** API Gateway's own limit on a request payload. */
const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/** Lambda's limit on a synchronous invocation's payload, each way: the whole event or answer, body included. */
const MAX_INVOKE_BYTES = 6 * 1024 * 1024;

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
 * return it): here too, so an answer too large for AWS is found locally.
 */
function sendResult(res: ServerResponse, result: HttpApiResult, requestId: string): void {
  if ((result.body?.length ?? 0) > 1024 * 1024 && Buffer.byteLength(JSON.stringify(result), 'utf8') > MAX_INVOKE_BYTES) {
    return sendText(res, 500, `Internal error: the function's answer is over Lambda's 6 MB (request id ${requestId})`);
  }
  send(res, result);
}

function send(res: ServerResponse, result: HttpApiResult): void {
  const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
  res.writeHead(result.statusCode, { ...result.headers, 'content-length': String(body.length) });
  res.end(body);
}

function sendText(res: ServerResponse, statusCode: number, text: string): void {
  send(res, { statusCode, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: text });
}

/**
 * The local stand-in for API Gateway: routes with the shared route table and invokes the same
 * handler bundles Lambda runs. No separate code path for local.
 */
export function createLocalServer(bundleDir: string): Server {
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
      if (err instanceof HttpError) return sendText(res, err.statusCode, err.message);
      return sendText(res, 400, 'Malformed request URL');
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
      if (tooLarge) return sendText(res, 413, `Request body is larger than ${MAX_PAYLOAD_BYTES} bytes`);
      const requestId = randomUUID();
      const event = toHttpApiEvent(req, url, Buffer.concat(chunks), target, requestId);
      // Lambda refuses an event over its limit before any code runs; in AWS, API Gateway then
      // answers for the function. Here the route's own 413 text stands in for that answer.
      if (size > 1024 * 1024 && Buffer.byteLength(JSON.stringify(event), 'utf8') > MAX_INVOKE_BYTES) {
        return sendText(res, 413, tooLargeText(target));
      }
      Promise.resolve()
        .then(() => handlerOf(target)(event, { awsRequestId: requestId, functionName: target.id }))
        .then(
          (result) => sendResult(res, result, requestId),
          () => sendText(res, 500, `Internal error (request id ${requestId})`),
        );
    });
  });
  // Requests Node itself refuses (headers or URL over its 16 KB limit, malformed HTTP) get a
  // plain-text answer too, as API Gateway gives its own.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, text] = err.code === 'HPE_HEADER_OVERFLOW' ? ['431 Request Header Fields Too Large', 'Request headers or URL are too large'] : ['400 Bad Request', 'Malformed HTTP request'];
    socket.end(`HTTP/1.1 ${status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
  });
  return server;
}
