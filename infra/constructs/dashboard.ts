import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE } from '../../lib/log/metric-names';
import { tableThrottles } from './alarms';

/** The operations whose p99 latency the dashboard draws (the ones a migration leans on). */
export const DASHBOARD_LATENCY_OPERATIONS: readonly string[] = [
  'emailpassword-signin',
  'emailpassword-import',
  'bulkimport-stage',
  'passwordless-consume-code',
  'thirdparty-signinup',
  'session-exchange',
];

/** Props of {@link MigrationDashboard}. */
export interface MigrationDashboardProps {
  /** `auth-core-<stage>`: the dashboard's name prefix and the `service` dimension of the metrics. */
  readonly namePrefix: string;
  readonly api: apigw.HttpApi;
  readonly table: dynamodb.ITable;
  readonly alarms: readonly cloudwatch.IAlarm[];
}

/**
 * One CloudWatch dashboard for watching a migration (issue #15), from the metrics the functions
 * write (`lib/log/metrics.ts`, namespace `AuthCore`, `service` = the stage's name) and the AWS
 * ones: users imported per minute, rows left by status, failures, sign-ins by hash format, old
 * providers' tokens exchanged by outcome, p99 latency, throttles, and the state of every alarm.
 */
export class MigrationDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MigrationDashboardProps) {
    super(scope, id);
    const service = props.namePrefix;
    const minute = Duration.minutes(1);
    const own = (metricName: string, statistic: string, period: Duration, label: string, dimensions: Record<string, string> = {}) =>
      new cloudwatch.Metric({ namespace: METRIC_NAMESPACE, metricName, dimensionsMap: { service, ...dimensions }, statistic, period, label });
    // Metrics whose other dimensions take several values (each a series of its own).
    const search = (dimensionNames: readonly string[], metricName: string, filter: string, statistic: string, period: Duration, label: string) =>
      new cloudwatch.MathExpression({
        expression: `SEARCH('{${METRIC_NAMESPACE},${['service', ...dimensionNames].join(',')}} MetricName="${metricName}" service="${service}"${filter ? ` ${filter}` : ''}', '${statistic}', ${period.toSeconds()})`,
        usingMetrics: {},
        label,
        period,
      });
    const operations = DASHBOARD_LATENCY_OPERATIONS.map((op) => `"${op}"`).join(' OR ');

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${props.namePrefix}-migration`,
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'Users imported per minute',
            width: 12,
            left: [
              own('BulkRowsImported', 'Sum', minute, 'bulk import (worker)'),
              search(['Password', 'Outcome'], 'Imports', 'Outcome="created"', 'Sum', minute, 'passwordhash/import'),
            ],
          }),
          new cloudwatch.GraphWidget({
            title: 'Bulk rows left, by status (every sweep)',
            width: 12,
            left: [
              own('BulkRowsLeftNew', 'Maximum', Duration.minutes(5), 'NEW'),
              own('BulkRowsLeftProcessing', 'Maximum', Duration.minutes(5), 'PROCESSING'),
              own('BulkRowsLeftFailed', 'Maximum', Duration.minutes(5), 'FAILED'),
            ],
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Failures per minute',
            width: 12,
            left: [
              own('BulkRowsFailed', 'Sum', minute, 'bulk rows failed (E0xx, see GET /bulk-import/users?status=FAILED)'),
              own('BulkRowErrors', 'Sum', minute, 'bulk rows with an internal error (handed over again)'),
              search(['Source', 'Outcome'], 'SignInMigrations', 'Outcome="unavailable"', 'Sum', minute, 'old provider unavailable at sign-in'),
              props.api.metricServerError({ period: minute, statistic: 'Sum', label: 'API 5xx' }),
              props.api.metricClientError({ period: minute, statistic: 'Sum', label: 'API 4xx' }),
            ],
          }),
          new cloudwatch.GraphWidget({
            title: 'Sign-ins by hash format, and rehashes, per minute',
            width: 12,
            left: [
              search(['HashFormat', 'Outcome'], 'SignIns', 'Outcome="OK"', 'Sum', minute, 'sign-ins'),
              search(['HashFormat'], 'Rehashes', '', 'Sum', minute, 'rehashed'),
              search(['Source', 'Outcome'], 'SignInMigrations', 'Outcome="migrated"', 'Sum', minute, 'migrated at sign-in'),
            ],
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: "Old providers' tokens exchanged, by issuer and outcome, per minute",
            width: 24,
            left: [
              // OK, each refusal, and KEYS_UNAVAILABLE (the 503 of an old provider's key outage).
              search(['Issuer', 'Outcome'], 'SessionExchanges', '', 'Sum', minute, 'session exchanges'),
            ],
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'p99 latency (ms)',
            width: 12,
            left: [
              props.api.metricLatency({ period: Duration.minutes(5), statistic: 'p99', label: 'API (all routes)' }),
              search(['Operation', 'Outcome'], 'Latency', `Operation=(${operations})`, 'p99', Duration.minutes(5), 'function'),
            ],
          }),
          new cloudwatch.GraphWidget({
            title: 'Throttles per minute',
            width: 12,
            left: [
              tableThrottles(props.table, minute),
              own('BulkRowThrottles', 'Sum', minute, 'bulk rows waited on for capacity (worker)'),
              new cloudwatch.Metric({
                namespace: 'AWS/Lambda',
                metricName: 'Throttles',
                statistic: 'Sum',
                period: minute,
                label: 'Lambda throttles (account)',
              }),
            ],
          }),
        ],
        [new cloudwatch.AlarmStatusWidget({ title: 'Alarms', width: 24, alarms: [...props.alarms] })],
      ],
    });
  }
}
