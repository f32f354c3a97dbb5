import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { passwordMigrationSourceOf } from '../../lib/config/config';
import { ARGON2_BINARY_PACKAGE } from '../bundling';
import type { FunctionDef, RouteSecret } from '../routes';
import { functionLogGroupName, resourceName, type LambdaArch } from '../settings';
import type { ExecutionRoles, ExtraGrants, SecretParameterNames } from './execution-roles';
import {
  BULK_MEMORY_MB,
  BULK_TIMEOUT_SECONDS,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
  HASHING_TIMEOUT_SECONDS,
  hashingMemoryMb,
  LIST_READ_TIMEOUT_SECONDS,
} from '../sizing';

/**
 * The AWS Parameters and Secrets Lambda Extension: functions read their SSM parameters with a GET
 * on its localhost port (`lib/config/parameters.ts`) instead of bundling the SSM client (about
 * 90 KB of every bundle). Its own cache is off: the configuration loader already keeps secrets for
 * 5 minutes, and two caches in a row would make a rotated API key take up to 10 minutes to reach
 * every function instead of 5.
 */
export const PARAMS_AND_SECRETS = lambda.ParamsAndSecretsLayerVersion.fromVersion(lambda.ParamsAndSecretsVersions.V1_0_103, {
  cacheEnabled: false,
  logLevel: lambda.ParamsAndSecretsLogLevel.WARN,
});

/** The Node major Lambda runs; `LAMBDA_TARGET` in `infra/bundling.ts` names the same one. */
export const LAMBDA_RUNTIME = lambda.Runtime.NODEJS_22_X;

/**
 * The secrets a route's function reads: those of the route table, but the password migration
 * secret only while a source is configured (`PASSWORD_MIGRATION_SOURCE`), so a stage without
 * password migration needs no such parameter and grants nothing for it.
 */
export function secretsOf(route: Pick<FunctionDef, 'secrets'>, environment: Readonly<Record<string, string>>): RouteSecret[] {
  const migrates = passwordMigrationSourceOf(environment) !== 'off';
  return route.secrets.filter((secret) => secret !== 'passwordMigration' || migrates);
}

/** Props of {@link functionLogGroup}. */
export interface FunctionLogGroupProps {
  readonly stage: string;
  readonly isProduction: boolean;
  readonly retention: logs.RetentionDays;
}

/**
 * The one log group of a stage's functions, `/aws/lambda/auth-core-<stage>`: every route function
 * and the bulk-import worker and sweeper write to it (Lambda's advanced logging controls,
 * `LoggingConfig.LogGroup`). One group per function cost one CloudFormation resource per route,
 * and a stack holds at most 500.
 *
 * Nothing is lost by sharing. The Lambda developer guide ("Configuring CloudWatch log groups"):
 * several functions may send logs to the same group, and in a custom group the log streams Lambda
 * creates include the function name and version, named
 * `YYYY/MM/DD/<function_name>[<function_version>][<execution_environment_GUID>]`, so each line
 * still shows which function wrote it (in Logs Insights, `filter @logStream like /-user-get\[/`).
 * The same guide: a custom group's name must not begin with `aws/`; this one begins with
 * `/aws/lambda/`, where the per-function groups were, and is no function's default group (no
 * function is named `auth-core-<stage>`).
 * What it widens: every role may write to the group, so a function could write into another
 * function's streams; code running in one function could already write misleading lines to its
 * own, and the stage's logs are read as a whole.
 *
 * The worker and the sweeper share it too: they are the stage's functions like the routes, with
 * the same retention and removal policy, and a bulk import is read across the request that staged
 * it and the worker that imported it; their streams carry their names like every other.
 */
