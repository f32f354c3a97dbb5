import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { join } from 'node:path';
import { AuthCoreStack, type AuthCoreStackProps } from '../../infra/stack';
import { settingsFromContext, stackName, type LambdaArch } from '../../infra/settings';
import { buildLambdaFunctions } from '../../scripts/build';
import { scratchDir } from '../support/scratch';

/* Helpers for the infra tests: synthesise a stage like `infra/app.ts` does, and read the template. */

/** A CloudFormation resource as it appears in the synthesised template. */
export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, any>;
  readonly DeletionPolicy?: string;
  readonly UpdateReplacePolicy?: string;
}

export interface Synthesized {
  readonly app: App;
  readonly stack: AuthCoreStack;
  readonly template: Template;
  readonly resources: Record<string, CfnResource>;
  readonly outputs: Record<string, any>;
  /** Cloud assembly directory; bundled assets are its `asset.<hash>` folders. */
  readonly outdir: string;
}

const built = new Map<LambdaArch, Promise<string>>();

/**
 * The Lambda bundles of one architecture, built once per test file into a temporary directory by
 * the build `infra/app.ts` runs (`buildLambdaFunctions`).
 */
export function lambdaBundles(arch: LambdaArch = 'x86_64'): Promise<string> {
  let dir = built.get(arch);
  if (!dir) {
    const out = join(scratchDir('auth-core-bundles-'), arch);
    dir = buildLambdaFunctions(out, arch).then(() => out);
    built.set(arch, dir);
  }
  return dir;
}

/**
 * Builds the stack of one stage from CDK context values, as `infra/app.ts` does, with the bundles
 * of `bundleDir` (from {@link lambdaBundles}). cdk-nag is not registered here (it would fail the
 * synth, and with it every test, on one finding): the nag test runs the pack itself and lists the
 * findings.
 */
export function synthStage(context: Record<string, unknown>, opts: { bundleDir: string; overrides?: Partial<AuthCoreStackProps> }): Synthesized {
  const outdir = scratchDir('auth-core-cdk-');
  const app = new App({ outdir });
  const settings = settingsFromContext((key) => context[key]);
  const stack = new AuthCoreStack(app, stackName(settings.stage), { ...settings, bundleDir: opts.bundleDir, ...opts.overrides });
  app.synth();
  const template = Template.fromStack(stack);
  const json = template.toJSON() as { Resources: Record<string, CfnResource>; Outputs: Record<string, any> };
  return { app, stack, template, resources: json.Resources, outputs: json.Outputs, outdir };
}

/** `[logicalId, resource]` of every resource of a type. */
export function ofType(resources: Record<string, CfnResource>, type: string): [string, CfnResource][] {
  return Object.entries(resources).filter(([, r]) => r.Type === type);
}

/**
 * Renders an intrinsic as a readable string: `{Fn::GetAtt: [X, Arn]}` → `<X.Arn>`, `{Ref: X}` →
 * `<X>`, `Fn::Join` concatenated. A `*` in the output is a `*` in the policy.
 */
export function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(render).join(',');
  if (value && typeof value === 'object') {
    const o = value as Record<string, any>;
    if ('Ref' in o) return `<${o.Ref}>`;
    if ('Fn::GetAtt' in o) return `<${o['Fn::GetAtt'][0]}.${o['Fn::GetAtt'][1]}>`;
    if ('Fn::Join' in o) return (o['Fn::Join'][1] as unknown[]).map(render).join(o['Fn::Join'][0] as string);
    if ('Fn::Sub' in o) return String(o['Fn::Sub']);
  }
  return JSON.stringify(value);
}

/** One IAM statement, flattened. */
export interface Statement {
  readonly effect: string;
  readonly actions: string[];
  readonly resources: string[];
}

const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Every statement a role holds: its inline policies and the `AWS::IAM::Policy` resources attached to it. */
export function statementsOfRole(resources: Record<string, CfnResource>, roleId: string): Statement[] {
  const docs: any[] = [];
  const role = resources[roleId];
  for (const p of asList(role.Properties?.Policies)) docs.push((p as any).PolicyDocument);
  for (const [, policy] of ofType(resources, 'AWS::IAM::Policy')) {
    if (asList(policy.Properties?.Roles).some((r: any) => r?.Ref === roleId)) docs.push(policy.Properties?.PolicyDocument);
  }
  return docs.flatMap((d) =>
    asList(d.Statement).map((s: any) => ({
      effect: s.Effect,
      actions: asList<string>(s.Action),
      resources: asList(s.Resource).map(render),
    })),
  );
}
