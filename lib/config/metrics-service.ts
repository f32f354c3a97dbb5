/**
 * The `service` dimension of every metric (`lib/log/metrics.ts`): `POWERTOOLS_SERVICE_NAME`, the
 * variable Powertools Metrics read before the service wrote its lines itself, so the stack
 * (`auth-core-<stage>`: stages sharing an account and region stay apart) and `npm start`
 * (`auth-core-local`) set it as before. Unset or blank: `service_undefined`, as Powertools named it.
 */
export function metricsServiceName(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return env.POWERTOOLS_SERVICE_NAME?.trim() || 'service_undefined';
}