export function functionLogGroup(scope: Construct, id: string, props: FunctionLogGroupProps): logs.LogGroup {
  return new logs.LogGroup(scope, id, {
    logGroupName: functionLogGroupName(props.stage),
    retention: props.retention,
    removalPolicy: props.isProduction ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
}

/** Props of {@link RouteFunction}. */
export interface RouteFunctionProps {
  readonly route: FunctionDef;
  readonly stage: string;
  readonly table: dynamodb.ITable;
  readonly architecture: LambdaArch;
  /**
   * The function bundles built for that architecture (`buildLambdaFunctions` in
   * `scripts/build.ts`): `<bundleDir>/<function id>/index.js`.
   */
  readonly bundleDir: string;
  readonly parameters: SecretParameterNames;
  /** Configuration variables for every function (already checked against the allowed list). */
  readonly environment: Readonly<Record<string, string>>;
  /** The stage's one log group of functions ({@link functionLogGroup}). */
  readonly logGroup: logs.ILogGroup;
  /** The stage's execution roles, one per grant set; its role grants writing to `logGroup`. */
  readonly roles: ExecutionRoles;
  /**
   * The `sessionExchangeIssuers` context (checked, compact JSON): `SESSION_EXCHANGE_ISSUERS` of the
   * function that reads the exchange's issuers, and of no other.
   */
  readonly sessionExchangeIssuers?: string;
  /** Grants beyond the route table's (a stream reader's stream and dead-letter queue), inline too. */
  readonly extraGrants?: ExtraGrants;
  /** @default what `infra/sizing.ts` gives the route */
  readonly timeout?: Duration;
}

/**
 * One route's Lambda: its bundle as built by `scripts/build.ts` (the same build `npm start` and
 * the tests run, for Lambda's platform), writing to the stage's one log group, with the role of
 * its grant set ({@link ExecutionRoles}). The role holds exactly what the route table says the
 * route needs: DynamoDB actions by `access`, `ssm:GetParameter` on the parameters named by
 * `secrets` (read through the Parameters and Secrets extension layer, attached to exactly those
 * functions), and writing to the stage's log group; functions share a role only when they need
 * the same. Nothing is granted through managed policies, so no function can do what another needs.
 */
export class RouteFunction extends Construct {
  readonly fn: lambda.Function;
  /** The stage's log group, shared with the other functions. */
  readonly logGroup: logs.ILogGroup;
  /** The role of the function's grant set, shared with the functions of the same set. */
  readonly role: iam.Role;
  readonly route: FunctionDef;

  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    super(scope, id);
    const { route } = props;
    this.route = route;
    const functionName = resourceName(props.stage, route.id);
    const secrets = secretsOf(route, props.environment);
    this.logGroup = props.logGroup;
    this.role = props.roles.roleFor({ access: route.access, secrets, ...(props.extraGrants ? { extra: props.extraGrants } : {}) });

    // The `service` dimension of every metric the function writes (`lib/log/metrics.ts`).
    const environment: Record<string, string> = { ...props.environment, POWERTOOLS_SERVICE_NAME: resourceName(props.stage) };
    if (route.access !== 'none') environment.TABLE_NAME = props.table.tableName;
    if (secrets.includes('apiKeys')) environment.API_KEYS_PARAMETER = props.parameters.apiKeys;
    if (secrets.includes('signerKey')) environment.SIGNER_KEY_PARAMETER = props.parameters.signerKey;
    if (secrets.includes('passwordMigration')) environment.PASSWORD_MIGRATION_SECRET_PARAMETER = props.parameters.passwordMigration;
    if (secrets.includes('sessionExchange')) {
      environment.SESSION_EXCHANGE_ISSUERS_PARAMETER = props.parameters.sessionExchange;
      if (props.sessionExchangeIssuers !== undefined) environment.SESSION_EXCHANGE_ISSUERS = props.sessionExchangeIssuers;
    }

    this.fn = new lambda.Function(this, 'Function', {
      ...(secrets.length > 0 ? { paramsAndSecrets: PARAMS_AND_SECRETS } : {}),
      functionName,
      description: (route.method ? `${route.method} ${route.path}: ${route.summary}` : route.summary).slice(0, 256),
      code: lambda.Code.fromAsset(bundleOf(route, props)),
      handler: 'index.handler',
      runtime: LAMBDA_RUNTIME,
      architecture: props.architecture === 'arm64' ? lambda.Architecture.ARM_64 : lambda.Architecture.X86_64,
      memorySize: route.hashesPasswords ? hashingMemoryMb(props.environment) : route.bulk ? BULK_MEMORY_MB : DEFAULT_MEMORY_MB,
      timeout:
        props.timeout ??
        Duration.seconds(
          route.hashesPasswords
            ? HASHING_TIMEOUT_SECONDS
            : route.bulk
              ? BULK_TIMEOUT_SECONDS
              : route.readsWholeList
                ? LIST_READ_TIMEOUT_SECONDS
                : DEFAULT_TIMEOUT_SECONDS,
        ),
      role: this.role,
      logGroup: this.logGroup,
      environment,
    });

    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Node.js 22 on purpose: the bundles are built for node22 and tested on that major; moving to ' +
        'Node 24 is a deliberate upgrade with its own test run, not something a linter should force.',
    });
  }
}

/**
 * The directory of a function's bundle, checked before it becomes an asset: a missing bundle, or
 * a password function built for another architecture, would deploy and then fail every request.
 */
function bundleOf(route: FunctionDef, props: Pick<RouteFunctionProps, 'bundleDir' | 'architecture'>): string {
  const dir = join(props.bundleDir, route.id);
  if (!existsSync(join(dir, 'index.js'))) {
    throw new Error(`No bundle for ${route.id} in ${props.bundleDir}: build it with buildLambdaFunctions (scripts/build.ts)`);
  }
  if (route.hashesPasswords) {
    const binary = ARGON2_BINARY_PACKAGE[props.architecture].replace('@node-rs/argon2-', 'argon2.');
    if (!readdirSync(dir).some((f) => f.startsWith(`${binary}-`) && f.endsWith('.node'))) {
      throw new Error(`The bundle of ${route.id} in ${props.bundleDir} has no ${binary} binary: it was not built for ${props.architecture}`);
    }
  }
  return dir;
}
