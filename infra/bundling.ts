import { handlerRouteOf, ROUTES } from './routes';

/**
 * esbuild settings shared by `scripts/build.ts` (the bundles `npm start`, the tests and the
 * benchmarks run) and the CDK `NodejsFunction`s (the bundles Lambda runs), so both build the same
 * code the same way.
 */

/**
 * The SDK's ESM builds let esbuild drop the commands a function never sends (its CommonJS builds
 * cannot be tree-shaken): bundles shrink from ~820 KB to ~360 KB, and load about twice as fast.
 */
export const BUNDLE_MAIN_FIELDS = ['module', 'main'];

/** Modules left out of every bundle. */
export const BUNDLE_EXTERNALS = [
  // The optional peer of @middy/core for durable execution is never imported here.
  '@aws/durable-execution-sdk-js',
  // The SDK's default credential chain imports these lazily, only when no credentials are in the
  // environment. Lambda always provides them there (and so do `npm start` and the tests), so they
  // are never loaded; left out they save ~85 KB per bundle. Were they ever needed, they resolve
  // from node_modules locally and from the SDK the Lambda runtime ships.
  '@aws-sdk/nested-clients',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-login',
  '@aws-sdk/token-providers',
];

/** The Argon2 native binary is copied beside the bundles that import it. */
export const BUNDLE_LOADER: Record<string, 'copy'> = { '.node': 'copy' };

/** The global a handler bundle reads its route from (`lib/http/bundled-route.ts`). */
export const ROUTE_CONSTANT = 'AUTH_CORE_ROUTE';

/**
 * esbuild `define` for one function's bundle: an HTTP route's handler gets its own route (what
 * `lib/http/handler.ts` reads: method, path, auth, scope, body limit) as a constant, instead of
 * importing the route table and looking itself up, which put all 52 routes with their summaries
 * (11 KB) into every bundle. Background functions read no route.
 */
export function routeDefine(functionId: string): Record<string, string> {
  const route = ROUTES.find((r) => r.id === functionId);
  return route ? { [ROUTE_CONSTANT]: JSON.stringify(handlerRouteOf(route)) } : {};
}
