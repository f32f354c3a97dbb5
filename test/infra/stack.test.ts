import { Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ARGON2_BINARY_PACKAGE, assertArgon2BinaryInstalled, BUNDLE_EXTERNALS, LAMBDA_TARGET, PHONE_METADATA_FILE } from '../../infra/bundling';
import { BACKGROUND_FUNCTIONS, ROUTES, routeFamily, type FunctionDef, type RouteDef } from '../../infra/routes';
import { buildFunctions } from '../../scripts/build';
import {
  BULK_MEMORY_MB,
  BULK_TIMEOUT_SECONDS,
  DEFAULT_MEMORY_MB,
  DEFAULT_TIMEOUT_SECONDS,
  hashingMemoryMb,
  largestHashMemoryMiB,
  LIST_READ_TIMEOUT_SECONDS,
} from '../../infra/sizing';
import { TABLE_SCHEMA } from '../../lib/storage/table-schema';
import { secretsOf } from '../../infra/constructs/route-function';
import { WORKER_TIMEOUT_SECONDS } from '../../infra/constructs/bulk-import';
import { THROTTLED_RETRY_WINDOW_MS } from '../../lib/recipes/bulkimport/limits';
import { WORKER_BATCH_SIZE, WORKER_FILTER_PATTERNS } from '../../infra/worker-stream';
import { scratchDir } from '../support/scratch';
import { lambdaBundles, ofType, render, statementsOfRole, synthStage, type CfnResource, type Synthesized } from './synth';

const ROOT = resolve(__dirname, '..', '..');
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:auth-core-alarms';
/**
 * Every function's JavaScript (KiB of 1,024 bytes): 260 KiB, 40 KiB under the 300 KiB budget
 * (issue 43; the largest, bulkimport-import, 260,860 B).
 */
const MAX_BUNDLE_BYTES = 260 * 1024;
/** The commands `lib/storage/dynamo` sends, as IAM actions (TransactWriteItems authorises per item). */
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'];

/** The expected API Gateway paths, written out from SPEC §2 rather than taken from the construct. */
function expectedPaths(route: RouteDef): string[] {
  const forms = [route.path, `/{tenantId}${route.path}`];
  return route.scope === 'tenant' || route.scope === 'tenantLookup' ? [...forms, `/appid-public/{tenantId}${route.path}`] : forms;
}

/** The layer ARNs, one per region, a `Fn::FindInMap` on the stacks' mappings can give. */
function extensionArns(s: Synthesized, [map, , key]: [string, unknown, string]): string[] {
  const regions = Object.values(s.mappings[map] ?? {});
  return regions.length > 0 ? regions.map((r) => r[key]) : ['missing mapping'];
}

/** The SSM parameters' names under `/auth-core/<stage>/`, by secret. */
const PARAMETER_NAMES = {
  apiKeys: 'api_keys',
  signerKey: 'vendor_password_hashing_signer_key',
  passwordMigration: 'password_migration_secret',
  sessionExchange: 'session_exchange_issuers',
} as const;

const PROD_ENV = { PASSWORD_MIGRATION_SOURCE: 'webhook', PASSWORD_MIGRATION_WEBHOOK_URL: 'https://old-auth.example.com/check' };
const PROD_ISSUERS = [{ id: 'auth0', preset: 'auth0', domain: 'acme.eu.auth0.com', audience: 'client-1', acceptUntil: '2027-02-01T00:00:00Z' }];

let bundleDir: string;
let dev: Synthesized;
let prod: Synthesized;

// Bundling every function and synthesising two stages takes 40-60 s on two busy cores: more than
// the default 60 s hook timeout leaves room for.
beforeAll(async () => {
  bundleDir = await lambdaBundles('x86_64');
  dev = synthStage({ stage: 'dev' }, { bundleDir });
  // Production migrates passwords at sign-in through a webhook (SPEC §16) and exchanges Auth0's
  // tokens (§19); dev does neither.
  prod = synthStage({ stage: 'prod', alarmTopicArn: TOPIC, functionEnvironment: PROD_ENV, sessionExchangeIssuers: PROD_ISSUERS }, { bundleDir });
}, 180_000);

/** The Lambda of each route, found by its stage-qualified name. */
function functionsByRoute(s: Synthesized, stage: string): Map<string, [string, CfnResource]> {
  const byName = new Map(ofType(s.resources, 'AWS::Lambda::Function').map(([id, r]) => [r.Properties?.FunctionName, [id, r]] as const));
  return new Map(
    ROUTES.map((route) => {
      const found = byName.get(`auth-core-${stage}-${route.id}`);
      if (!found) throw new Error(`no function for route ${route.id}`);
      return [route.id, found as [string, CfnResource]];
    }),
  );
}

function roleIdOf(fn: CfnResource): string {
  return fn.Properties?.Role['Fn::GetAtt'][0] as string;
}

describe('HTTP API routes', () => {
  it("routes every path form of every route to that route's function, and nothing else", () => {
    const fnIdToRoute = new Map([...functionsByRoute(dev, 'dev')].map(([routeId, [fnId]]) => [fnId, routeId]));
    const actual = new Map<string, string>();
    for (const [, r] of ofType(dev.resources, 'AWS::ApiGatewayV2::Route')) {
      const integrationId = render(r.Properties?.Target).replace(/^integrations\/<(.+)>$/, '$1');
      const integration = dev.resources[integrationId];
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
      const fnId = integration.Properties?.IntegrationUri['Fn::GetAtt'][0];
      expect(actual.has(r.Properties?.RouteKey)).toBe(false);
      actual.set(r.Properties?.RouteKey, fnIdToRoute.get(fnId) ?? `unknown function ${fnId}`);
    }
    const expected = new Map(ROUTES.flatMap((route) => expectedPaths(route).map((p) => [`${route.method} ${p}`, route.id] as const)));
    expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
  });

  it('has one integration per route and no catch-all route', () => {
    expect(ofType(dev.resources, 'AWS::ApiGatewayV2::Integration')).toHaveLength(ROUTES.length);
    const keys = ofType(dev.resources, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties?.RouteKey as string);
    expect(keys.filter((k) => k === '$default' || k.startsWith('ANY ') || k.includes('{proxy+}'))).toEqual([]);
    dev.template.resourcePropertiesCountIs('AWS::ApiGatewayV2::Api', { CorsConfiguration: Match.anyValue() }, 0);
  });

  it('lets only this API invoke the functions, with one permission per function (and the schedule the sweeper)', () => {
    const all = ofType(dev.resources, 'AWS::Lambda::Permission');
    const scheduled = all.filter(([, p]) => p.Properties?.Principal === 'events.amazonaws.com');
    expect(scheduled.map(([, p]) => render(p.Properties?.FunctionName))).toEqual([expect.stringContaining('BulkImportSweeper')]);
    const permissions = all.filter(([, p]) => p.Properties?.Principal !== 'events.amazonaws.com');
    for (const [, p] of permissions) {
      expect(p.Properties).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
      expect(render(p.Properties?.SourceArn)).toMatch(/^arn:<AWS::Partition>:execute-api:<AWS::Region>:<AWS::AccountId>:<Http[^>]*>\/\*\/\*\/\*$/);
    }
    const functionOf = (p: CfnResource) => render(p.Properties?.FunctionName);
    expect(new Set(permissions.map(([, p]) => functionOf(p))).size).toBe(ROUTES.length);
    expect(permissions).toHaveLength(ROUTES.length);
  });

  it('keeps every stack of the stage within 450 CloudFormation resources (a stack holds 500): the routes in a nested stack per recipe family', () => {
    // test/infra/stack-size.test.ts has the cost of a route and the room for 120 routes.
    for (const s of [dev, prod]) {
      const counts = Object.fromEntries(s.stacks.map((st) => [st.path, st.resourceCount]));
      expect(Object.entries(counts).filter(([, n]) => n > 450)).toEqual([]);
      expect(s.stacks.length).toBe(1 + new Set(ROUTES.map(routeFamily)).size);
      // The parent holds no route's function, integration or API route.
      const parent = s.stacks[0].template.toJSON().Resources as Record<string, CfnResource>;
      expect(ofType(parent, 'AWS::ApiGatewayV2::Route')).toEqual([]);
      expect(ofType(parent, 'AWS::Lambda::Function').map(([, f]) => f.Properties?.FunctionName)).toEqual(
        BACKGROUND_FUNCTIONS.map((f) => `auth-core-${s === dev ? 'dev' : 'prod'}-${f.id}`),
      );
      expect(Object.values(counts).reduce((a, b) => a + b)).toBe(Object.keys(s.resources).length);
    }
    expect(ofType(dev.resources, 'AWS::IAM::Policy')).toEqual([]);
  });

  it('throttles the $default stage per stage and writes JSON access logs without query strings or headers', () => {
    dev.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1000 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.anyValue() },
    });
    prod.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 2000, ThrottlingBurstLimit: 4000 },
    });
    const [[, stage]] = ofType(dev.resources, 'AWS::ApiGatewayV2::Stage');
    const format = JSON.parse(stage.Properties?.AccessLogSettings.Format as string) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', routeKey: '$context.routeKey', status: '$context.status' });
    expect(Object.values(format).join(' ')).not.toMatch(/querystring|header|authorizer/i);
  });

  it('outputs the API URL and the table name', () => {
    const [[apiId]] = ofType(dev.resources, 'AWS::ApiGatewayV2::Api');
    const [[tableId]] = ofType(dev.resources, 'AWS::DynamoDB::Table');
    expect(dev.outputs.ApiUrl.Value).toEqual({ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] });
    expect(dev.outputs.TableName.Value).toEqual({ Ref: tableId });
  });
});

