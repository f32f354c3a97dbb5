import { Duration } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRIC_NAMESPACE } from '../../lib/log/metric-names';
import type { PasswordMigrationSourceName } from '../../lib/password-migration/sources';
import type { RouteFunction } from './route-function';

/** Alarm when more than this share (percent) of requests in a period end in a 5xx. */
export const SERVER_ERROR_RATE_PERCENT = 1;

/** Below this many requests per period a single 5xx says little; the rate alarm stays quiet. */
export const SERVER_ERROR_MIN_REQUESTS = 20;

/**
 * Functions per throttle alarm: a CloudWatch alarm's metric math takes at most 10 metrics. One
 * alarm per function would cost a CloudFormation resource per route (a stack holds 500).
 */
export const FUNCTIONS_PER_THROTTLE_ALARM = 10;

/** Props of {@link functionThrottleAlarms}. */
export interface FunctionThrottleAlarmsProps {
  /** `auth-core-<stage>`: every alarm name starts with it. */
  readonly namePrefix: string;
  /** What the functions are (a route family, or `background`): part of each alarm's name. */
  readonly group: string;
  readonly functions: readonly RouteFunction[];
  /** Alarms notify this topic when given; otherwise they only show in the console. */
  readonly alarmTopicArn?: string;
}

/**
 * Throttles of a group of functions, ten functions per alarm (`<prefix>-function-throttles-<group>-<n>`):
 * made beside the functions, in their stack, so an alarm reads its functions' names within its
 * own template. The group in the name keeps each name apart from every other group's, and from
 * the numbered names of the one-stack layout (a new alarm under an old name would be overwritten
 * and then deleted with the old one when a stage moves to the nested stacks).
 */
