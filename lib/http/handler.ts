import middy from '@middy/core';
import { randomUUID } from 'node:crypto';
import { ConfigError } from '../config/config';
import { createLogger, describeError, type Logger } from '../log/logger';
import { MetricUnit, recordMetrics } from '../log/metrics';
import { SignerKeyNotConfiguredError } from '../password/errors';
import { InvalidInputDocumentError, InvalidInputError, PasswordSourceUnavailableError } from '../recipes/errors';
import { tenantExists } from '../recipes/multitenancy/tenants';
import { runGated } from '../side-effect-gate';
import { isThrottlingError, TooManyItemsError } from '../storage/errors';
import { isValidApiKey, presentedApiKey } from './api-key';
import { bundledRoute } from './bundled-route';
import { APP_WIDE_ONLY, BadRequestError, HttpError, TENANT_NOT_FOUND } from './errors';
import { eventBodyBytes } from './body-size';
import { parseJsonObject, type Fields } from './input';
import { JsonReply, jsonResult, textResult, TextReply } from './response';
import { createRuntimeDeps, type DepsLoader, type DepsWith, type StoreClasses, type StoreName } from './runtime';
import { MethodNotAllowedError, resolvePath } from './tenant-path';
import type { HttpApiEvent, HttpApiResult, LambdaContext } from './types';

/** A parsed request as a handler sees it. */
export interface ApiRequest {
  readonly tenantId: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Fields;
  /** The JSON object body of POST and PUT requests; `{}` for GET. */
  readonly body: Fields;
  readonly requestId: string;
  readonly log: Logger;
}

/**
 * A handler: parse → call one recipe function → return its result (JSON) or a `TextReply`. `K`:
 * the stores it uses (`createHttpHandler`'s `stores`).
 */
export type ApiHandler<K extends StoreName = never> = (req: ApiRequest, deps: DepsWith<K>) => Promise<unknown>;

export const SUPPORTED_CDI_VERSIONS = ['5.0', '5.1', '5.2', '5.3', '5.4'] as const;

/** The Lambda context, extended by the first middleware with the request's logger. */
interface RequestContext extends LambdaContext {
  requestId: string;
  log: Logger;
  started: number;
  /** The `status` of a JSON answer (`OK`, `WRONG_CREDENTIALS_ERROR`, …), for the metrics. */
  outcome?: string;
}

type MiddyRequest = { event: HttpApiEvent; context: RequestContext; response: unknown; error: unknown };

