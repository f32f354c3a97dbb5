import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionDef, RouteSecret } from '../routes';
import { functionLogGroupName, resourceName } from '../settings';

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

/** The secrets in a fixed order, so that the same set always has the same name. */
const SECRET_ORDER: readonly RouteSecret[] = ['apiKeys', 'signerKey', 'passwordMigration', 'sessionExchange'];

/** SSM parameter names the functions read their secrets from. */
export interface SecretParameterNames {
  readonly apiKeys: string;
  readonly signerKey: string;
  readonly passwordMigration: string;
  readonly sessionExchange: string;
}

/** Grants beyond the route table's, with a name for the role that holds them (a stream reader's stream and dead-letter queue). */
export interface ExtraGrants {
  /** Short, letters and digits: part of the role's construct id, e.g. `BulkStream`. */
  readonly name: string;
  /** What they allow, for the role's description. */
  readonly description: string;
  readonly statements: readonly iam.PolicyStatement[];
}

/**
 * Everything a function's role holds besides writing to the stage's log group: the DynamoDB
 * access of its route, the secrets it reads (as `secretsOf` gives them for the stage), and any
 * extra grants. Functions with the same grant set get the same role.
 */
export interface GrantSet {
  readonly access: FunctionDef['access'];
  readonly secrets: readonly RouteSecret[];
  readonly extra?: ExtraGrants;
}

/** Props of {@link ExecutionRoles}. */
export interface ExecutionRolesProps {
  readonly stage: string;
  readonly table: dynamodb.ITable;
  /** GSI names; `read` and `write` functions may Query them. */
  readonly indexNames: readonly string[];
  readonly parameters: SecretParameterNames;
  /** The log group every function of the stage writes to (its name is `functionLogGroupName(stage)`). */
  readonly logGroup: logs.ILogGroup;
}

/**
 * The Lambda execution roles of a stage: one per distinct grant set, created the first time a
 * function asks for it and shared by every function that asks for the same set. A role holds
 * exactly its set, as one inline policy (no AWS::IAM::Policy resource): writing to the stage's
 * log group, DynamoDB actions by `access`, `ssm:GetParameter` on the parameters named by
 * `secrets`, and the extra statements. So every function still holds exactly what its route
 * needs, and a function never holds anything another route needs beyond that: functions only
 * share a role when their needs are the same.
 *
 * Why shared: a stack holds at most 500 CloudFormation resources, and one role per function cost
 * one resource per route (53 roles at 53 routes, for 5 distinct grant sets in dev, 6 with
 * password migration). Nothing is granted through managed policies.
 */
export class ExecutionRoles extends Construct {
  private readonly roles = new Map<string, { role: iam.Role; policy: string }>();

  constructor(
    scope: Construct,
    id: string,
    private readonly props: ExecutionRolesProps,
  ) {
    super(scope, id);
  }

  /** The roles made so far, by construct id (the grant set's name). */
  get all(): ReadonlyMap<string, iam.Role> {
    return new Map([...this.roles].map(([name, { role }]) => [name, role]));
  }

  /** The role of a grant set: made on first use, the same one afterwards. */
  roleFor(grants: GrantSet): iam.Role {
    const secrets = SECRET_ORDER.filter((s) => grants.secrets.includes(s));
    const name = grantSetName(grants.access, secrets, grants.extra);
    const statements = [
      // Instead of AWSLambdaBasicExecutionRole (logs:* on every log group): the stage's group only.
      // The group's ARN ends in ":*", which covers its log streams and nothing else.
      new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [this.props.logGroup.logGroupArn] }),
      ...this.tableStatements(grants.access),
      ...this.secretStatements(secrets),
      ...(grants.extra?.statements ?? []),
    ];
    // The same name must mean the same grants: two extra sets under one name would otherwise
    // give one function's grants to another.
    const policy = JSON.stringify(Stack.of(this).resolve(statements.map((s) => s.toStatementJson())));
    const known = this.roles.get(name);
    if (known) {
      if (known.policy !== policy) throw new Error(`Two different grant sets are both named ${name}: give the extra grants their own name`);
      return known.role;
    }
    const role = new iam.Role(this, name, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: this.describe(grants.access, secrets, grants.extra).slice(0, 1000),
      inlinePolicies: { access: new iam.PolicyDocument({ statements }) },
    });
    this.roles.set(name, { role, policy });
    return role;
  }

  /** The role's description: its grant set in words (IAM takes Latin-1 only: ASCII here). */
  private describe(access: GrantSet['access'], secrets: readonly RouteSecret[], extra: ExtraGrants | undefined): string {
    const { stage, parameters } = this.props;
    const namePrefix = resourceName(stage);
    const table = access === 'none' ? 'no table access' : `${access === 'write' ? 'read and write' : 'read'} table ${namePrefix} (Query on its indexes)`;
    const ssm = secrets.length === 0 ? 'no secret' : `read SSM ${secrets.map((s) => parameters[s]).join(', ')}`;
    return `${namePrefix} functions: ${table}; ${ssm}${extra ? `; ${extra.description}` : ''}; write log group ${functionLogGroupName(stage)}`;
  }

  /** DynamoDB actions by access, on the table and (Query only) its indexes. */
  private tableStatements(access: GrantSet['access']): iam.PolicyStatement[] {
    const { table } = this.props;
    if (access === 'none') return [];
    const indexArns = this.props.indexNames.map((name) => `${table.tableArn}/index/${name}`);
    return [
      new iam.PolicyStatement({ actions: [...DYNAMODB_READ_ACTIONS], resources: [table.tableArn] }),
      // Indexes can only be queried; naming each one keeps the grant free of wildcards.
      ...(indexArns.length > 0 ? [new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: indexArns })] : []),
      ...(access === 'write' ? [new iam.PolicyStatement({ actions: [...DYNAMODB_WRITE_ACTIONS], resources: [table.tableArn] })] : []),
    ];
  }

  /**
   * GetParameter (the extension's call) on exactly the parameters named (by ARN): a function that
   * only checks API keys cannot read the signer key. SecureStrings under the AWS-managed key
   * alias/aws/ssm need no kms:Decrypt grant in the same account; a customer-managed key would.
   */
  private secretStatements(secrets: readonly RouteSecret[]): iam.PolicyStatement[] {
    if (secrets.length === 0) return [];
    const stack = Stack.of(this);
    return [
      new iam.PolicyStatement({
        actions: ['ssm:GetParameter'],
        resources: secrets.map((secret) =>
          stack.formatArn({
            service: 'ssm',
            resource: 'parameter',
            resourceName: this.props.parameters[secret].replace(/^\//, ''),
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          }),
        ),
      }),
    ];
  }
}

/**
 * A grant set's name, the role's construct id: access, then the secrets, then the extra grants'
 * name, e.g. `ReadApiKeys`, `WriteApiKeysSignerKey`, `NoTable` (no table, no secret).
 */
export function grantSetName(access: GrantSet['access'], secrets: readonly RouteSecret[], extra?: Pick<ExtraGrants, 'name'>): string {
  const ordered = SECRET_ORDER.filter((s) => secrets.includes(s));
  const parts = [access === 'none' ? 'NoTable' : access === 'read' ? 'Read' : 'Write', ...ordered.map((s) => s[0].toUpperCase() + s.slice(1))];
  if (extra) {
    if (!/^[A-Za-z0-9]+$/.test(extra.name)) throw new Error(`Extra grants need a name of letters and digits, not ${extra.name}`);
    parts.push(extra.name);
  }
  return parts.join('');
}