describe('DynamoDB table', () => {
  it('has the keys, indexes and TTL of the storage design, on demand, with point-in-time recovery', () => {
    dev.template.resourceCountIs('AWS::DynamoDB::Table', 1);
    dev.template.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'auth-core-dev',
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE_SCHEMA.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE_SCHEMA.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: TABLE_SCHEMA.globalSecondaryIndexes.map((g) => ({
        IndexName: g.indexName,
        KeySchema: [
          { AttributeName: g.partitionKey, KeyType: 'HASH' },
          { AttributeName: g.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      })),
      TimeToLiveSpecification: { AttributeName: TABLE_SCHEMA.ttlAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    const [[, table]] = ofType(dev.resources, 'AWS::DynamoDB::Table');
    for (const a of table.Properties!.AttributeDefinitions as { AttributeType: string }[]) expect(a.AttributeType).toBe('S');
  });

  it('protects and retains the table in production only', () => {
    const [[, devTable]] = ofType(dev.resources, 'AWS::DynamoDB::Table');
    const [[, prodTable]] = ofType(prod.resources, 'AWS::DynamoDB::Table');
    expect(devTable.Properties?.DeletionProtectionEnabled).not.toBe(true);
    expect(devTable.DeletionPolicy).toBe('Delete');
    expect(prodTable.Properties?.DeletionProtectionEnabled).toBe(true);
    expect(prodTable.DeletionPolicy).toBe('Retain');
    expect(prodTable.UpdateReplacePolicy).toBe('Retain');
  });

  it('treats any stage listed in productionStages as production', () => {
    const staging = synthStage({ stage: 'staging', productionStages: ['prod', 'staging'] }, { bundleDir });
    staging.template.hasResourceProperties('AWS::DynamoDB::Table', { TableName: 'auth-core-staging', DeletionProtectionEnabled: true });
  });
});

describe('Lambda functions', () => {
  it('runs one function per route on Node 22 (or 24), x86_64, with the handler export', () => {
    const fns = ofType(dev.resources, 'AWS::Lambda::Function');
    expect(fns).toHaveLength(ROUTES.length + BACKGROUND_FUNCTIONS.length);
    for (const [, fn] of fns) {
      expect(['nodejs22.x', 'nodejs24.x']).toContain(fn.Properties?.Runtime);
      expect(fn.Properties?.Architectures).toEqual(['x86_64']);
      expect(fn.Properties?.Handler).toBe('index.handler');
    }
    expect(functionsByRoute(dev, 'dev').size).toBe(ROUTES.length);
  });

  it("sizes memory for the largest allowed hash in the functions that hash passwords, and for bulk requests; gives whole-list reads the API's wait", () => {
    const fns = functionsByRoute(dev, 'dev');
    for (const route of ROUTES) {
      const props = fns.get(route.id)![1].Properties!;
      if (route.hashesPasswords) {
        expect(props.MemorySize).toBe(hashingMemoryMb());
        expect(props.MemorySize).toBeGreaterThanOrEqual(largestHashMemoryMiB() + 256);
        expect(props.Timeout).toBeGreaterThan(5);
      } else if (route.bulk) {
        // Up to 6 MB of users parsed, validated and written in one request: a whole vCPU, ~30 s.
        expect([props.MemorySize, props.Timeout]).toEqual([BULK_MEMORY_MB, BULK_TIMEOUT_SECONDS]);
      } else if (route.readsWholeList) {
        // A count or a filtered page reads a whole list: its time grows with the users.
        expect([props.MemorySize, props.Timeout]).toEqual([DEFAULT_MEMORY_MB, LIST_READ_TIMEOUT_SECONDS]);
      } else {
        expect([props.MemorySize, props.Timeout]).toEqual([DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT_SECONDS]);
      }
      expect(props.Timeout).toBeLessThanOrEqual(29);
    }
  });

  it("sends every function's logs to the stage's one log group, with retention, kept in production", () => {
    for (const [stage, s] of [
      ['dev', dev],
      ['prod', prod],
    ] as const) {
      const fns = ofType(s.resources, 'AWS::Lambda::Function');
      expect(fns).toHaveLength(ROUTES.length + BACKGROUND_FUNCTIONS.length);
      const groups = new Set(fns.map(([, fn]) => fn.Properties?.LoggingConfig.LogGroup.Ref as string));
      expect(groups.size).toBe(1);
      const [logGroupId] = groups;
      const lg = s.resources[logGroupId];
      expect(lg.Type).toBe('AWS::Logs::LogGroup');
      expect(lg.Properties?.LogGroupName).toBe(`/aws/lambda/auth-core-${stage}`);
      expect(lg.Properties?.RetentionInDays).toBe(stage === 'prod' ? 90 : 30);
      expect(lg.DeletionPolicy).toBe(stage === 'prod' ? 'Retain' : 'Delete');
      // Lambda names a function's streams in a shared group after the function (its name is
      // auth-core-<stage>-<id>), so each function's lines stay apart: no two share a name.
      expect(new Set(fns.map(([, fn]) => fn.Properties?.FunctionName)).size).toBe(fns.length);
      // That group and the API's access logs: no log group per function.
      expect(
        ofType(s.resources, 'AWS::Logs::LogGroup')
          .map(([, g]) => g.Properties?.LogGroupName)
          .sort(),
      ).toEqual([`/aws/apigateway/auth-core-${stage}/access`, `/aws/lambda/auth-core-${stage}`].sort());
    }
  });

  it('passes the table name and only the SSM parameter names the route needs', () => {
    for (const route of ROUTES) {
      const env = (functionsByRoute(dev, 'dev').get(route.id)![1].Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
      expect(env.TABLE_NAME !== undefined).toBe(route.access !== 'none');
      expect(env.API_KEYS_PARAMETER).toBe(route.secrets.includes('apiKeys') ? '/auth-core/dev/api_keys' : undefined);
      expect(env.SIGNER_KEY_PARAMETER).toBe(route.secrets.includes('signerKey') ? '/auth-core/dev/vendor_password_hashing_signer_key' : undefined);
      expect(env.PASSWORD_MIGRATION_SECRET_PARAMETER).toBeUndefined();
      expect(env.SESSION_EXCHANGE_ISSUERS_PARAMETER).toBe(route.id === 'session-exchange' ? '/auth-core/dev/session_exchange_issuers' : undefined);
      expect(env.SESSION_EXCHANGE_ISSUERS).toBeUndefined();
      expect(Object.keys(env).join(' ')).not.toMatch(/^API_KEYS$|SIGNER_KEY$|SECRET$/);
    }
  });

  it("gives the session exchange's issuers from the context to the exchange function alone", () => {
    const functions = ofType(prod.resources, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties?.FunctionName !== undefined);
    const withIssuers = functions.filter(([, fn]) => fn.Properties?.Environment?.Variables?.SESSION_EXCHANGE_ISSUERS !== undefined);
    expect(withIssuers.map(([, fn]) => fn.Properties?.FunctionName)).toEqual(['auth-core-prod-session-exchange']);
    expect(JSON.parse(withIssuers[0][1].Properties?.Environment?.Variables?.SESSION_EXCHANGE_ISSUERS as string)).toEqual(PROD_ISSUERS);
  });

  it('attaches the Parameters and Secrets extension (its cache off) to exactly the functions that read a secret', () => {
    for (const [s, stage, env] of [
      [dev, 'dev', {}],
      [prod, 'prod', PROD_ENV],
    ] as const) {
      for (const route of ROUTES) {
        const fn = functionsByRoute(s, stage).get(route.id)![1];
        const layers = (fn.Properties?.Layers ?? []) as { 'Fn::FindInMap'?: [string, unknown, string] }[];
        const vars = (fn.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
        const reads = secretsOf(route, env).length > 0;
        const extension = layers
          .map((l) => l['Fn::FindInMap'])
          .filter((m) => m !== undefined && extensionArns(s, m).every((arn) => /:layer:AWS-Parameters-and-Secrets-Lambda-Extension(-Arm64)?:\d+$/.test(arn)));
        expect([route.id, layers.length, extension.length]).toEqual([route.id, reads ? 1 : 0, reads ? 1 : 0]);
        expect([route.id, vars.PARAMETERS_SECRETS_EXTENSION_CACHE_ENABLED]).toEqual([route.id, reads ? 'false' : undefined]);
      }
    }
  });

  it("names the stage in the service dimension of every function's metrics", () => {
    for (const [s, stage] of [
      [dev, 'dev'],
      [prod, 'prod'],
    ] as const) {
      for (const [, fn] of ofType(s.resources, 'AWS::Lambda::Function').filter(([, f]) => f.Properties?.FunctionName !== undefined)) {
        expect(fn.Properties?.Environment?.Variables?.POWERTOOLS_SERVICE_NAME).toBe(`auth-core-${stage}`);
      }
    }
  });

  it('gives every function the password migration source, and only sign-in its secret, when a source is configured', () => {
    const functions = ofType(prod.resources, 'AWS::Lambda::Function').filter(([, fn]) => fn.Properties?.FunctionName !== undefined);
    expect(functions.length).toBe(ROUTES.length + BACKGROUND_FUNCTIONS.length);
    for (const [, fn] of functions) {
      const env = (fn.Properties?.Environment?.Variables ?? {}) as Record<string, unknown>;
      expect(env).toMatchObject(PROD_ENV);
      expect(env.PASSWORD_MIGRATION_SECRET_PARAMETER).toBe(
        fn.Properties?.FunctionName === 'auth-core-prod-emailpassword-signin' ? '/auth-core/prod/password_migration_secret' : undefined,
      );
    }
  });
});

describe('IAM: least privilege', () => {
  const tableArn = () => `<${ofType(dev.resources, 'AWS::DynamoDB::Table')[0][0]}.Arn>`;
  /** The two stages (synthesised in beforeAll, so read when a test runs). */
  const stages = () =>
    [
      [dev, 'dev', {}],
      [prod, 'prod', PROD_ENV],
    ] as const;

  /** Every function of a stage, the routes' and the background ones, with its definition. */
  const allFunctions = (s: Synthesized, stage: string): { def: FunctionDef; fn: CfnResource }[] => {
    const byName = new Map(ofType(s.resources, 'AWS::Lambda::Function').map(([, r]) => [r.Properties?.FunctionName as string, r]));
    return [...ROUTES, ...BACKGROUND_FUNCTIONS].map((def) => {
      const fn = byName.get(`auth-core-${stage}-${def.id}`);
      if (!fn) throw new Error(`no function ${def.id}`);
      return { def, fn };
    });
  };

  /** `action resource` pairs, sorted: a role's grants in a form two roles can be compared in. */
  const pairs = (actions: readonly string[], resources: readonly string[]) => actions.flatMap((a) => resources.map((r) => `${a} ${r}`));
  const grantsOfRole = (s: Synthesized, roleId: string): string[] =>
    [...new Set(statementsOfRole(s.resources, roleId).flatMap((st) => pairs(st.actions, st.resources)))].sort();

  /** What a function needs, written out from its definition in the route table (not from the construct). */
  const expectedGrants = (s: Synthesized, stage: string, env: Readonly<Record<string, string>>, def: FunctionDef): string[] => {
    const [[tableId]] = ofType(s.resources, 'AWS::DynamoDB::Table');
    const table = `<${tableId}.Arn>`;
    const [[logsId]] = ofType(s.resources, 'AWS::Logs::LogGroup').filter(([, g]) => g.Properties?.LogGroupName === `/aws/lambda/auth-core-${stage}`);
    const grants = pairs(['logs:CreateLogStream', 'logs:PutLogEvents'], [`<${logsId}.Arn>`]);
    if (def.access !== 'none') {
      grants.push(...pairs(READ_ACTIONS, [table]));
      grants.push(
        ...pairs(
          ['dynamodb:Query'],
          TABLE_SCHEMA.globalSecondaryIndexes.map((g) => `${table}/index/${g.indexName}`),
        ),
      );
    }
    if (def.access === 'write') grants.push(...pairs(WRITE_ACTIONS, [table]));
    const parameter = (sec: keyof typeof PARAMETER_NAMES) =>
      `arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter/auth-core/${stage}/${PARAMETER_NAMES[sec]}`;
    grants.push(...pairs(['ssm:GetParameter'], secretsOf(def, env).map(parameter)));
    if (def.id === 'bulkimport-worker') {
      const [[queueId]] = ofType(s.resources, 'AWS::SQS::Queue');
      grants.push(...pairs(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], [`<${tableId}.StreamArn>`]));
      grants.push(...pairs(['dynamodb:ListStreams'], [`${table}/stream/*`]));
      grants.push(...pairs(['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], [`<${queueId}.Arn>`]));
    }
    return [...new Set(grants)].sort();
  };
  const statementsOf = (routeId: string) => statementsOfRole(dev.resources, roleIdOf(functionsByRoute(dev, 'dev').get(routeId)![1]));

  it('uses no wildcard action or resource and no managed policy', () => {
    for (const route of ROUTES) {
      const roleId = roleIdOf(functionsByRoute(dev, 'dev').get(route.id)![1]);
      expect(dev.resources[roleId].Properties?.ManagedPolicyArns).toBeUndefined();
      for (const s of statementsOf(route.id)) {
        expect(s.effect).toBe('Allow');
        for (const a of s.actions) expect(a).not.toContain('*');
        for (const r of s.resources) expect(r).not.toContain('*');
      }
    }
  });

  it("grants exactly the DynamoDB actions of the route's access, on the table and its indexes only", () => {
    const table = tableArn();
    const indexes = TABLE_SCHEMA.globalSecondaryIndexes.map((g) => `${table}/index/${g.indexName}`);
    for (const route of ROUTES) {
      const dynamo = statementsOf(route.id).filter((s) => s.actions.some((a) => a.startsWith('dynamodb:')));
      const actions = new Set(dynamo.flatMap((s) => s.actions));
      const expected = route.access === 'none' ? [] : route.access === 'read' ? READ_ACTIONS : [...READ_ACTIONS, ...WRITE_ACTIONS];
      expect([...actions].sort()).toEqual([...expected].sort());
      for (const s of dynamo) {
        for (const r of s.resources) expect([table, ...indexes]).toContain(r);
        // Indexes are only ever queried.
        if (s.resources.some((r) => indexes.includes(r))) expect(s.actions).toEqual(['dynamodb:Query']);
      }
    }
  });

  it('grants every DynamoDB operation the service sends (locally nothing checks IAM: a missing grant would first fail in AWS)', () => {
    // The commands the storage adapter sends, from its source; the operator tools (the checker and
    // the storage upgrade, run with an operator's credentials) are not the service's.
    const dir = join(ROOT, 'lib', 'storage', 'dynamo');
    const sources = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !['consistency.ts', 'format-sweep.ts'].includes(f))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    const commands = new Set([...sources.matchAll(/new (\w+)Command\(/g)].map((m) => m[1]));
    const iamActions: Record<string, string[]> = {
      Get: ['dynamodb:GetItem'],
      BatchGet: ['dynamodb:BatchGetItem'],
      Query: ['dynamodb:Query'],
      Put: ['dynamodb:PutItem'],
      Update: ['dynamodb:UpdateItem'],
      Delete: ['dynamodb:DeleteItem'],
      // Authorised item by item as Put/Update/Delete/ConditionCheck.
      TransactWrite: WRITE_ACTIONS,
    };
    for (const command of commands) {
      expect([command, iamActions[command]]).toEqual([command, expect.any(Array)]);
      for (const action of iamActions[command]) expect([...READ_ACTIONS, ...WRITE_ACTIONS]).toContain(action);
    }
    expect(commands.has('BatchGet')).toBe(true);
  });

  it('gives read-only routes no write action', () => {
    for (const route of ROUTES.filter((r) => r.access !== 'write')) {
      const actions = statementsOf(route.id).flatMap((s) => s.actions);
      expect(actions.filter((a) => /^dynamodb:(Put|Update|Delete|BatchWrite|ConditionCheck|PartiQL|Execute)/.test(a))).toEqual([]);
    }
  });

  it('lets only the functions that need a secret read it, by parameter ARN', () => {
    const arn = (name: string) => `arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter/auth-core/dev/${name}`;
    for (const [s, stage, env] of [
      [dev, 'dev', {}],
      [prod, 'prod', PROD_ENV],
    ] as const) {
      for (const route of ROUTES) {
        const ssm = statementsOfRole(s.resources, roleIdOf(functionsByRoute(s, stage).get(route.id)![1])).filter((st) =>
          st.actions.some((a) => a.startsWith('ssm:')),
        );
        expect(ssm.flatMap((st) => st.actions).every((a) => a === 'ssm:GetParameter')).toBe(true);
        const expected = secretsOf(route, env).map((sec) => arn(PARAMETER_NAMES[sec]).replace('/dev/', `/${stage}/`));
        expect(ssm.flatMap((st) => st.resources).sort()).toEqual(expected.sort());
      }
    }
    // The password migration secret: sign-in only, and only where a source is configured.
    expect(ROUTES.filter((r) => secretsOf(r, PROD_ENV).includes('passwordMigration')).map((r) => r.id)).toEqual(['emailpassword-signin']);
    expect(ROUTES.filter((r) => secretsOf(r, {}).includes('passwordMigration'))).toEqual([]);
    expect(ROUTES.find((r) => r.auth === 'none' && r.secrets.length > 0)).toBeUndefined();
  });

  it("lets each function write only to the stage's function log group, and touch no other service", () => {
    const [[logsId]] = ofType(dev.resources, 'AWS::Logs::LogGroup').filter(([, g]) => g.Properties?.LogGroupName === '/aws/lambda/auth-core-dev');
    for (const [routeId, [, fn]] of functionsByRoute(dev, 'dev')) {
      const statements = statementsOf(routeId);
      const services = new Set(statements.flatMap((s) => s.actions.map((a) => a.split(':')[0])));
      for (const svc of services) expect(['logs', 'dynamodb', 'ssm']).toContain(svc);
      const logs = statements.filter((s) => s.actions.some((a) => a.startsWith('logs:')));
      expect(fn.Properties?.LoggingConfig.LogGroup.Ref).toBe(logsId);
      expect(logs.flatMap((s) => s.resources)).toEqual([`<${logsId}.Arn>`]);
      expect(logs.flatMap((s) => s.actions).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    }
  });

  it('grants every function exactly what its route needs, in dev and with password migration', () => {
    for (const [s, stage, env] of stages()) {
      for (const { def, fn } of allFunctions(s, stage)) {
        expect([def.id, grantsOfRole(s, roleIdOf(fn))]).toEqual([def.id, expectedGrants(s, stage, env, def)]);
      }
    }
  });

  it('shares a role only among functions that need the same grants: one role per distinct grant set', () => {
    for (const [s, stage, env] of stages()) {
      const rolesOfSet = new Map<string, Set<string>>();
      const setsOfRole = new Map<string, Set<string>>();
      for (const { def, fn } of allFunctions(s, stage)) {
        const set = JSON.stringify(expectedGrants(s, stage, env, def));
        const roleId = roleIdOf(fn);
        rolesOfSet.set(set, (rolesOfSet.get(set) ?? new Set()).add(roleId));
        setsOfRole.set(roleId, (setsOfRole.get(roleId) ?? new Set()).add(set));
      }
      for (const roles of rolesOfSet.values()) expect(roles.size).toBe(1);
      for (const sets of setsOfRole.values()) expect(sets.size).toBe(1);
      const roles = ofType(s.resources, 'AWS::IAM::Role');
      expect(roles).toHaveLength(rolesOfSet.size);
      // The distinct grant sets, from the route table alone: DynamoDB access, the secrets the stage
      // reads, and the worker's stream grants. Dev: no table (/hello), API keys alone, read or write
      // with API keys, write with API keys and the signer key, write with API keys and the session
      // exchange's issuers, the sweeper's write, the worker's.
      const sets = new Set([...ROUTES, ...BACKGROUND_FUNCTIONS].map((d) => `${d.access} ${secretsOf(d, env).sort()} ${d.id === 'bulkimport-worker'}`));
      expect(roles).toHaveLength(sets.size);
      expect(roles).toHaveLength(stage === 'dev' ? 8 : 9);
      // Each role says what it grants: the table access, and exactly the parameters it may read.
      for (const [roleId, role] of roles) {
        const description = role.Properties?.Description as string;
        const grants = grantsOfRole(s, roleId);
        expect(description).toMatch(new RegExp(`^auth-core-${stage} functions: `));
        expect(description.includes('read and write table')).toBe(grants.some((g) => g.startsWith('dynamodb:PutItem ')));
        for (const name of Object.values(PARAMETER_NAMES)) {
          expect([roleId, name, description.includes(`/auth-core/${stage}/${name}`)]).toEqual([
            roleId,
            name,
            grants.some((g) => g.endsWith(`/auth-core/${stage}/${name}`)),
          ]);
        }
      }
    }
  });
});

describe('bundles', () => {
  const assetDir = (routeId: string): string => {
    const key = functionsByRoute(dev, 'dev').get(routeId)![1].Properties?.Code.S3Key as string;
    return join(dev.outdir, `asset.${key.replace(/\.zip$/, '')}`);
  };
  const nativeFiles = (routeId: string) => readdirSync(assetDir(routeId)).filter((f) => f.endsWith('.node'));

  it('holds the x64 glibc Argon2 binary, next to index.js, in every function that hashes passwords', () => {
    for (const route of ROUTES.filter((r) => r.hashesPasswords)) {
      const native = nativeFiles(route.id);
      expect(native).toEqual([expect.stringMatching(/^argon2\.linux-x64-gnu-[A-Z0-9]+\.node$/)]);
      expect(readFileSync(join(assetDir(route.id), 'index.js'), 'utf8')).toContain(`./${native[0]}`);
    }
  });

  it("keeps every function's JavaScript at or under 260 KiB (issues #15, 43)", () => {
    const sizes = ROUTES.map((route) => {
      const dir = assetDir(route.id);
      const js = readdirSync(dir)
        .filter((f) => f.endsWith('.js'))
        .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
      return [route.id, js] as const;
    });
    expect(sizes.filter(([, js]) => js > MAX_BUNDLE_BYTES)).toEqual([]);
    // Real bundles, not empty ones: the smallest holds the SDK's client.
    expect(Math.min(...sizes.map(([, js]) => js))).toBeGreaterThan(150 * 1024);
  });

  it('carries no binary for another architecture, and none at all where no password code is bundled', () => {
    for (const route of ROUTES) {
      const dir = assetDir(route.id);
      expect(existsSync(join(dir, 'index.js'))).toBe(true);
      const native = nativeFiles(route.id);
      for (const f of native) expect(f).toMatch(/^argon2\.linux-x64-gnu-/);
      const js = readFileSync(join(dir, 'index.js'), 'utf8');
      if (!js.includes('argon2')) expect(native).toEqual([]);
    }
    expect(nativeFiles('hello')).toEqual([]);
  });

  it("bundles the AWS SDK instead of relying on the runtime's copy", () => {
    for (const route of ROUTES.filter((r) => r.access !== 'none')) {
      const js = readFileSync(join(assetDir(route.id), 'index.js'), 'utf8');
      // Left out: the SDK's optional CRT signer (an unused, try/catch-guarded require) and the
      // lazily imported credential providers Lambda never loads (infra/bundling.ts says why).
      const external = [...js.matchAll(/(?:require|import)\("(@aws-sdk\/[^"]+|@smithy\/[^"]+)"\)/g)].map((m) => m[1]);
      const allowed = new Set(['@aws-sdk/signature-v4-crt', ...BUNDLE_EXTERNALS]);
      expect(external.filter((m) => !allowed.has(m))).toEqual([]);
      expect(js.includes('DynamoDBDocumentClient')).toBe(true);
    }
  });

  it("gives each route's bundle its own route and none of the route table", () => {
    const summaries = [...ROUTES, ...BACKGROUND_FUNCTIONS].map((r) => r.summary);
    for (const route of ROUTES) {
      const js = readFileSync(join(assetDir(route.id), 'index.js'), 'utf8');
      expect(js).toContain(`{id:"${route.id}",method:"${route.method}",path:"${route.path}"`);
      expect(summaries.filter((summary) => js.includes(summary))).toEqual([]);
    }
  });

  it('leaves out the SDK parts a Lambda never runs, and keeps one Argon2 binary loader', () => {
    const found = (js: string, text: string) => (js.includes(text) ? text : undefined);
    for (const route of ROUTES.filter((r) => r.access !== 'none')) {
      const js = readFileSync(join(assetDir(route.id), 'index.js'), 'utf8');
      // The stubs of infra/bundling.ts are in; the container and instance-metadata credential
      // providers are not, nor @node-rs/argon2's loader, which names every platform napi-rs
      // builds for, nor the DescribeEndpoints operation (the unstubbed bundles hold these texts).
      const stubs = ['event-stream serde is not bundled', 'event-stream signing is not bundled', 'no DynamoDB operation this service sends has a timestamp'];
      expect([route.id, stubs.filter((text) => js.includes(text))]).toEqual([route.id, stubs]);
      expect([
        route.id,
        found(js, 'AWS_CONTAINER_CREDENTIALS_FULL_URI'),
        found(js, 'InstanceMetadataV1FallbackError'),
        found(js, 'argon2-darwin'),
        found(js, '"DescribeEndpoints"'),
      ]).toEqual([route.id, undefined, undefined, undefined, undefined]);
    }
  });

  it('takes AWS credentials from the environment only (the stubbed chain), as Lambda gives them', () => {
    // A home directory with a credentials file the full chain would use.
    const home = scratchDir('auth-core-home-');
    mkdirSync(join(home, '.aws'));
    writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_access_key_id=AKIAFROMFILE\naws_secret_access_key=from-file\n');
    const script = `require(${JSON.stringify(join(assetDir('user-get'), 'index.js'))}).handler({ version: '2.0', rawPath: '/user/id',
      headers: { 'api-key': 'key-0123456789abcdef0123' }, queryStringParameters: { userId: 'u1' }, isBase64Encoded: false,
      requestContext: { http: { method: 'GET', path: '/user/id' } } }, { awsRequestId: 'creds' })
      .then((r) => process.stdout.write(JSON.stringify({ answer: r.statusCode }) + '\\n'));`;
    const run = (env: Record<string, string>) => {
      const out = spawnSync(process.execPath, ['-e', script], {
        encoding: 'utf8',
        // Nothing listens on port 9: a request that gets as far as the network is refused.
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          AWS_REGION: 'us-east-1',
          TABLE_NAME: 't',
          API_KEYS: 'key-0123456789abcdef0123',
          AWS_ENDPOINT_URL_DYNAMODB: 'http://127.0.0.1:9',
          ...env,
        },
      });
      const lines = out.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      return { answer: lines.find((l) => 'answer' in l)?.answer, error: lines.find((l) => l.level === 'error') };
    };
    // Without credentials in the environment the file is not read: the environment provider's error.
    expect(run({})).toMatchObject({ answer: 500, error: { message: 'unexpected error', errorName: 'CredentialsProviderError' } });
    // With them, the request is signed and sent.
    expect(run({ AWS_ACCESS_KEY_ID: 'AKIAFROMENV', AWS_SECRET_ACCESS_KEY: 'from-env' })).toMatchObject({ answer: 500, error: { errorCode: 'ECONNREFUSED' } });
  });

  it('bundles bcryptjs only where passwords are checked, not where imported hashes are validated', () => {
    // A text of bcryptjs itself ("Invalid salt version").
    const withBcrypt = ROUTES.filter((route) => readFileSync(join(assetDir(route.id), 'index.js'), 'utf8').includes('Invalid salt version')).map((r) => r.id);
    expect(withBcrypt).toContain('emailpassword-signin');
    for (const id of ['emailpassword-import', 'bulkimport-stage', 'bulkimport-import']) expect(withBcrypt).not.toContain(id);
  });

  it('keeps every function within 260 KB of JavaScript (issues #15, 43; KB of 1,024 bytes, as bench figure 4 counts)', () => {
    const jsBytes = (id: string) =>
      readdirSync(join(bundleDir, id))
        .filter((f) => f.endsWith('.js'))
        .reduce((sum, f) => sum + statSync(join(bundleDir, id, f)).size, 0);
    const sizes = [...ROUTES, ...BACKGROUND_FUNCTIONS].map((fn) => ({ id: fn.id, bytes: jsBytes(fn.id) }));
    expect(sizes.filter((s) => s.bytes > MAX_BUNDLE_BYTES)).toEqual([]);
    // Each holds at least the SDK client it sends with: the sizes are of real bundles.
    expect(Math.min(...sizes.map((s) => s.bytes))).toBeGreaterThan(150 * 1024);
  });

  it("gives the bulk-import functions the role reads alone (RoleReader), none of the role store's writes", () => {
    const js = (id: string) => readFileSync(join(bundleDir, id, 'index.js'), 'utf8');
    // Method names survive minifying: a class in a bundle shows by them.
    for (const id of ['bulkimport-stage', 'bulkimport-import', 'bulkimport-worker']) {
      expect([id, js(id).includes('listRoles'), js(id).includes('removePermissions')]).toEqual([id, true, false]);
    }
    expect(js('userroles-create-role').includes('removePermissions')).toBe(true);
  });

  it('gives each function the user store families it declares, and none of the others', () => {
    // One method of each family, found only in it: method names survive minifying.
    const families = {
      UserAccounts: 'replacePasswordHash',
      UserStore: 'getEmailPasswordLogin',
      UserLookups: 'findPasswordlessLoginByIndex',
      UserLists: 'countPasswordMigrations',
      UserSearch: 'scanUsers',
    };
    const of = (id: string) => {
      const js = readFileSync(join(bundleDir, id, 'index.js'), 'utf8');
      return [
        id,
        Object.entries(families)
          .filter(([, method]) => js.includes(method))
          .map(([family]) => family),
      ];
    };
    expect(of('emailpassword-signin')).toEqual(['emailpassword-signin', ['UserAccounts', 'UserStore']]);
    expect(of('bulkimport-import')).toEqual(['bulkimport-import', ['UserAccounts']]);
    expect(of('passwordless-consume-code')).toEqual(['passwordless-consume-code', ['UserAccounts', 'UserStore', 'UserLookups']]);
    expect(of('users-count')).toEqual(['users-count', ['UserLists']]);
    expect(of('users-list')).toEqual(['users-list', ['UserLists', 'UserSearch']]);
    expect(of('hello')).toEqual(['hello', []]);
  });

  it('puts the phone metadata beside the bundles that parse phone numbers, and only there', () => {
    const withPhones = ROUTES.filter((route) => readFileSync(join(assetDir(route.id), 'index.js'), 'utf8').includes(PHONE_METADATA_FILE));
    expect(withPhones.map((r) => r.id)).toEqual(expect.arrayContaining(['passwordless-create-code', 'bulkimport-stage', 'user-update']));
    expect(withPhones.map((r) => r.id)).not.toContain('hello');
    expect(withPhones.length).toBeLessThan(ROUTES.length / 2);
    for (const route of ROUTES) {
      expect(existsSync(join(assetDir(route.id), PHONE_METADATA_FILE))).toBe(withPhones.includes(route));
    }
  });

  it('refuses arm64 functions without the arm64 Argon2 binary, at build and at synth', async () => {
    let installed = true;
    try {
      require.resolve(ARGON2_BINARY_PACKAGE.arm64, { paths: [ROOT] });
    } catch {
      installed = false;
    }
    if (installed) {
      expect(() => assertArgon2BinaryInstalled('arm64', ROOT)).not.toThrow();
    } else {
      expect(() => assertArgon2BinaryInstalled('arm64', ROOT)).toThrow('npm i --cpu=arm64 --os=linux --libc=glibc @node-rs/argon2');
      // One password function is enough to meet the refusal (building all 70 for arm64 takes minutes on a busy machine).
      const hashing = ROUTES.filter((r) => r.hashesPasswords).slice(0, 1);
      expect(hashing).toHaveLength(1);
      await expect(buildFunctions(join(bundleDir, '..', 'arm64-attempt'), { arch: 'arm64', target: LAMBDA_TARGET }, hashing)).rejects.toThrow(
        'npm i --cpu=arm64',
      );
    }
    // Bundles built for x86_64 do not deploy as arm64 functions.
    expect(() => synthStage({ stage: 'dev', arch: 'arm64' }, { bundleDir })).toThrow(/has no argon2\.linux-arm64-gnu binary: it was not built for arm64/);
    expect(() => assertArgon2BinaryInstalled('x86_64', ROOT)).not.toThrow();
  });
});

describe('alarms', () => {
  it("alarms on the API 5xx rate, each function's throttles and DynamoDB throttling", () => {
    dev.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'auth-core-dev-api-5xx-rate',
      Metrics: Match.arrayWith([
        Match.objectLike({ MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: '5xx', Namespace: 'AWS/ApiGateway' }) }) }),
      ]),
    });
    // Every function's throttles in exactly one alarm (ten per alarm: metric math takes ten metrics),
    // in the stack of its functions: a route family's, or the parent's for the background functions.
    const throttleAlarms = ofType(dev.resources, 'AWS::CloudWatch::Alarm').filter(([, a]) =>
      /-function-throttles-[a-z0-9]+-\d+$/.test(a.Properties?.AlarmName),
    );
    const families = [...new Set(ROUTES.map(routeFamily))];
    const perFamily = families.map((f) => Math.ceil(ROUTES.filter((r) => routeFamily(r) === f).length / 10));
    expect(throttleAlarms).toHaveLength(perFamily.reduce((a, b) => a + b) + Math.ceil(BACKGROUND_FUNCTIONS.length / 10));
    for (const st of dev.stacks) {
      const inStack = (type: string) => ofType(st.template.toJSON().Resources, type).map(([id]) => `<${id}>`);
      const watchedHere = ofType(st.template.toJSON().Resources, 'AWS::CloudWatch::Alarm')
        .filter(([, a]) => /-function-throttles-/.test(a.Properties?.AlarmName))
        .flatMap(([, a]) => (a.Properties!.Metrics as any[]).filter((m) => m.MetricStat).map((m) => render(m.MetricStat.Metric.Dimensions[0].Value)));
      expect(watchedHere.sort()).toEqual(inStack('AWS::Lambda::Function').sort());
    }
    const watched = throttleAlarms.flatMap(([, a]) =>
      (a.Properties!.Metrics as any[])
        .filter((m) => m.MetricStat)
        .map((m) => {
          expect(m.MetricStat.Metric).toMatchObject({ MetricName: 'Throttles', Namespace: 'AWS/Lambda' });
          return render(m.MetricStat.Metric.Dimensions[0].Value);
        }),
    );
    const functionIds = ofType(dev.resources, 'AWS::Lambda::Function').map(([id]) => `<${id}>`);
    expect(watched.sort()).toEqual(functionIds.sort());
    dev.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'auth-core-dev-table-throttles',
      Metrics: Match.arrayWith([Match.objectLike({ MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: 'ThrottledRequests' }) }) })]),
    });
  });

  it("alarms on the old provider's outages only where password migration is configured, on that source", () => {
    const named = (s: Synthesized) =>
      ofType(s.resources, 'AWS::CloudWatch::Alarm').filter(([, a]) => a.Properties?.AlarmName.endsWith('-password-source-unavailable'));
    expect(named(dev)).toHaveLength(0);
    const [[, alarm]] = named(prod);
    const stats = (alarm.Properties!.Metrics as any[]).filter((m) => m.MetricStat).map((m) => m.MetricStat.Metric);
    expect(stats.map((m) => Object.fromEntries(m.Dimensions.map((d: { Name: string; Value: string }) => [d.Name, d.Value])))).toEqual(
      ['migrated', 'mismatch', 'unavailable'].map((Outcome) => ({ service: 'auth-core-prod', Source: 'webhook', Outcome })),
    );
    expect(stats.every((m) => m.Namespace === 'AuthCore' && m.MetricName === 'SignInMigrations')).toBe(true);
  });

  it('notifies the alarm topic when one is configured, and nothing otherwise', () => {
    for (const [, a] of ofType(prod.resources, 'AWS::CloudWatch::Alarm')) expect(a.Properties?.AlarmActions).toEqual([TOPIC]);
    for (const [, a] of ofType(dev.resources, 'AWS::CloudWatch::Alarm')) expect(a.Properties?.AlarmActions).toBeUndefined();
  });
});

