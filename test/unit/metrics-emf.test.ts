import { Metrics } from '@aws-lambda-powertools/metrics';
import { emfLine, MetricUnit, type MetricValue } from '../../lib/log/metrics';
import { metricsServiceName } from '../../lib/config/metrics-service';

/**
 * The EMF lines the service writes itself (issue 43) against those Powertools Metrics, which wrote
 * them before, writes for the same calls: byte for byte, but for the timestamp.
 */

type Call = [values: MetricValue[], dimensions: Record<string, string>, metadata?: Record<string, string | number>];

/** What Powertools Metrics printed for one `recordMetrics` call, as the service made it. */
function powertoolsLine(serviceName: string, [values, dimensions, metadata = {}]: Call): string {
  const written: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    const metrics = new Metrics({ namespace: 'AuthCore', serviceName });
    metrics.addDimensions({ ...dimensions });
    for (const [key, value] of Object.entries(metadata)) metrics.addMetadata(key, String(value));
    for (const v of values) metrics.addMetric(v.name, v.unit, v.value);
    metrics.publishStoredMetrics();
  } finally {
    spy.mockRestore();
  }
  expect(written).toHaveLength(1);
  return written[0].replace(/"Timestamp":\d+/, '"Timestamp":0').trimEnd();
}

const CALLS: Call[] = [
  [[{ name: 'Imports', value: 1, unit: MetricUnit.Count }], { Password: 'hash', Outcome: 'created' }],
  [
    [
      { name: 'Requests', value: 1, unit: MetricUnit.Count },
      { name: 'Latency', value: 12.5, unit: MetricUnit.Milliseconds },
    ],
    { Operation: 'emailpassword-signin', Outcome: 'OK' },
  ],
  [
    [
      { name: 'SignInMigrations', value: 1, unit: MetricUnit.Count },
      { name: 'SignInMigrationLatency', value: 40, unit: MetricUnit.Milliseconds },
    ],
    { Source: 'cognito', Outcome: 'mismatch' },
    { userId: 'u-1', answer: 'NotAuthorizedException', attempt: 2 },
  ],
  // A name given twice, a dimension named like metadata, an empty dimension value, no dimension.
  [
    [
      { name: 'BulkRowsImported', value: 3, unit: MetricUnit.Count },
      { name: 'BulkRowsImported', value: 4, unit: MetricUnit.Count },
    ],
    { Lane: '7', Empty: '' },
    { Lane: 'metadata' },
  ],
  [[{ name: 'Rehashes', value: 1, unit: MetricUnit.Count }], {}],
];

describe('EMF lines', () => {
  it.each(CALLS.map((call, i) => [i, call] as const))('are those Powertools Metrics wrote (call %i)', (_, call) => {
    const [values, dimensions, metadata = {}] = call;
    expect(emfLine(values, dimensions, metadata, 'auth-core-test', 0)).toBe(powertoolsLine('auth-core-test', call));
  });

  it('name the service from POWERTOOLS_SERVICE_NAME, service_undefined without it', () => {
    expect(metricsServiceName({ POWERTOOLS_SERVICE_NAME: 'auth-core-prod' })).toBe('auth-core-prod');
    expect(metricsServiceName({ POWERTOOLS_SERVICE_NAME: ' ' })).toBe('service_undefined');
    expect(metricsServiceName({})).toBe('service_undefined');
  });
});
