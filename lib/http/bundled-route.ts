import type { HandlerRoute } from '../../infra/routes';

/** Set by esbuild's `define` when a handler is bundled (`routeDefine` in `infra/bundling.ts`). */
declare const AUTH_CORE_ROUTE: HandlerRoute | undefined;

/**
 * The route a handler bundle was built for, checked against the id its entry file names, so an
 * entry bundled under another route's id (or without one) fails at load instead of answering
 * for the wrong path.
 */
export function bundledRoute(id: string): HandlerRoute {
  const route = typeof AUTH_CORE_ROUTE === 'undefined' ? undefined : AUTH_CORE_ROUTE;
  if (route?.id !== id) {
    throw new Error(`The handler of route ${id} was bundled ${route ? `as route ${route.id}` : 'without its route'} (see routeDefine in infra/bundling.ts)`);
  }
  return route;
}