describe('migration dashboard', () => {
  const body = (s: Synthesized) => render(ofType(s.resources, 'AWS::CloudWatch::Dashboard')[0][1].Properties?.DashboardBody);

  it("is one dashboard per stage, on the metrics the functions write with that stage's service", () => {
    for (const [s, stage] of [
      [dev, 'dev'],
      [prod, 'prod'],
    ] as const) {
      const dashboards = ofType(s.resources, 'AWS::CloudWatch::Dashboard');
      expect(dashboards.map(([, d]) => d.Properties?.DashboardName)).toEqual([`auth-core-${stage}-migration`]);
      const widgets = JSON.parse(body(s)).widgets as { properties: { title?: string; metrics?: unknown[][] } }[];
      expect(widgets.map((w) => w.properties.title)).toEqual([
        'Users imported per minute',
        'Bulk rows left, by status (every sweep)',
        'Failures per minute',
        'Sign-ins by hash format, and rehashes, per minute',
        "Old providers' tokens exchanged, by issuer and outcome, per minute",
        'p99 latency (ms)',
        'Throttles per minute',
        'Alarms',
      ]);
      // Every own metric is read with the stage's service, in the service's namespace.
      const own = widgets.flatMap((w) => w.properties.metrics ?? []).filter((m) => m[0] === 'AuthCore');
      expect(own.length).toBeGreaterThan(0);
      for (const m of own) expect(m.slice(2, 4)).toEqual(['service', `auth-core-${stage}`]);
      const searches = widgets
        .flatMap((w) => w.properties.metrics ?? [])
        .map((m) => (m[0] as { expression?: string }).expression)
        .filter((e) => e?.startsWith('SEARCH'));
      for (const e of searches) expect(e).toContain(`service="auth-core-${stage}"`);
    }
  });

  it('reads only metric names the code writes', () => {
    const json = body(dev);
    const names = new Set([...json.matchAll(/\["AuthCore","(\w+)"/g), ...json.matchAll(/MetricName=\\"(\w+)\\"/g)].map((m) => m[1]));
    expect([...names].sort()).toEqual(
      [
        'BulkRowErrors',
        'BulkRowsFailed',
        'BulkRowsImported',
        'BulkRowsLeftFailed',
        'BulkRowThrottles',
        'BulkRowsLeftNew',
        'BulkRowsLeftProcessing',
        'Imports',
        'Latency',
        'Rehashes',
        'SessionExchanges',
        'SignInMigrations',
        'SignIns',
      ].sort(),
    );
    const code = [
      'lib/log/metrics.ts',
      'lib/http/handler.ts',
      'lib/recipes/bulkimport/worker.ts',
      'lib/recipes/emailpassword/sign-in.ts',
      'lib/recipes/emailpassword/import-password-hash.ts',
      'lib/password-migration/migrate-at-sign-in.ts',
      'functions/migration/exchange-session.ts',
    ]
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n');
    for (const name of names)
      expect([name, code.includes(`'${name}'`) || (name.startsWith('BulkRowsLeft') && code.includes('BulkRowsLeft'))]).toEqual([name, true]);
  });

  it('shows the state of every alarm of the stage', () => {
    const json = body(prod);
    const alarms = ofType(prod.resources, 'AWS::CloudWatch::Alarm').map(([id]) => `<${id}.Arn>`);
    expect(alarms.length).toBeGreaterThan(5);
    for (const arn of alarms) expect(json).toContain(arn);
  });
});

describe('names', () => {
  it('names every named resource after the app and the stage', () => {
    const named: [string, string][] = [
      ['AWS::DynamoDB::Table', 'TableName'],
      ['AWS::Lambda::Function', 'FunctionName'],
      ['AWS::Logs::LogGroup', 'LogGroupName'],
      ['AWS::ApiGatewayV2::Api', 'Name'],
      ['AWS::CloudWatch::Alarm', 'AlarmName'],
      ['AWS::CloudWatch::Dashboard', 'DashboardName'],
    ];
    for (const [type, prop] of named) {
      const names = ofType(prod.resources, type).map(([, r]) => r.Properties?.[prop] as string);
      expect(names.length).toBeGreaterThan(0);
      for (const n of names) expect(n).toContain('auth-core-prod');
    }
  });
});

describe('cdk-nag (AwsSolutions)', () => {
  it('reports nothing unacknowledged, in dev and in production', () => {
    for (const s of [dev, prod]) {
      const report = new AwsSolutionsChecks(s.app).validateScope(s.stack);
      expect(report.violations.map((v) => `${v.severity} ${v.ruleName}: ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
    }
  });

  it('gives every acknowledgment a reason', () => {
    const acks: [string, string][] = [];
    const walk = (c: IConstruct) => {
      for (const m of c.node.metadata) {
        if (m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY) acks.push(...Object.entries(m.data as Record<string, string>));
      }
      c.node.children.forEach(walk);
    };
    walk(dev.stack);
    expect(acks.length).toBeGreaterThan(0);
    for (const [id, reason] of acks) {
      expect(id).toMatch(/AwsSolutions-/);
      expect(reason.length).toBeGreaterThan(30);
    }
  });
});

describe('bulk import (SPEC §15)', () => {
  it('feeds the worker from the table stream: only staged and handed-on rows, batch item failures, bisect, bounded retries, a dead-letter queue', () => {
    dev.template.hasResourceProperties('AWS::DynamoDB::Table', { StreamSpecification: { StreamViewType: 'NEW_IMAGE' } });
    const [[, mapping]] = ofType(dev.resources, 'AWS::Lambda::EventSourceMapping');
    expect(mapping.Properties).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: WORKER_BATCH_SIZE,
      MaximumBatchingWindowInSeconds: 1,
      ParallelizationFactor: 10,
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 3,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(render(mapping.Properties?.EventSourceArn)).toMatch(/^<StorageTable[^.>]*\.StreamArn>$/);
    expect(render(mapping.Properties?.DestinationConfig.OnFailure.Destination)).toMatch(/^<BulkImportDeadLetters[^.>]*\.Arn>$/);
    expect(mapping.Properties?.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern))).toEqual(WORKER_FILTER_PATTERNS);
    expect(render(mapping.Properties?.FunctionName)).toMatch(/BulkImportWorker/);
  });

  it('gives the worker time for its longest wait for capacity and the rows after it', () => {
    // A row DynamoDB refuses for load is waited on for up to THROTTLED_RETRY_WINDOW_MS of an
    // invocation; the timeout must leave as much again for the last wait (5 s) and the lanes' other rows.
    const [[, worker]] = ofType(dev.resources, 'AWS::Lambda::Function').filter(([id]) => id.startsWith('BulkImportWorker'));
    expect(worker.Properties?.Timeout).toBe(WORKER_TIMEOUT_SECONDS);
    expect(THROTTLED_RETRY_WINDOW_MS).toBeLessThanOrEqual((WORKER_TIMEOUT_SECONDS * 1000) / 2);
  });

  it('lets the worker read only its stream and send only to its dead-letter queue, beside the write grants of a route', () => {
    const [[, worker]] = ofType(dev.resources, 'AWS::Lambda::Function').filter(([id]) => id.startsWith('BulkImportWorker'));
    const role = dev.resources[roleIdOf(worker)];
    const statements = role.Properties?.Policies[0].PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[];
    const resourcesOf = (action: string) => statements.filter((s) => [s.Action].flat().includes(action)).map((s) => render(s.Resource));
    expect(resourcesOf('dynamodb:GetRecords')).toEqual([expect.stringMatching(/StreamArn/)]);
    expect(resourcesOf('sqs:SendMessage')).toEqual([expect.stringMatching(/BulkImportDeadLetters/)]);
    expect(resourcesOf('dynamodb:PutItem')).toHaveLength(1);
  });

  it('runs the sweeper every five minutes, and alarms on the stream iterator age and the dead-letter depth', () => {
    dev.template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(5 minutes)' });
    for (const name of ['auth-core-dev-bulk-iterator-age', 'auth-core-dev-bulk-dead-letters'])
      dev.template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: name });
    dev.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'auth-core-dev-bulk-iterator-age',
      MetricName: 'IteratorAge',
      Threshold: 300_000,
    });
  });

  it('sets the warm throughput of the table when the stage asks (before a migration)', () => {
    const warm = synthStage({ stage: 'migration', warmWriteUnitsPerSecond: 40000 }, { bundleDir });
    warm.template.hasResourceProperties('AWS::DynamoDB::Table', { WarmThroughput: { WriteUnitsPerSecond: 40000, ReadUnitsPerSecond: 12000 } });
    // Each GSI too (a cold GSI throttles the table's writes): a quarter of the table's.
    const gsis = Object.values(warm.template.findResources('AWS::DynamoDB::Table'))[0].Properties.GlobalSecondaryIndexes as {
      IndexName: string;
      WarmThroughput?: unknown;
    }[];
    expect(gsis.map((g) => [g.IndexName, g.WarmThroughput])).toEqual(
      TABLE_SCHEMA.globalSecondaryIndexes.map((g) => [g.indexName, { WriteUnitsPerSecond: 10000, ReadUnitsPerSecond: 12000 }]),
    );
    // Never below DynamoDB's own floor for a new on-demand GSI.
    const small = synthStage({ stage: 'migration', warmWriteUnitsPerSecond: 6000 }, { bundleDir });
    const smallGsis = Object.values(small.template.findResources('AWS::DynamoDB::Table'))[0].Properties.GlobalSecondaryIndexes as {
      WarmThroughput?: { WriteUnitsPerSecond: number };
    }[];
    expect(smallGsis.map((g) => g.WarmThroughput?.WriteUnitsPerSecond)).toEqual(TABLE_SCHEMA.globalSecondaryIndexes.map(() => 4000));
    expect(dev.template.toJSON().Resources.StorageTableB43FDCE7?.Properties?.WarmThroughput).toBeUndefined();
    for (const g of dev.template.toJSON().Resources.StorageTableB43FDCE7?.Properties?.GlobalSecondaryIndexes ?? []) expect(g.WarmThroughput).toBeUndefined();
  });

  it('provisions the table and each GSI (its share of it) for a migration window when the stage asks, on-demand otherwise', () => {
    const window = synthStage({ stage: 'migration', provisionedWriteUnits: 36000, provisionedReadUnits: 2001 }, { bundleDir });
    const [table] = Object.values(window.template.findResources('AWS::DynamoDB::Table'));
    expect(table.Properties).toMatchObject({ BillingMode: 'PROVISIONED', ProvisionedThroughput: { WriteCapacityUnits: 36000, ReadCapacityUnits: 2001 } });
    expect(table.Properties.WarmThroughput).toBeUndefined();
    const gsis = table.Properties.GlobalSecondaryIndexes as { IndexName: string; ProvisionedThroughput?: unknown }[];
    // gsi1 a quarter (the user list and the rows' status index), gsi2 an eighth (emails, phones, a role's users); rounded up.
    expect(Object.fromEntries(gsis.map((g) => [g.IndexName, g.ProvisionedThroughput]))).toEqual({
      gsi1: { WriteCapacityUnits: 9000, ReadCapacityUnits: 501 },
      gsi2: { WriteCapacityUnits: 4500, ReadCapacityUnits: 251 },
    });
    expect(gsis.map((g) => g.IndexName).sort()).toEqual(TABLE_SCHEMA.globalSecondaryIndexes.map((g) => g.indexName).sort());
    // Everything else is the stage as it is on demand: the stream the worker reads, PITR, the resources.
    expect(table.Properties).toMatchObject({
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    expect(Object.keys(window.resources).length).toBe(Object.keys(dev.resources).length);
    const report = new AwsSolutionsChecks(window.app).validateScope(window.stack);
    expect(report.violations.map((v) => v.ruleName)).toEqual([]);

    const onDemand = dev.template.toJSON().Resources.StorageTableB43FDCE7?.Properties;
    expect(onDemand?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(onDemand?.ProvisionedThroughput).toBeUndefined();
    for (const g of onDemand?.GlobalSecondaryIndexes ?? []) expect(g.ProvisionedThroughput).toBeUndefined();
  });
});
