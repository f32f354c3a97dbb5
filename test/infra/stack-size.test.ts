import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { apiPathsOf } from '../../infra/constructs/http-api';
import { FUNCTIONS_PER_THROTTLE_ALARM } from '../../infra/constructs/alarms';
import { familyDescription, MAX_STACK_DESCRIPTION } from '../../infra/constructs/route-family';
import { BACKGROUND_FUNCTIONS, ROUTES, routeById, routeFamily, type RouteDef } from '../../infra/routes';
import { ofType, stubBundles, synthStage, type Synthesized } from './synth';

/*
 * Room for routes (issue #43). CloudFormation takes at most 500 resources a stack; the stack test
 * allows 450 in each. One stack of 72 routes held 415 of them: a route costs its function, an
 * integration, an invoke permission, one API route per path form (2 or 3) and a tenth of a
 * throttle alarm. Not enough of that can go while every endpoint keeps a Lambda of its own: its
 * function, integration and API routes alone, for 120 routes, are more than a stack holds. So
 * the routes sit in one nested stack per recipe family, and the parent holds what the stage has
 * whatever its routes. Here: the real route table and the routes planned up to 120 (WebAuthn, the
 * tenants' providers), 120 in all, synthesised with stand-in bundles (the resources of a stage do
 * not depend on what its bundles hold; test/infra/stack.test.ts synthesises the real bundles).
 */

/** CloudFormation's limit of resources, parameters and outputs a stack. */
const CFN_RESOURCES = 500;
const CFN_PARAMETERS = 200;
const CFN_OUTPUTS = 200;
/** What the stack test allows each stack: room under CloudFormation's limit. */
const MAX_RESOURCES = 450;

/** Routes the table must have room for (issue #43): the real ones and those the next issues plan. */
const ROOM_FOR = 120;
/**
 * The routes the next issues plan, by the family that will get them, copied from a tenant route
 * of the route table: the tenants' (§22: 14 planned, of which the providers' and the association's four have landed), and
 * WebAuthn (§21) the rest up to 120 (72 real routes when this was written; TOTP's have landed since).
 */
const PLANNED: Readonly<Record<string, number>> = { webauthn: ROOM_FOR - ROUTES.length - 10, multitenancy: 10 };

/** `n` planned routes of a family: each a tenant route (three path forms, the costliest), new id, path and handler. */
function plannedRoutes(family: string, n: number): RouteDef[] {
  const model = routeById('userroles-add-user-role');
  expect(model.scope).toBe('tenant');
  return Array.from({ length: n }, (_, i) => ({
    ...model,
    id: `${family}-planned-${i + 1}`,
    method: i % 2 === 0 ? 'POST' : 'GET',
    path: `/recipe/${family}/planned-${i + 1}`,
    entry: `functions/${family}/planned-${i + 1}.ts`,
    access: i % 2 === 0 ? 'write' : 'read',
    summary: `Planned ${family} route ${i + 1} (stack size test).`,
  }));
}

const planned = Object.entries(PLANNED).flatMap(([family, n]) => plannedRoutes(family, n));
const ALL = [...ROUTES, ...planned];

/** The resources a family's stack must hold: per route its function, integration, permission and API routes; its throttle alarms. */
function familyCost(routes: readonly RouteDef[]): number {
  return routes.reduce((sum, r) => sum + 3 + apiPathsOf(r).length, 0) + Math.ceil(routes.length / FUNCTIONS_PER_THROTTLE_ALARM);
}

const familiesOf = (routes: readonly RouteDef[]) => [...new Set(routes.map(routeFamily))];
const countsOf = (s: Synthesized) => Object.fromEntries(s.stacks.map((st) => [st.path.replace(/^AuthCore-dev\/?/, '') || 'parent', st.resourceCount]));

let bare: Synthesized;
let real: Synthesized;
let grown: Synthesized;

