import { HttpError, BadRequestError, TENANT_NOT_FOUND } from './errors';

/** Tenant ids that would be mistaken for a path segment of a route. */
const RESERVED_TENANT_IDS = new Set(['recipe', 'config', 'users', 'user', 'hello', 'apiversion']);
const TENANT_ID = /^[a-z0-9-]+$/;
export const MAX_TENANT_ID_LENGTH = 64;

/** The path of a request split into its tenant and the route path it addresses. */
export interface ResolvedPath {
  readonly routePath: string;
  readonly tenantId: string;
}

/** Lower-cases a path and drops trailing slashes: paths match case-insensitively (SPEC §1). */
export function normalisePath(rawPath: string): string {
  const lower = rawPath.toLowerCase().replace(/\/+$/, '');
  return lower === '' ? '/' : lower;
}

/**
 * Normalises a tenant id (trim, lower-case) and checks its form; `undefined` when it cannot be one.
 */
export function parseTenantId(raw: string): string | undefined {
  const id = raw.trim().toLowerCase();
  if (id.length === 0 || id.length > MAX_TENANT_ID_LENGTH) return undefined;
  if (!TENANT_ID.test(id) || RESERVED_TENANT_IDS.has(id) || id.startsWith('appid-')) return undefined;
  return id;
}

/**
 * Finds which of `routePaths` a request path addresses, in any of the three tenant forms:
 * `/path`, `/<tenantId>/path`, `/appid-public/<tenantId>/path` (and `/appid-public/path`).
 *
 * Returns `undefined` when no route matches (a 404). Throws a 400 for an app id other than
 * `public` or a malformed tenant id on a path that otherwise matches.
 */
export function resolvePath(rawPath: string, routePaths: ReadonlySet<string>): ResolvedPath | undefined {
  const path = normalisePath(rawPath);
  let segments = path.split('/').slice(1);
  let appId: string | undefined;
  if (segments[0]?.startsWith('appid-')) {
    appId = segments[0].slice('appid-'.length);
    segments = segments.slice(1);
  }
  const whole = '/' + segments.join('/');
  let resolved: ResolvedPath | undefined;
  if (routePaths.has(whole)) {
    resolved = { routePath: whole, tenantId: 'public' };
  } else if (segments.length >= 2) {
    const rest = '/' + segments.slice(1).join('/');
    if (!routePaths.has(rest)) return undefined;
    const tenantId = parseTenantId(segments[0]);
    if (tenantId === undefined) throw new BadRequestError(TENANT_NOT_FOUND);
    resolved = { routePath: rest, tenantId };
  }
  if (resolved && appId !== undefined && appId !== 'public') {
    throw new BadRequestError(TENANT_NOT_FOUND);
  }
  return resolved;
}

/** Thrown when a route exists for the path but not for the method. */
export class MethodNotAllowedError extends HttpError {
  constructor() {
    super(405, 'Method not supported');
    this.name = 'MethodNotAllowedError';
  }
}
