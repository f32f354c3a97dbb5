import type { Logger } from './logger';

/** The CloudWatch namespace of the service's own metrics. */
export const METRIC_NAMESPACE = 'AuthCore';

export interface MetricValue {
  readonly name: string;
  readonly value: number;
  readonly unit: 'Count' | 'Milliseconds';
}

/**
 * Writes metrics as one CloudWatch embedded-metric-format (EMF) log line: CloudWatch turns it into
 * metrics without an API call from the function. `dimensions` become the metrics' dimensions (one
 * set, all of them); `fields` ride along as searchable log data. No name may look like a secret
 * (the logger redacts fields named like `password`, `code` or `key`).
 */
export function emitMetrics(
  log: Pick<Logger, 'info'>,
  metrics: readonly MetricValue[],
  dimensions: Readonly<Record<string, string>>,
  fields: Readonly<Record<string, unknown>> = {},
): void {
  log.info('metric', {
    ...fields,
    ...dimensions,
    ...Object.fromEntries(metrics.map((m) => [m.name, m.value])),
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        { Namespace: METRIC_NAMESPACE, Dimensions: [Object.keys(dimensions)], Metrics: metrics.map((m) => ({ Name: m.name, Unit: m.unit })) },
      ],
    },
  });
}
