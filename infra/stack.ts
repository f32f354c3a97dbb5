import { Annotations, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { AuthAlarms } from './constructs/alarms';
import { BulkImport } from './constructs/bulk-import';
import { MigrationDashboard } from './constructs/dashboard';
import { AuthHttpApi } from './constructs/http-api';
import { ExecutionRoles } from './constructs/execution-roles';
import { RouteFamilyStack } from './constructs/route-family';
import { functionLogGroup, type RouteFunction } from './constructs/route-function';
import { AuthTable } from './constructs/table';
import { passwordMigrationSourceOf } from '../lib/config/config';
import { ROUTES, routeFamily, type RouteDef } from './routes';
import { parameterNames, resourceName, type LambdaArch, type ProvisionedCapacity, type Throttling } from './settings';

/** Props of {@link AuthCoreStack}; `settingsFromContext` builds most of them from the CDK context. */
export interface AuthCoreStackProps extends StackProps {
  readonly stage: string;
  readonly isProduction: boolean;
  readonly throttling: Throttling;
  /** @default 'x86_64' */
  readonly architecture?: LambdaArch;
  /** @default ROUTES, the shared route table */
  readonly routes?: readonly RouteDef[];
  /** Warm throughput of the table (write units per second) for a bulk migration. @default DynamoDB's */
  readonly warmWriteUnitsPerSecond?: number;
  /** Provisioned capacity of the table for a migration window. @default on-demand */
  readonly provisionedCapacity?: ProvisionedCapacity;
  /** Configuration variables for every function. @default none */
  readonly functionEnvironment?: Readonly<Record<string, string>>;
  /** The session exchange's issuers, checked compact JSON (`StageSettings.sessionExchangeIssuers`). */
  readonly sessionExchangeIssuers?: string;
  readonly alarmTopicArn?: string;
  /**
   * The function bundles for `architecture`, `<bundleDir>/<function id>/index.js`, as
   * `buildLambdaFunctions` (`scripts/build.ts`) writes them; `infra/app.ts` builds them first.
   */
  readonly bundleDir: string;
}

/**
 * The service: the table, one Lambda per route of the route table (all writing to one log group,
 * with one role per distinct grant set), the HTTP API that routes to them, alarms, the migration
 * dashboard, and the `ApiUrl` / `TableName` outputs. Every name carries the stage.
 *
 * The routes' functions, integrations, API routes and throttle alarms are in one nested stack per
 * recipe family ({@link RouteFamilyStack}); this stack holds what the stage has whatever its
 * routes (table, log group, roles, API and stage, the bulk-import engine, alarms, dashboard) and
 * one resource per family. CloudFormation allows 500 resources a stack, and a route costs 5 to 6:
 * one stack would be full at about 80 routes (`test/infra/stack-size.test.ts` has the numbers).
 */
export class AuthCoreStack extends Stack {
  readonly table: AuthTable;
  /** The routes' functions, in route-table order. */
  readonly functions: readonly RouteFunction[];
  /** One nested stack per recipe family, in the order the route table first names each. */
  readonly families: readonly RouteFamilyStack[];
  /** The one log group of every function of the stage. */
  readonly functionLogs: logs.LogGroup;
  /** The functions' execution roles, one per distinct grant set. */
  readonly roles: ExecutionRoles;
  readonly httpApi: AuthHttpApi;
  readonly alarms: AuthAlarms;
  readonly bulkImport: BulkImport;
  readonly dashboard: MigrationDashboard;

  constructor(scope: Construct, id: string, props: AuthCoreStackProps) {
    super(scope, id, {
      description: `auth-core (${props.stage}): authentication core with user import`,
      ...props,
    });
    const routes = props.routes ?? ROUTES;
    if (routes.length === 0) {
      Annotations.of(this).addWarningV2(
        'auth-core:no-routes',
        'The stage has no routes: its API answers 404 to every request (routes=none moves a one-stack stage in two deploys, docs/DEPLOY.md)',
      );
    }
    const arch = props.architecture ?? 'x86_64';

    const logRetention = props.isProduction ? logs.RetentionDays.THREE_MONTHS : logs.RetentionDays.ONE_MONTH;

    this.table = new AuthTable(this, 'Storage', {
      tableName: resourceName(props.stage),
      isProduction: props.isProduction,
      ...(props.warmWriteUnitsPerSecond !== undefined ? { warmWriteUnitsPerSecond: props.warmWriteUnitsPerSecond } : {}),
      ...(props.provisionedCapacity !== undefined ? { provisionedCapacity: props.provisionedCapacity } : {}),
    });

    // One log group, and one role per grant set, for all functions of the stage: a group and a
    // role per function would cost two CloudFormation resources per route (a stack holds 500),
    // and the roles here serve the functions of every family's stack.
    this.functionLogs = functionLogGroup(this, 'FunctionLogs', { stage: props.stage, isProduction: props.isProduction, retention: logRetention });
    const parameters = parameterNames(props.stage);
    this.roles = new ExecutionRoles(this, 'FunctionRoles', {
      stage: props.stage,
      table: this.table.table,
      indexNames: this.table.indexNames,
      parameters,
      logGroup: this.functionLogs,
    });

    const common = {
      stage: props.stage,
      table: this.table.table,
      architecture: arch,
      bundleDir: props.bundleDir,
      parameters,
      environment: props.functionEnvironment ?? {},
      ...(props.sessionExchangeIssuers !== undefined ? { sessionExchangeIssuers: props.sessionExchangeIssuers } : {}),
      logGroup: this.functionLogs,
      roles: this.roles,
    };
    this.bulkImport = new BulkImport(this, 'BulkImport', {
      ...common,
      table: this.table.table,
      namePrefix: resourceName(props.stage),
      ...(props.alarmTopicArn !== undefined ? { alarmTopicArn: props.alarmTopicArn } : {}),
    });

    this.httpApi = new AuthHttpApi(this, 'Http', {
      apiName: resourceName(props.stage),
      throttling: props.throttling,
      logRetention,
      isProduction: props.isProduction,
    });

    const byFamily = new Map<string, RouteDef[]>();
    for (const route of routes) {
      const family = routeFamily(route);
      byFamily.set(family, [...(byFamily.get(family) ?? []), route]);
    }
    this.families = [...byFamily].map(
      ([family, familyRoutes]) =>
        new RouteFamilyStack(this, `${family[0].toUpperCase()}${family.slice(1)}Routes`, {
          family,
          routes: familyRoutes,
          functions: common,
          api: this.httpApi.api,
          namePrefix: resourceName(props.stage),
          ...(props.alarmTopicArn !== undefined ? { alarmTopicArn: props.alarmTopicArn } : {}),
        }),
    );
    const byId = new Map(this.families.flatMap((f) => f.functions.map((fn) => [fn.route.id, fn] as const)));
    this.functions = routes.map((route) => byId.get(route.id) as RouteFunction);

    const source = passwordMigrationSourceOf(props.functionEnvironment ?? {});
    this.alarms = new AuthAlarms(this, 'Alarms', {
      namePrefix: resourceName(props.stage),
      api: this.httpApi.api,
      table: this.table.table,
      alarmTopicArn: props.alarmTopicArn,
      ...(source === 'firebase' || source === 'webhook' || source === 'cognito' ? { passwordMigrationSource: source } : {}),
    });

    this.dashboard = new MigrationDashboard(this, 'Dashboard', {
      namePrefix: resourceName(props.stage),
      api: this.httpApi.api,
      table: this.table.table,
      alarms: [...this.alarms.alarms, ...this.bulkImport.alarms, ...this.families.flatMap((f) => f.alarms)],
    });

    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the HTTP API (no trailing slash): curl "$URL/hello"',
      value: this.httpApi.api.apiEndpoint,
    });
    new CfnOutput(this, 'TableName', { description: 'DynamoDB table', value: this.table.table.tableName });
  }
}
