import { Duration, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { backgroundFunction } from '../routes';
import { functionLogGroupName } from '../settings';
import { WORKER_BATCH_SIZE, WORKER_FILTER_PATTERNS, WORKER_PARALLELIZATION } from '../worker-stream';
import { functionThrottleAlarms } from './alarms';
import { RouteFunction, type RouteFunctionProps } from './route-function';

/** How long the mapping gathers records for a batch (SPEC §15: within seconds). */
export const WORKER_BATCHING_WINDOW_SECONDS = 1;
/** A failing batch is retried (halved each time) this often before it goes to the dead-letter queue. */
export const WORKER_RETRY_ATTEMPTS = 3;
/** A batch of 100 rows with plain-text passwords to hash, and retries of lost races, fit easily. */
export const WORKER_TIMEOUT_SECONDS = 120;
/** The stream is read this far behind (ms) before the iterator-age alarm pages. */
export const ITERATOR_AGE_ALARM_MS = 5 * 60 * 1000;
export const SWEEP_EVERY_MINUTES = 5;

export interface BulkImportProps extends Omit<RouteFunctionProps, 'route' | 'extraGrants' | 'timeout'> {
  readonly table: dynamodb.Table;
  /** `auth-core-<stage>`: alarm names start with it. */
  readonly namePrefix: string;
  readonly alarmTopicArn?: string;
}

/**
 * The bulk-import engine (SPEC §15): the worker fed by the table's stream through an event source
 * mapping (only staged rows and the sweeper's hand-ons pass its filter; batch item failures,
 * bisect on error, a bounded number of retries, then an SQS dead-letter queue), the sweeper every
 * five minutes, and alarms on the stream's iterator age, the dead-letter queue's depth and the two
 * functions' throttles.
 */
export class BulkImport extends Construct {
  readonly worker: RouteFunction;
  readonly sweeper: RouteFunction;
  readonly deadLetters: sqs.Queue;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: BulkImportProps) {
    super(scope, id);
    const { table } = props;
    const streamArn = table.tableStreamArn;
    if (!streamArn) throw new Error('The bulk-import worker needs the table stream');

    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });

    Validations.of(this.deadLetters).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is the dead-letter queue: it holds the stream batches the worker gave up on, and nothing consumes it automatically.',
    });

    // The mapping reads the stream and writes the dead-letter queue as the function's role: the
    // grants go in the role's one inline policy (no separate policy resource), a role of its own
    // since no other function needs them.
    this.worker = new RouteFunction(this, 'Worker', {
      ...props,
      route: backgroundFunction('bulkimport-worker'),
      timeout: Duration.seconds(WORKER_TIMEOUT_SECONDS),
      extraGrants: {
        name: 'BulkStream',
        description: 'read the table stream and send to the bulk-import dead-letter queue',
        statements: [
          new iam.PolicyStatement({
            actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
            resources: [streamArn],
          }),
          new iam.PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: [`${table.tableArn}/stream/*`] }),
          new iam.PolicyStatement({ actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], resources: [this.deadLetters.queueArn] }),
        ],
      },
    });
    const tableId = Stack.of(this).getLogicalId(table.node.defaultChild as dynamodb.CfnTable);
    Validations.of(this.worker.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/stream/*]`,
      reason: "dynamodb:ListStreams on this table's streams only: the stream label (the last part of its ARN) changes whenever the stream is re-enabled.",
    });
    const mapping = new lambda.CfnEventSourceMapping(this, 'Stream', {
      functionName: this.worker.fn.functionName,
      eventSourceArn: streamArn,
      startingPosition: 'TRIM_HORIZON',
      batchSize: WORKER_BATCH_SIZE,
      maximumBatchingWindowInSeconds: WORKER_BATCHING_WINDOW_SECONDS,
      parallelizationFactor: WORKER_PARALLELIZATION,
      bisectBatchOnFunctionError: true,
      maximumRetryAttempts: WORKER_RETRY_ATTEMPTS,
      functionResponseTypes: ['ReportBatchItemFailures'],
      destinationConfig: { onFailure: { destination: this.deadLetters.queueArn } },
      filterCriteria: { filters: WORKER_FILTER_PATTERNS.map((pattern) => ({ pattern: JSON.stringify(pattern) })) },
    });
    // The role must hold the stream grants before the mapping is created.
    mapping.node.addDependency(this.worker.role);

    this.sweeper = new RouteFunction(this, 'Sweeper', { ...props, route: backgroundFunction('bulkimport-sweeper'), timeout: Duration.seconds(60) });
    new events.Rule(this, 'Sweep', {
      description: 'Hands bulk rows a crash left NEW or PROCESSING to the import worker again',
      schedule: events.Schedule.rate(Duration.minutes(SWEEP_EVERY_MINUTES)),
      targets: [new targets.LambdaFunction(this.sweeper.fn, { retryAttempts: 2 })],
    });

    const topic = props.alarmTopicArn ? sns.Topic.fromTopicArn(this, 'Topic', props.alarmTopicArn) : undefined;
    const add = (alarm: cloudwatch.Alarm) => {
      if (topic) alarm.addAlarmAction(new actions.SnsAction(topic));
      this.alarms.push(alarm);
    };
    add(
      new cloudwatch.Alarm(this, 'IteratorAge', {
        alarmName: `${props.namePrefix}-bulk-iterator-age`,
        alarmDescription: `The bulk-import worker reads the table stream more than ${ITERATOR_AGE_ALARM_MS / 60000} minutes behind: staged rows wait (throttling, errors, or too little concurrency)`,
        metric: this.worker.fn.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
        threshold: ITERATOR_AGE_ALARM_MS,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 5,
        datapointsToAlarm: 3,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    add(
      new cloudwatch.Alarm(this, 'DeadLetterDepth', {
        alarmName: `${props.namePrefix}-bulk-dead-letters`,
        alarmDescription:
          'Stream batches the bulk-import worker gave up on: their rows stay NEW or PROCESSING until the sweeper hands them over again; ' +
          `read the worker's log streams (${props.namePrefix}-bulkimport-worker) in ${functionLogGroupName(props.stage)}`,
        metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    );
    // The worker's and the sweeper's throttles, as each route family alarms on its functions'.
    this.alarms.push(
      ...functionThrottleAlarms(this, {
        namePrefix: props.namePrefix,
        group: 'background',
        functions: [this.worker, this.sweeper],
        ...(props.alarmTopicArn !== undefined ? { alarmTopicArn: props.alarmTopicArn } : {}),
      }),
    );
  }
}