function lowerCaseHeaders(headers: HttpApiEvent['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

/**
 * Wraps a handler in the one middy stack every route shares: request id and logger, API key
 * (constant time, fail closed), path and tenant resolution, `cdi-version`, body size and JSON
 * parsing, and the mapping of errors to 400/401/403/404/405/413/500/503. `stores`: the stores the
 * handler uses, by class (`createRuntimeDeps`); configuration and stores load once per cold start.
 */
export function createHttpHandler<K extends StoreName = never>(routeId: string, stores: StoreClasses<K>, handle: ApiHandler<K>) {
  const loadDeps: DepsLoader<K> = createRuntimeDeps(stores);
  const route = bundledRoute(routeId);
  const routePaths = new Set([route.path]);
  const baseLog = createLogger({ route: route.id });

  const core = async (event: HttpApiEvent, context: RequestContext): Promise<HttpApiResult> => {
    const { requestId, log } = context;
    const resolved = resolvePath(event.rawPath, routePaths);
    if (!resolved) throw new HttpError(404, 'Not found');
    if (event.requestContext.http.method.toUpperCase() !== route.method) throw new MethodNotAllowedError();
    const headers = lowerCaseHeaders(event.headers);

    let deps: DepsWith<K> | undefined;
    if (route.auth === 'apiKey') {
      deps = await loadDeps();
      if (deps.config.apiKeys.length === 0) throw new HttpError(500, 'API key is not configured');
      if (!isValidApiKey(presentedApiKey(headers), deps.config.apiKeys)) throw new HttpError(401, 'Invalid API key');
    }
    const cdi = headers['cdi-version'];
    if (cdi !== undefined && !(SUPPORTED_CDI_VERSIONS as readonly string[]).includes(cdi.trim())) {
      throw new BadRequestError(`cdi-version ${cdi.slice(0, 20)} not supported`);
    }
    if (route.scope === 'app' && resolved.tenantId !== 'public') throw new HttpError(403, APP_WIDE_ONLY);

    let body: Fields = {};
    // GET and DELETE take their input from the query string (the SDK sends DELETE without a body).
    if (route.method === 'POST' || route.method === 'PUT') {
      const raw = event.body === undefined ? undefined : event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
      if (raw && (route.bulk ? eventBodyBytes(event) : raw.length) > route.maxBodyBytes) throw new HttpError(413, route.tooLargeText);
      body = parseJsonObject(raw?.toString('utf8'));
    }
    const query: Fields = { ...(event.queryStringParameters ?? {}) };

    deps ??= await loadDeps();
    const request: ApiRequest = { tenantId: resolved.tenantId, headers, query, body, requestId, log };
    const result =
      resolved.tenantId === 'public' || route.scope === 'tenantLookup' || route.scope === 'appFromToken'
        ? await handle(request, deps)
        : await inExistingTenant(deps, request, handle);
    const answer = result instanceof JsonReply ? result.body : result;
    const status = (answer as { status?: unknown } | null)?.status;
    context.outcome = typeof status === 'string' ? status : 'OK';
    if (result instanceof TextReply) return textResult(result.statusCode, result.text, requestId);
    return result instanceof JsonReply ? jsonResult(result.body, requestId, 200, result.headers) : jsonResult(result, requestId);
  };

  return middy<HttpApiEvent, HttpApiResult, Error, RequestContext>()
    .use({
      before: (request: MiddyRequest) => {
        const ctx = request.context;
        ctx.requestId = ctx.awsRequestId ?? randomUUID();
        ctx.log = baseLog.child({ requestId: ctx.requestId });
        ctx.started = Date.now();
      },
      after: (request: MiddyRequest) => logRequest(request, (request.response as HttpApiResult).statusCode, route.id),
      onError: (request: MiddyRequest) => {
        const { requestId, log } = request.context;
        request.response = errorResult(request.error, requestId, log);
        logRequest(request, (request.response as HttpApiResult).statusCode, route.id);
      },
    })
    .handler(core);
}

/** Runs a request in a tenant other than `public` beside the check that the tenant exists. */
function inExistingTenant<K extends StoreName>(deps: DepsWith<K>, request: ApiRequest, handle: ApiHandler<K>): Promise<unknown> {
  return inExistingTenants(deps, [request.tenantId], () => handle(request, deps));
}

/**
 * Runs `work` beside the check that the tenants it concerns exist (one round trip less than
 * checking first): its reads go at once, its side effects (writes, calls to an old provider) wait
 * for the check (`runGated`). It answers only once both are done; a missing tenant answers
 * `TENANT_NOT_FOUND`, whatever the work did or failed with meanwhile. `public` always exists.
 * Also for a tenant named by the request's data, as a session handle names one.
 */
export async function inExistingTenants<T>(deps: Pick<DepsWith<never>, 'tenants'>, tenantIds: readonly string[], work: () => Promise<T>): Promise<T> {
  const others = [...new Set(tenantIds)].filter((id) => id !== 'public');
  if (others.length === 0) return work();
  const exists = Promise.all(others.map((id) => tenantExists(deps, id))).then((found) => {
    if (found.includes(false)) throw new BadRequestError(TENANT_NOT_FOUND);
  });
  // `async`: work that throws while reading its input (before any await) rejects here too, so the
  // check is still awaited, and answers first.
  const [check, outcome] = await Promise.allSettled([exists, runGated(exists, async () => work())]);
  if (check.status === 'rejected') throw check.reason;
  if (outcome.status === 'rejected') throw outcome.reason;
  return outcome.value;
}

/**
 * The request's log line, and its metrics: `Requests` and `Latency` by `Operation` (the route id)
 * and `Outcome`: the answer's `status` for a 2xx (`OK` when it has none), else `4xx` or `5xx`.
 */
function logRequest(request: MiddyRequest, statusCode: number, operation: string): void {
  const durationMs = Date.now() - request.context.started;
  request.context.log.info('request', { method: request.event.requestContext.http.method, statusCode, durationMs });
  const outcome = statusCode >= 500 ? '5xx' : statusCode >= 400 ? '4xx' : (request.context.outcome ?? 'OK');
  recordMetrics(
    [
      { name: 'Requests', value: 1, unit: MetricUnit.Count },
      { name: 'Latency', value: durationMs, unit: MetricUnit.Milliseconds },
    ],
    { Operation: operation, Outcome: outcome },
  );
}

/**
 * The configuration errors this container has logged: each once (SPEC §16b), although every
 * request answers 500 while it lasts (configuration is read again on each, so a fixed SSM
 * parameter heals it without a redeploy).
 */
const loggedConfigErrors = new Set<string>();

/** Maps an error to its response: the message for expected kinds, a generic text (logged once) for the rest. */
function errorResult(err: unknown, requestId: string, log: Logger): HttpApiResult {
  if (err instanceof HttpError) return textResult(err.statusCode, err.message, requestId);
  if (err instanceof InvalidInputError || err instanceof TooManyItemsError) return textResult(400, err.message, requestId);
  if (err instanceof InvalidInputDocumentError) return jsonResult(err.document, requestId, 400);
  // Logged where it happened, with the reason; the caller may retry.
  if (err instanceof PasswordSourceUnavailableError) return textResult(503, err.message, requestId);
  if (err instanceof SignerKeyNotConfiguredError) {
    log.error('vendor_password_hashing_signer_key is not configured', {});
    return textResult(500, err.message, requestId);
  }
  if (isThrottlingError(err)) {
    log.warn('storage throttled', describeError(err));
    return textResult(503, `Service is busy, try again later (request id ${requestId})`, requestId);
  }
  if (!(err instanceof ConfigError)) log.error('unexpected error', describeError(err));
  else if (!loggedConfigErrors.has(err.message)) {
    loggedConfigErrors.add(err.message);
    log.error(`configuration error: ${err.message}`, describeError(err));
  }
  return textResult(500, `Internal error (request id ${requestId})`, requestId);
}
