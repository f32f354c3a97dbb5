import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { passwordMigrationSourceOf } from '../../lib/config/config';
import { ARGON2_BINARY_PACKAGE } from '../bundling';
import type { FunctionDef, RouteSecret } from '../routes';
import { resourceName, type LambdaArch } from '../settings';
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
 * What a `read` route may do: the commands the storage adapter sends for lookups (BatchGetItem:
 * the primary-user claims of account linking, the roles of a user).
 */
export const DYNAMODB_READ_ACTIONS: readonly string[] = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];

/**
 * What a `write` route may do on top of reading. `TransactWriteItems` is not an IAM action: each
 * item of a transaction is authorised as its own Put/Update/Delete/ConditionCheck.
 */
export const DYNAMODB_WRITE_ACTIONS: readonly string[] = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];

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

/** SSM parameter names the functions read their secrets from. */
export interface SecretParameterNames {
  readonly apiKeys: string;
  readonly signerKey: string;
  readonly passwordMigration: string;
}

/**
 * The secrets a route's function reads: those of the route table, but the password migration
 * secret only while a source is configured (`PASSWORD_MIGRATION_SOURCE`), so a stage without
 * password migration needs no such parameter and grants nothing for it.
 */
export function secretsOf(route: Pick<FunctionDef, 'secrets'>, environment: Readonly<Record<string, string>>): RouteSecret[] {
  const migrates = passwordMigrationSourceOf(environment) !== 'off';
  return route.secrets.filter((secret) => secret !== 'passwordMigration' || migrates);
}

/** Props of {@link RouteFunction}. */
export interface RouteFunctionProps {
  readonly route: FunctionDef;
  readonly stage: string;
  readonly isProduction: boolean;
  readonly table: dynamodb.ITable;
  /** GSI names; `read` and `write` routes may Query them. */
  readonly indexNames: readonly string[];
  readonly architecture: LambdaArch;
  /**
   * The function bundles built for that architecture (`buildLambdaFunctions` in
   * `scripts/build.ts`): `<bundleDir>/<function id>/index.js`.
   */
  readonly bundleDir: string;
  readonly parameters: SecretParameterNames;
  /** Configuration variables for every function (already checked against the allowed list). */
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: logs.RetentionDays;
  /** Grants beyond the route table's (a stream reader's stream and dead-letter queue), inline too. */
  readonly extraStatements?: readonly iam.PolicyStatement[];
  /** @default what `infra/sizing.ts` gives the route */
  readonly timeout?: Duration;
}

/**
 * One route's Lambda: its bundle as built by `scripts/build.ts` (the same build `npm start` and
 * the tests run, for Lambda's platform), its own log group and its own role. The role holds
 * exactly what the route table says the route needs: DynamoDB actions by `access`,
 * `ssm:GetParameter` on the parameters named by `secrets` (read through the Parameters and
 * Secrets extension layer, attached to exactly those functions), and writing to its own log
 * group. Nothing is granted through managed policies, so no function can do what another needs.
 */
export class RouteFunction extends Construct {
  readonly fn: lambda.Function;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;
  readonly route: FunctionDef;

  constructor(scope: Construct, id: string, props: RouteFunctionProps) {
    super(scope, id);
    const { route } = props;
    this.route = route;
    const functionName = resourceName(props.stage, route.id);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: `/aws/lambda/${functionName}`,
      retention: props.logRetention,
      removalPolicy: props.isProduction ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });

    // One inline policy in the role, not a separate AWS::IAM::Policy resource: the same grants,
    // one CloudFormation resource less per route (a stack holds 500).
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: route.method ? `${functionName}: ${route.method} ${route.path}` : `${functionName}: ${route.summary}`.slice(0, 1000),
      inlinePolicies: {
        access: new iam.PolicyDocument({
          statements: [
            // Instead of AWSLambdaBasicExecutionRole (logs:* on every log group): this group only.
            // The group's ARN ends in ":*", which covers its log streams and nothing else.
            new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [this.logGroup.logGroupArn] }),
            ...tableStatements(props),
            ...secretStatements(this, props),
            ...(props.extraStatements ?? []),
          ],
        }),
      },
    });

    // The `service` dimension of every metric the function writes (`lib/log/metrics.ts`).
    const environment: Record<string, string> = { ...props.environment, POWERTOOLS_SERVICE_NAME: resourceName(props.stage) };
    if (route.access !== 'none') environment.TABLE_NAME = props.table.tableName;
    const secrets = secretsOf(route, props.environment);
    if (secrets.includes('apiKeys')) environment.API_KEYS_PARAMETER = props.parameters.apiKeys;
    if (secrets.includes('signerKey')) environment.SIGNER_KEY_PARAMETER = props.parameters.signerKey;
    if (secrets.includes('passwordMigration')) environment.PASSWORD_MIGRATION_SECRET_PARAMETER = props.parameters.passwordMigration;

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

/** DynamoDB actions by the route's `access`, on the table and (Query only) its indexes. */
function tableStatements(props: RouteFunctionProps): iam.PolicyStatement[] {
  const { route, table } = props;
  if (route.access === 'none') return [];
  const indexArns = props.indexNames.map((name) => `${table.tableArn}/index/${name}`);
  return [
    new iam.PolicyStatement({ actions: [...DYNAMODB_READ_ACTIONS], resources: [table.tableArn] }),
    // Indexes can only be queried; naming each one keeps the grant free of wildcards.
    ...(indexArns.length > 0 ? [new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: indexArns })] : []),
    ...(route.access === 'write' ? [new iam.PolicyStatement({ actions: [...DYNAMODB_WRITE_ACTIONS], resources: [table.tableArn] })] : []),
  ];
}

/**
 * GetParameter (the extension's call) on exactly the parameters the route's `secrets` name (by ARN): a function that only
 * checks API keys cannot read the signer key. SecureStrings under the AWS-managed key alias/aws/ssm
 * need no kms:Decrypt grant in the same account; a customer-managed key would.
 */
function secretStatements(scope: Construct, props: RouteFunctionProps): iam.PolicyStatement[] {
  const names = secretsOf(props.route, props.environment).map((secret) => props.parameters[secret]);
  if (names.length === 0) return [];
  const stack = Stack.of(scope);
  return [
    new iam.PolicyStatement({
      actions: ['ssm:GetParameter'],
      resources: names.map((name) =>
        stack.formatArn({ service: 'ssm', resource: 'parameter', resourceName: name.replace(/^\//, ''), arnFormat: ArnFormat.SLASH_RESOURCE_NAME }),
      ),
    }),
  ];
}
