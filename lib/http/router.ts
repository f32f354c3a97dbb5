import type { RouteDef } from '../../infra/routes';
import { HttpError } from './errors';
import { MethodNotAllowedError, resolvePath } from './tenant-path';

/**
 * Picks the route a request addresses, as API Gateway does in AWS: a 404 when no route has the
 * path, a 405 when one has it but not for this method. Tenant forms and case are handled by
 * `resolvePath`, the same function each handler uses, so the local server cannot route
 * differently from the handlers.
 */
export function createRouter(routes: readonly RouteDef[]): (method: string, rawPath: string) => RouteDef {
  const paths = new Set(routes.map((r) => r.path));
  return (method, rawPath) => {
    const resolved = resolvePath(rawPath, paths);
    if (!resolved) throw new HttpError(404, 'Not found');
    const route = routes.find((r) => r.path === resolved.routePath && r.method === method.toUpperCase());
    if (!route) throw new MethodNotAllowedError();
    return route;
  };
}