export function functionThrottleAlarms(scope: Construct, props: FunctionThrottleAlarmsProps): cloudwatch.Alarm[] {
  const period = Duration.minutes(5);
  const topic = props.alarmTopicArn ? sns.Topic.fromTopicArn(scope, 'AlarmTopic', props.alarmTopicArn) : undefined;
  const alarms: cloudwatch.Alarm[] = [];
  for (let i = 0; i < props.functions.length; i += FUNCTIONS_PER_THROTTLE_ALARM) {
    const group = props.functions.slice(i, i + FUNCTIONS_PER_THROTTLE_ALARM);
    const n = i / FUNCTIONS_PER_THROTTLE_ALARM + 1;
    const usingMetrics = Object.fromEntries(group.map((f, j) => [`t${j}`, f.fn.metricThrottles({ period, statistic: 'Sum' })]));
    const alarm = new cloudwatch.Alarm(scope, `FunctionThrottles-${props.group}-${n}`, {
      alarmName: `${props.namePrefix}-function-throttles-${props.group}-${n}`,
      alarmDescription: `Lambda throttled invocations (account concurrency exhausted) of: ${group.map((f) => f.route.id).join(', ')}`.slice(0, 1024),
      // A function that was not throttled has no datapoint; FILL keeps the sum defined.
      metric: new cloudwatch.MathExpression({
        label: 'Throttled invocations',
        expression: Object.keys(usingMetrics)
          .map((id) => `FILL(${id}, 0)`)
          .join(' + '),
        usingMetrics,
        period,
      }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    if (topic) alarm.addAlarmAction(new actions.SnsAction(topic));
    alarms.push(alarm);
  }
  return alarms;
}

/** DynamoDB operations the functions send (see `lib/storage/dynamo`). */
const TABLE_OPERATIONS: readonly dynamodb.Operation[] = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
];

/**
 * Throttled requests summed over the operations. DynamoDB only emits `ThrottledRequests` for an
 * operation that was throttled, and `a + b` has no value where one series has none, so each
 * series is filled with 0 first; otherwise a throttle on one operation alone would never alarm.
 */
export function tableThrottles(table: dynamodb.ITable, period: Duration): cloudwatch.MathExpression {
  const usingMetrics: Record<string, cloudwatch.IMetric> = {};
  for (const op of TABLE_OPERATIONS) {
    usingMetrics[op.toLowerCase()] = table.metric('ThrottledRequests', {
      dimensionsMap: { TableName: table.tableName, Operation: op },
      statistic: 'Sum',
      period,
    });
  }
  return new cloudwatch.MathExpression({
    label: 'Throttled requests',
    expression: Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(' + '),
    usingMetrics,
    period,
  });
}

/** Props of {@link AuthAlarms}. */
export interface AuthAlarmsProps {
  /** `auth-core-<stage>`: every alarm name starts with it. */
  readonly namePrefix: string;
  readonly api: apigw.HttpApi;
  readonly table: dynamodb.Table;
  /** Alarms notify this topic when given; otherwise they only show in the console. */
  readonly alarmTopicArn?: string;
  /** The configured password migration source (SPEC §16), if any: its outages alarm. */
  readonly passwordMigrationSource?: PasswordMigrationSourceName;
}

/** Alarm when more than this share (percent) of password migrations at sign-in find the old provider unavailable. */
export const PASSWORD_SOURCE_UNAVAILABLE_PERCENT = 5;
/** Below this many first sign-ins per period the rate says little. */
export const PASSWORD_SOURCE_MIN_SIGN_INS = 10;

/**
 * The stage's own CloudWatch alarms: the API's 5xx rate, DynamoDB throttling, and (with password
 * migration) the old provider's outages. The functions' throttles alarm beside the functions
 * ({@link functionThrottleAlarms}: in each route family's stack, and the bulk-import engine's).
 */
export class AuthAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: AuthAlarmsProps) {
    super(scope, id);
    const period = Duration.minutes(5);
    const topic = props.alarmTopicArn ? sns.Topic.fromTopicArn(this, 'Topic', props.alarmTopicArn) : undefined;

    const serverErrorRate = new cloudwatch.MathExpression({
      label: '5xx rate (%)',
      expression: `IF(requests >= ${SERVER_ERROR_MIN_REQUESTS}, 100 * FILL(errors, 0) / requests, 0)`,
      usingMetrics: {
        errors: props.api.metricServerError({ period, statistic: 'Sum' }),
        requests: props.api.metricCount({ period, statistic: 'Sum' }),
      },
      period,
    });
    this.add(
      new cloudwatch.Alarm(this, 'ServerErrorRate', {
        alarmName: `${props.namePrefix}-api-5xx-rate`,
        alarmDescription: `More than ${SERVER_ERROR_RATE_PERCENT}% of API requests answered 5xx (min ${SERVER_ERROR_MIN_REQUESTS} requests per 5 minutes)`,
        metric: serverErrorRate,
        threshold: SERVER_ERROR_RATE_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      topic,
    );

    this.add(
      new cloudwatch.Alarm(this, 'TableThrottles', {
        alarmName: `${props.namePrefix}-table-throttles`,
        alarmDescription: 'DynamoDB throttled requests on the table (hot partition or on-demand scaling limit)',
        metric: tableThrottles(props.table, period),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      topic,
    );

    if (props.passwordMigrationSource) this.passwordSourceAlarm(props, props.passwordMigrationSource, period, topic);
  }

  /**
   * The old provider down or refusing us (SPEC §16): those users get a 503 at sign-in. Its metrics
   * (`lib/log/metrics.ts`) carry the stage's `service`, the source and the verdict.
   */
  private passwordSourceAlarm(props: AuthAlarmsProps, source: PasswordMigrationSourceName, period: Duration, topic: sns.ITopic | undefined): void {
    const verdicts = ['migrated', 'mismatch', 'unavailable'] as const;
    const usingMetrics = Object.fromEntries(
      verdicts.map((outcome) => [
        outcome,
        new cloudwatch.Metric({
          namespace: METRIC_NAMESPACE,
          metricName: 'SignInMigrations',
          dimensionsMap: { service: props.namePrefix, Source: source, Outcome: outcome },
          statistic: 'Sum',
          period,
        }),
      ]),
    );
    const all = verdicts.map((v) => `FILL(${v}, 0)`).join(' + ');
    this.add(
      new cloudwatch.Alarm(this, 'PasswordSourceUnavailable', {
        alarmName: `${props.namePrefix}-password-source-unavailable`,
        alarmDescription: `More than ${PASSWORD_SOURCE_UNAVAILABLE_PERCENT}% of password migrations at sign-in found ${source} unavailable (min ${PASSWORD_SOURCE_MIN_SIGN_INS} per 5 minutes): those users get 503s`,
        metric: new cloudwatch.MathExpression({
          label: 'old provider unavailable (%)',
          expression: `IF(${all} >= ${PASSWORD_SOURCE_MIN_SIGN_INS}, 100 * FILL(unavailable, 0) / (${all}), 0)`,
          usingMetrics,
          period,
        }),
        threshold: PASSWORD_SOURCE_UNAVAILABLE_PERCENT,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 2,
        datapointsToAlarm: 2,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      topic,
    );
  }

  private add(alarm: cloudwatch.Alarm, topic: sns.ITopic | undefined): void {
    if (topic) alarm.addAlarmAction(new actions.SnsAction(topic));
    this.alarms.push(alarm);
  }
}
