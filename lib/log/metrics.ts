import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricUnit as Unit } from '@aws-lambda-powertools/metrics/types';
import { METRIC_NAMESPACE } from './metric-names';

/**
 * The service's CloudWatch metrics (issue #15: what an operator watches during a migration), as
 * embedded-metric-format (EMF) lines on stdout, written by Powertools Metrics: CloudWatch turns
 * each line into metrics without an API call from the function. One instance per function
 * instance; every metric carries the dimension `service` beside its own: Powertools takes it from
 * `POWERTOOLS_SERVICE_NAME`, which the stack sets to `auth-core-<stage>` (stages sharing an
 * account and region stay apart) and `npm start` to `auth-core-local`.
 *
 * Each `record*` writes one line synchronously (dimensions, values, flush with no `await` in
 * between), so requests the local server runs side by side in one process never mix their
 * dimensions. No dimension or value is ever a secret or a user's identifier (an id may ride along
 * as metadata, which is log data, not a dimension).
 */
const metrics = new Metrics({ namespace: METRIC_NAMESPACE });

export { MetricUnit };

export interface MetricValue {
  readonly name: string;
  readonly value: number;
  readonly unit: Unit;
}

/** Writes the values under one set of dimensions as one EMF line. */
export function recordMetrics(
  values: readonly MetricValue[],
  dimensions: Readonly<Record<string, string>>,
  metadata: Readonly<Record<string, string | number>> = {},
): void {
  metrics.addDimensions({ ...dimensions });
  for (const [key, value] of Object.entries(metadata)) metrics.addMetadata(key, String(value));
  for (const v of values) metrics.addMetric(v.name, v.unit, v.value);
  metrics.publishStoredMetrics();
}

/** One count under a set of dimensions: `Imports` with `Outcome=created`, and the like. */
export function countMetric(name: string, dimensions: Readonly<Record<string, string>>, value = 1): void {
  recordMetrics([{ name, value, unit: MetricUnit.Count }], dimensions);
}
