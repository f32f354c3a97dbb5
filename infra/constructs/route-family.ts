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
/** CDK refuses a stack description over 512 characters (CloudFormation's own bound is 1,024 bytes). */
export const MAX_STACK_DESCRIPTION = 512;

/**
 * A family stack's description: its route ids, as many as fit, then how many more. A large
 * family (WebAuthn plans over 20 routes) would otherwise stop the synth.
 */
export function familyDescription(namePrefix: string, family: string, ids: readonly string[]): string {
  const head = `${namePrefix}: the ${ids.length} ${family} routes (`;
  let listed = ids.length;
  const text = (n: number) => `${head}${ids.slice(0, n).join(', ')}${n < ids.length ? `, and ${ids.length - n} more` : ''})`;
  while (listed > 0 && text(listed).length > MAX_STACK_DESCRIPTION) listed -= 1;
  return text(listed);
}

export class RouteFamilyStack extends NestedStack {
  readonly family: string;
  readonly functions: readonly RouteFunction[];
  readonly alarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: RouteFamilyStackProps) {
    super(scope, id, {
      description: familyDescription(
        props.namePrefix,
        props.family,
        props.routes.map((r) => r.id),
      ),
    });
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
