import { metricsServiceName } from '../config/metrics-service';
import { METRIC_NAMESPACE } from './metric-names';

/**
 * The service's CloudWatch metrics (issue #15: what an operator watches during a migration), as
 * embedded-metric-format (EMF) lines on stdout: CloudWatch turns each line into metrics without an
 * API call from the function. Every metric carries the dimension `service` beside its own
 * (`lib/config/metrics-service.ts`).
 *
 * The lines are those Powertools Metrics wrote (same keys, same order, same dimension sets), made
 * here in a few lines instead of its 13 KB in every bundle (issue 43). Each `record*` call writes
 * one line synchronously, so requests the local server runs side by side in one process never mix
 * their dimensions. No dimension or value is ever a secret or a user's identifier (an id may ride
 * along as metadata, which is log data, not a dimension).
 */

/** The units the service's metrics use (CloudWatch's names). */
export const MetricUnit = { Count: 'Count', Milliseconds: 'Milliseconds' } as const;
export type MetricUnit = (typeof MetricUnit)[keyof typeof MetricUnit];

export interface MetricValue {
  readonly name: string;
  readonly value: number;
  readonly unit: MetricUnit;
}

let service: string | undefined;

/**
 * One EMF line: `_aws` (timestamp, namespace, the one dimension set `service` + `dimensions`, the
 * metrics' names and units), then the metadata, the dimensions and the values. A name given twice
 * carries both values (an array). A dimension without a value is left out, as Powertools did.
 */
export function emfLine(
  values: readonly MetricValue[],
  dimensions: Readonly<Record<string, string>>,
  metadata: Readonly<Record<string, string | number>>,
  serviceName: string,
  now: number,
): string {
  const dims: Record<string, string> = { service: serviceName };
  for (const [name, value] of Object.entries(dimensions)) if (typeof value === 'string' && value !== '' && name !== '') dims[name] = value;
  const units = new Map<string, MetricUnit>();
  const measured: Record<string, number | number[]> = {};
  for (const { name, unit, value } of values) {
    const before = measured[name];
    measured[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
    if (!units.has(name)) units.set(name, unit);
  }
  return JSON.stringify({
    _aws: {
      Timestamp: now,
      CloudWatchMetrics: [{ Namespace: METRIC_NAMESPACE, Dimensions: [Object.keys(dims)], Metrics: [...units].map(([Name, Unit]) => ({ Name, Unit })) }],
    },
    ...Object.fromEntries(Object.entries(metadata).map(([k, v]) => [k, String(v)])),
    ...dims,
    ...measured,
  });
}

/** Writes the values under one set of dimensions as one EMF line (none when there is no value). */
export function recordMetrics(
  values: readonly MetricValue[],
  dimensions: Readonly<Record<string, string>>,
  metadata: Readonly<Record<string, string | number>> = {},
): void {
  if (values.length === 0) return;
  service ??= metricsServiceName();
  process.stdout.write(`${emfLine(values, dimensions, metadata, service, Date.now())}\n`);
}

/** One count under a set of dimensions: `Imports` with `Outcome=created`, and the like. */
export function countMetric(name: string, dimensions: Readonly<Record<string, string>>, value = 1): void {
  recordMetrics([{ name, value, unit: MetricUnit.Count }], dimensions);
}
