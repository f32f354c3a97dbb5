import { App, NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARGON2_BINARY_PACKAGE } from '../../infra/bundling';
import type { FunctionDef } from '../../infra/routes';
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

/** One CloudFormation stack of a stage: the parent, or a route family's nested stack. */
export interface SynthesizedStack {
  /** The construct path: `AuthCore-dev`, `AuthCore-dev/SessionRoutes`. */
  readonly path: string;
  readonly template: Template;
  /** Its own resources, as CloudFormation counts them against the 500 of a stack. */
  readonly resourceCount: number;
  readonly parameterCount: number;
  readonly outputCount: number;
}

export interface Synthesized {
  readonly app: App;
  readonly stack: AuthCoreStack;
  /** The parent stack's template. */
  readonly template: Template;
  /**
   * Every resource of the stage, the parent's and its nested stacks', read as one template: a
   * nested stack's parameter reads as the parent's value it is given (`{Ref: <role's parameter>}`
   * is `{Fn::GetAtt: [<role>, Arn]}`), and the parent's read of a nested stack's output as that
   * output's value. So a function's role, log group and table read the same wherever it is.
   */
  readonly resources: Record<string, CfnResource>;
  /** The parent's outputs. */
  readonly outputs: Record<string, any>;
  /** The mappings of every stack (the extension layer's ARNs by region sit in each function's). */
  readonly mappings: Record<string, Record<string, Record<string, string>>>;
  /** The parent, then each nested stack. */
  readonly stacks: readonly SynthesizedStack[];
  /** Cloud assembly directory; bundled assets are its `asset.<hash>` folders. */
  readonly outdir: string;
}

const built = new Map<LambdaArch, Promise<string>>();

/**
 * The Lambda bundles of one architecture, built by the build `infra/app.ts` runs
 * (`buildLambdaFunctions`) into `dist/lambda/<arch>`, once per test file. That build is
 * incremental: a run after one that built them rebuilds only the bundles whose inputs changed
 * since (none, usually). A temporary folder cost every bundle in every run (74 of them, 40-100 s
 * on two busy cores: most of the stack suite's time).
 */
export function lambdaBundles(arch: LambdaArch = 'x86_64'): Promise<string> {
  let dir = built.get(arch);
  if (!dir) {
    const out = join(__dirname, '..', '..', 'dist', 'lambda', arch);
    dir = buildLambdaFunctions(out, arch).then(() => out);
    built.set(arch, dir);
  }
  return dir;
}

/**
 * Stand-in bundles for synthesising a route table without building it (the resources a stage has
 * do not depend on what its bundles hold): `<dir>/<id>/index.js`, and an empty Argon2 binary of
 * the architecture beside each function that hashes passwords, which the stack looks for.
 */
export function stubBundles(functions: readonly FunctionDef[], arch: LambdaArch = 'x86_64'): string {
  const dir = scratchDir('auth-core-stub-bundles-');
  const binary = ARGON2_BINARY_PACKAGE[arch].replace('@node-rs/argon2-', 'argon2.');
  for (const f of functions) {
    mkdirSync(join(dir, f.id));
    writeFileSync(join(dir, f.id, 'index.js'), `exports.handler = async () => ({ statusCode: 501, body: ${JSON.stringify(f.id)} });\n`);
    if (f.hashesPasswords) writeFileSync(join(dir, f.id, `${binary}-STUB.node`), '');
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
  const stacks: SynthesizedStack[] = [];
  const flat = flatten(stack, stacks);
  return { app, stack, template, resources: flat.Resources, outputs: flat.Outputs, mappings: flat.Mappings, stacks, outdir };
}

interface TemplateJson {
  Resources: Record<string, CfnResource>;
  Outputs: Record<string, any>;
  Parameters: Record<string, unknown>;
  Mappings: Record<string, Record<string, Record<string, string>>>;
}

/** Every `{…}` of a JSON value that `replace` answers for, replaced; the rest as it was. */
function substitute(value: unknown, replace: (o: Record<string, unknown>) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => substitute(v, replace));
  if (value === null || typeof value !== 'object') return value;
  const replaced = replace(value as Record<string, unknown>);
  if (replaced !== undefined) return replaced;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, replace)]));
}

/**
 * A stack's template with its nested stacks' resources merged in (see `Synthesized.resources`),
 * and each stack's own counts appended to `stacks`. A logical id in two stacks would make the
 * merged view lie: it throws.
 */
function flatten(stack: Stack, stacks: SynthesizedStack[]): TemplateJson {
  const template = Template.fromStack(stack);
  const own = template.toJSON() as Partial<TemplateJson>;
  const json: TemplateJson = { Resources: own.Resources ?? {}, Outputs: own.Outputs ?? {}, Parameters: own.Parameters ?? {}, Mappings: own.Mappings ?? {} };
  stacks.push({
    path: stack.node.path,
    template,
    resourceCount: Object.keys(json.Resources).length,
    parameterCount: Object.keys(json.Parameters).length,
    outputCount: Object.keys(json.Outputs).length,
  });
  const nested = stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c) && c.nestedStackParent === stack);
  const outputsOf = new Map<string, Record<string, any>>();
  const merged: TemplateJson = { ...json, Resources: { ...json.Resources }, Mappings: { ...json.Mappings } };
  for (const child of nested) {
    const resourceId = stack.getLogicalId(child.nestedStackResource as NonNullable<typeof child.nestedStackResource>);
    const given = (json.Resources[resourceId].Properties?.Parameters ?? {}) as Record<string, unknown>;
    const inner = flatten(child, stacks);
    const resolved = substitute(inner, (o) => (typeof o.Ref === 'string' && o.Ref in given ? given[o.Ref] : undefined)) as TemplateJson;
    outputsOf.set(resourceId, resolved.Outputs);
    for (const [id, r] of Object.entries(resolved.Resources)) {
      if (id in merged.Resources) throw new Error(`Logical id ${id} is in ${child.node.path} and another stack`);
      merged.Resources[id] = r;
    }
    Object.assign(merged.Mappings, resolved.Mappings);
  }
  return substitute(merged, (o) => {
    const att = o['Fn::GetAtt'];
    if (!Array.isArray(att) || typeof att[1] !== 'string' || !att[1].startsWith('Outputs.')) return undefined;
    return outputsOf.get(att[0] as string)?.[att[1].slice('Outputs.'.length)]?.Value;
  }) as TemplateJson;
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
