import { NestedStack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { RouteDef } from '../routes';
import { functionThrottleAlarms } from './alarms';
import { routeToFunction } from './http-api';
import { RouteFunction, type RouteFunctionProps } from './route-function';

/** Props of {@link RouteFamilyStack}. */
export interface RouteFamilyStackProps {
  /** The family (`routeFamily`): the folder of its handlers under `functions/`. */
  readonly family: string;
  /** The family's routes, in route-table order. */
  readonly routes: readonly RouteDef[];
  /** What every function of the stage gets: table, roles, log group, bundles, environment. */
  readonly functions: Omit<RouteFunctionProps, 'route' | 'extraGrants' | 'timeout'>;
  /** The stage's HTTP API (in the parent stack). */
  readonly api: apigw.IHttpApi;
  /** `auth-core-<stage>`. */
  readonly namePrefix: string;
  readonly alarmTopicArn?: string;
}

/**
 * One recipe family's routes as a nested stack: for each route its Lambda
 * ({@link RouteFunction}), its integration, invoke permission and API routes (one per path form),
 * and throttle alarms on the family's functions, ten per alarm. About 5 to 6 CloudFormation
 * resources a route, so a family stack holds about 70 routes before the 450 the stack test allows.
 *
 * What it takes from the parent stack arrives as CloudFormation parameters, which CDK makes for
 * each reference: the table's name, the log group's name, the API's id and the ARN of each
 * execution role the family uses (a dozen at most, of the 200 a stack may have). What the parent
 * reads back, as outputs: each throttle alarm's ARN, for the dashboard. The parent creates the
 * stack after the table, log group, roles and API it references, and the dashboard after it.
 */
export class RouteFamilyStack extends NestedStack {
  readonly family: string;
  readonly functions: readonly RouteFunction[];
  readonly alarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: RouteFamilyStackProps) {
    super(scope, id, { description: `${props.namePrefix}: the ${props.family} routes (${props.routes.map((r) => r.id).join(', ')})`.slice(0, 1024) });
    this.family = props.family;
    this.functions = props.routes.map((route) => {
      const fn = new RouteFunction(this, `Route-${route.id}`, { ...props.functions, route });
      routeToFunction(this, props.api, route, fn.fn);
      return fn;
    });
    this.alarms = functionThrottleAlarms(this, {
      namePrefix: props.namePrefix,
      group: props.family,
      functions: this.functions,
      ...(props.alarmTopicArn !== undefined ? { alarmTopicArn: props.alarmTopicArn } : {}),
    });
  }
}