beforeAll(() => {
  const bundleDir = stubBundles([...ALL, ...BACKGROUND_FUNCTIONS]);
  bare = synthStage({ stage: 'dev' }, { bundleDir, overrides: { routes: [] } });
  real = synthStage({ stage: 'dev' }, { bundleDir });
  grown = synthStage({ stage: 'dev' }, { bundleDir, overrides: { routes: ALL } });
}, 240_000);

describe('room for 120 routes (issue #43)', () => {
  it('plans routes up to 120, in the families that will get them, with ids, paths and handlers of their own', () => {
    expect(ROUTES.length).toBeGreaterThanOrEqual(79);
    expect(PLANNED.webauthn).toBeGreaterThan(0);
    expect(ALL).toHaveLength(ROOM_FOR);
    expect(new Set(ALL.map((r) => r.id)).size).toBe(ROOM_FOR);
    expect(new Set(ALL.map((r) => `${r.method} ${r.path}`)).size).toBe(ROOM_FOR);
    expect(familiesOf(planned)).toEqual(['webauthn', 'multitenancy']);
  });

  it('needs more than one stack for 120 routes: their functions, integrations and API routes alone are over 500', () => {
    // What no layout could spare while each endpoint keeps a Lambda: a function, an integration and the API routes of each route.
    const leastPerRoute = ['AWS::Lambda::Function', 'AWS::ApiGatewayV2::Integration', 'AWS::ApiGatewayV2::Route'].map((t) => ofType(grown.resources, t).length);
    expect(leastPerRoute).toEqual([ALL.length + BACKGROUND_FUNCTIONS.length, ALL.length, ALL.reduce((n, r) => n + apiPathsOf(r).length, 0)]);
    const least = leastPerRoute[1] * 2 + leastPerRoute[2];
    expect(least).toBeGreaterThan(CFN_RESOURCES);
  });

  it('keeps every stack, the parent and each family, under 450 resources, 200 parameters and 200 outputs: the real route table and 120 routes', () => {
    for (const s of [real, grown]) {
      const over = s.stacks.filter((st) => st.resourceCount > MAX_RESOURCES || st.parameterCount > CFN_PARAMETERS || st.outputCount > CFN_OUTPUTS);
      expect(over.map((st) => `${st.path}: ${st.resourceCount} resources, ${st.parameterCount} parameters, ${st.outputCount} outputs`)).toEqual([]);
    }
    expect(MAX_RESOURCES).toBeLessThan(CFN_RESOURCES);
    // One nested stack per family, and the parent.
    expect(real.stacks).toHaveLength(1 + familiesOf(ROUTES).length);
    expect(grown.stacks).toHaveLength(1 + familiesOf(ALL).length);
    // Each stack is well under: a family is a few dozen routes (the largest of the 120, WebAuthn's
    // planned tenant routes, 165 resources), the parent under a hundred.
    expect(Math.max(...grown.stacks.map((st) => st.resourceCount))).toBeLessThanOrEqual(200);
  });

  it('holds in the parent what the stage has whatever its routes, and one resource per family', () => {
    const parent = (s: Synthesized) => s.stacks[0].resourceCount;
    expect(bare.stacks).toHaveLength(1);
    // Table, API and stage, the two log groups, the roles of the background functions, the
    // bulk-import engine (worker, sweeper, queue, queue policy, mapping, schedule, permission),
    // the stage's alarms and the dashboard.
    expect(parent(bare)).toBeLessThanOrEqual(30);
    for (const [s, routes] of [
      [real, ROUTES],
      [grown, ALL],
    ] as const) {
      const families = familiesOf(routes).length;
      // Roles are made per grant set, the first time a function asks: the routes' sets beyond the background functions'.
      const roles = ofType(s.resources, 'AWS::IAM::Role').length - ofType(bare.resources, 'AWS::IAM::Role').length;
      expect(parent(s)).toBe(parent(bare) + families + roles);
      expect(ofType(s.stacks[0].template.toJSON().Resources, 'AWS::CloudFormation::Stack')).toHaveLength(families);
    }
    expect(parent(grown)).toBeLessThanOrEqual(60);
    // A stage without routes (routes=none) says so at synth; a stage with them does not.
    Annotations.fromStack(bare.stack).hasWarning('*', Match.stringLikeRegexp('has no routes'));
    Annotations.fromStack(real.stack).hasNoWarning('*', Match.stringLikeRegexp('has no routes'));
  });

  it("costs each family's stack exactly its routes' resources: 3 and one per path form a route, one throttle alarm per ten", () => {
    for (const [s, routes] of [
      [real, ROUTES],
      [grown, ALL],
    ] as const) {
      const expected = Object.fromEntries(
        familiesOf(routes).map((family) => [`${family[0].toUpperCase()}${family.slice(1)}Routes`, familyCost(routes.filter((r) => routeFamily(r) === family))]),
      );
      const { parent: _, ...families } = countsOf(s);
      expect(families).toEqual(expected);
    }
    // Room left: a family of tenant routes (6.1 resources each) reaches 450 at about 73 routes;
    // the largest family of the 120 has far fewer.
    const tenantRoute = familyCost(plannedRoutes('room', 10)) / 10;
    expect(tenantRoute).toBeCloseTo(6.1);
    expect(Math.floor(MAX_RESOURCES / tenantRoute)).toBe(73);
    expect(Math.max(...familiesOf(ALL).map((f) => ALL.filter((r) => routeFamily(r) === f).length))).toBeLessThan(40);
  });

  it('describes each family stack within the 512 characters CDK takes, naming its routes as far as they fit', () => {
    for (const st of grown.stacks.slice(1)) {
      const description = st.template.toJSON().Description as string;
      expect(description.length).toBeLessThanOrEqual(MAX_STACK_DESCRIPTION);
      expect(description).toMatch(/^auth-core-dev: the \d+ \w+ routes \(/);
    }
    const many = Array.from({ length: 60 }, (_, i) => `webauthn-planned-${i + 1}`);
    const long = familyDescription('auth-core-dev', 'webauthn', many);
    expect([
      long.length <= MAX_STACK_DESCRIPTION,
      long.startsWith('auth-core-dev: the 60 webauthn routes (webauthn-planned-1, '),
      /, and \d+ more\)$/.test(long),
    ]).toEqual([true, true, true]);
    expect(familyDescription('auth-core-dev', 'totp', ['totp-a', 'totp-b'])).toBe('auth-core-dev: the 2 totp routes (totp-a, totp-b)');
  });

  it("gives each planned route its function, integration and API routes, in its family's stack", () => {
    const names = new Set(ofType(grown.resources, 'AWS::Lambda::Function').map(([, f]) => f.Properties?.FunctionName as string));
    for (const route of planned) expect(names.has(`auth-core-dev-${route.id}`)).toBe(true);
    const keys = new Set(ofType(grown.resources, 'AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties?.RouteKey as string));
    for (const route of ALL) for (const path of apiPathsOf(route)) expect(keys.has(`${route.method} ${path}`)).toBe(true);
    expect(keys.size).toBe(ALL.reduce((n, r) => n + apiPathsOf(r).length, 0));
    const webauthn = grown.stacks.find((st) => st.path.endsWith('/WebauthnRoutes'));
    const webauthnNames = ofType(webauthn?.template.toJSON().Resources ?? {}, 'AWS::Lambda::Function').map(([, f]) => f.Properties?.FunctionName as string);
    // The WebAuthn routes that landed (issue 45) and the planned rest share the family's stack.
    expect(webauthnNames.sort()).toEqual(
      [...ROUTES.filter((r) => routeFamily(r) === 'webauthn'), ...plannedRoutes('webauthn', PLANNED.webauthn)].map((r) => `auth-core-dev-${r.id}`).sort(),
    );
  });
});
