import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { RouteDef } from '../routes';
import type { Throttling } from '../settings';

/**
 * The API Gateway paths of a route (SPEC §2 tenant forms). API Gateway matches literally and
 * case-sensitively, so only the lower-case spellings are routed; the handler resolves the tenant
 * from the raw path itself (`lib/http/tenant-path.ts`).
 * - every route: `/path` and `/{tenantId}/path` (for `app` routes the handler refuses a tenant
 *   other than `public` with 403, `appFromToken` ones ignore it; `/appid-public/path` also arrives
 *   here as `tenantId=appid-public`);
 * - tenant routes (`tenant`, `tenantLookup`) also: `/appid-public/{tenantId}/path`.
 */
export function apiPathsOf(route: RouteDef): string[] {
  const paths = [route.path, `/{tenantId}${route.path}`];
  if (route.scope === 'tenant' || route.scope === 'tenantLookup') paths.push(`/appid-public/{tenantId}${route.path}`);
  return paths;
}

/**
 * Every handler but /hello checks the `api-key` header itself, in constant time, against keys in
 * SSM (SPEC §1). API Gateway authorizers would add latency and a second key store without adding
 * a check; /hello is a public health check by design.
 */
const NO_AUTHORIZER = 'Each Lambda checks the api-key header against the SSM-held key list in constant time; /hello is public by design.';

/**
 * Routes every path form of a route to its function, in `scope` (the route family's stack): one
 * Lambda integration (payload format 2.0) and one invoke permission for this API, and one API
 * route per path form. The API itself may be in another stack (the parent's): these resources
 * take its id.
 */
export function routeToFunction(scope: Construct, api: apigw.IHttpApi, route: RouteDef, fn: lambda.IFunction): void {
  const integration = new HttpLambdaIntegration(`${route.id}-integration`, fn, {
    payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
    // One invoke permission per function (for this API), not one per path form: a stack holds
    // 500 resources, and each route's two or three path forms would otherwise cost one each.
    // Only this function's own routes integrate with it, so the wider scope lets nothing else in.
    scopePermissionToRoute: false,
  });
  apiPathsOf(route).forEach((path, i) => {
    const apiRoute = new apigw.HttpRoute(scope, `${route.id}-Route${i}`, {
      httpApi: api,
      routeKey: apigw.HttpRouteKey.with(path, apigw.HttpMethod[route.method]),
      integration,
    });
    Validations.of(apiRoute).acknowledge({ id: 'AwsSolutions-APIG4', reason: NO_AUTHORIZER });
  });
}

/** Props of {@link AuthHttpApi}. */
export interface AuthHttpApiProps {
  readonly apiName: string;
  readonly throttling: Throttling;
  readonly logRetention: logs.RetentionDays;
  readonly isProduction: boolean;
}

/**
 * The HTTP API, its `$default` stage with throttling and JSON access logs. No CORS: this is a
 * server-to-server API. Its routes are made in each route family's stack ({@link routeToFunction}):
 * one Lambda integration per route of the route table, routed on each of the route's tenant forms
 * and nothing else.
 */
export class AuthHttpApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: AuthHttpApiProps) {
    super(scope, id);
    this.api = new apigw.HttpApi(this, 'Api', {
      apiName: props.apiName,
      description: 'Authentication core (SuperTokens CDI 5.x migration interface)',
      createDefaultStage: false,
    });

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      logGroupName: `/aws/apigateway/${props.apiName}/access`,
      retention: props.logRetention,
      removalPolicy: props.isProduction ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttling,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        // The path without its query string, and no headers: query strings carry emails and
        // phone numbers, headers carry the API key. Neither belongs in access logs.
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTimeEpoch',
            method: '$context.httpMethod',
            path: '$context.path',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            latency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
          }),
        ),
      },
    });

    Validations.of(this.api).acknowledge({ id: 'AwsSolutions-APIG4', reason: NO_AUTHORIZER });
  }
}
