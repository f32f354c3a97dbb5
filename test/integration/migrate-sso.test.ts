import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import supertokens from 'supertokens-node';
import { errorHandler, middleware } from 'supertokens-node/framework/express';
import Session from 'supertokens-node/recipe/session';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import { startApi, TEST_API_KEY, type TestApi } from '../support/api';
import { migrate, rowCount } from '../support/migrate-e2e';
import { startOAuthStandIn, type OAuthStandIn } from '../support/oauth-stand-in';
import { scratchDir } from '../support/scratch';
import { plan } from '../support/migration';
import { openSsoSource, ssoExpected, ssoFolder, type SsoExpected, type SsoUser } from '../support/sso-fixtures';
import { pastTenantCache } from '../support/tenant-cache';

/**
 * Enterprise users carried over end to end (SPEC §22): the built command with `--connections` on
 * each source's fixture of test/fixtures/sso, against the local service and its bulk worker. Each
 * connection's tenant is created, Keycloak's OIDC providers are written from the export (a masked
 * secret from the environment), every user is as expected.json says (login methods in their
 * tenants, one primary user across tenants), the unmapped SAML users are absent; no client secret
 * reaches the terminal, the report, the ledger or the service's log; a re-run adds nothing and
 * leaves the providers `unchanged`; `migrate verify` finds every user as mapped. Then each user marked `signIn` signs in through the FDI of an
 * app on supertokens-node 24, the tenant's provider pointed at a loopback OIDC stand-in that knows
 * the user under their old subject, and finds the same user: same external id, metadata and roles.
 */
const SOURCES = ['keycloak', 'auth0', 'cognito', 'supabase'] as const;
/** The client an operator configures for a source whose export holds no provider config. */
const E2E_CLIENT = { id: 'sso-e2e-client', secret: 'sso-e2e-client-secret-7Hq2' };

let api: TestApi;
let idp: OAuthStandIn;
let app: Server;
let appUrl: string;
const dir = scratchDir('migrate-sso-e2e-');

/** Each signIn user's email → their thirdPartyUserId at the provider they sign in through. */
function oldSubjects(): Record<string, string> {
  const subjects: Record<string, string> = {};
  for (const source of SOURCES) {
    for (const u of ssoExpected(source).users) {
      const lm = u.signIn && u.loginMethods?.find((m) => m.thirdPartyId === u.signIn!.thirdPartyId);
      if (lm) subjects[lm.email!] = lm.thirdPartyUserId!;
    }
  }
  return subjects;
}

/** The clients the stand-in knows: the Keycloak export's (its secrets as the fixture gives them) and the operator's. */
function standInClients(): Record<string, string> {
  const kc = ssoExpected('keycloak');
  const clients: Record<string, string> = { [E2E_CLIENT.id]: E2E_CLIENT.secret };
  for (const p of kc.providers) {
    if (typeof p.clientId !== 'string') continue;
    clients[p.clientId] = p.clientSecretFromEnv !== undefined ? kc.env[p.clientSecretFromEnv as string] : (p.clientSecret as string);
  }
  return clients;
}

beforeAll(async () => {
  api = await startApi({ ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1', BULK_WORKER: 'on' });
  idp = await startOAuthStandIn(standInClients(), oldSubjects());
  supertokens.init({
    framework: 'express',
    supertokens: { connectionURI: api.baseUrl, apiKey: TEST_API_KEY },
    appInfo: { appName: 'migrate-sso', apiDomain: 'http://api.example.test', websiteDomain: 'http://app.example.test', apiBasePath: '/auth' },
    // No static provider: every tenant's providers are the core's.
    recipeList: [ThirdParty.init({ signInAndUpFeature: { providers: [] } }), Session.init()],
  });
  const server = express();
  server.use(middleware());
  server.use(errorHandler());
  app = await new Promise<Server>((resolve) => {
    const s = server.listen(0, '127.0.0.1', () => resolve(s));
  });
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => app?.close(resolve));
  await idp?.stop();
  await api?.stop();
});

/** Users of the app, every tenant's. */
const userCount = async () => (await api.get('/users/count?includeAllTenants=true')).json.count as number;

/** The FDI's third-party sign-in-up of a browser back from the provider with `code`. */
async function signInUp(tenantId: string, thirdPartyId: string, code: string) {
  const res = await fetch(`${appUrl}/auth/${tenantId}/signinup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', rid: 'thirdparty', 'st-auth-mode': 'header' },
    body: JSON.stringify({
      thirdPartyId,
      redirectURIInfo: { redirectURIOnProviderDashboard: 'http://app.example.test/auth/callback', redirectURIQueryParams: { code } },
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** The fixture's args with its files as absolute paths. */
const argsOf = (source: string, expected: SsoExpected) => expected.args.map((a) => (existsSync(join(ssoFolder(source), a)) ? join(ssoFolder(source), a) : a));

/** What the service holds of an imported user: id, time, and each login method with its tenant. */
async function checkUser(want: SsoUser): Promise<void> {
  const where = want.label;
  const got = await api.get(`/user/id?userId=${encodeURIComponent(want.externalUserId)}`);
  expect([where, got.json.status, got.json.user?.id, got.json.user?.timeJoined]).toEqual([where, 'OK', want.externalUserId, want.timeJoined]);
  const view = (lm: any) =>
    JSON.stringify({
      recipeId: lm.recipeId,
      ...(lm.thirdParty ? { thirdPartyId: lm.thirdParty.id, thirdPartyUserId: lm.thirdParty.userId } : {}),
      email: lm.email,
      verified: lm.verified,
      tenant: lm.tenantIds.length === 1 ? lm.tenantIds[0] : lm.tenantIds,
    });
  const wanted = want.loginMethods!.map(({ recipeId, thirdPartyId, thirdPartyUserId, email, verified, tenant }) =>
    JSON.stringify({ recipeId, ...(thirdPartyId ? { thirdPartyId, thirdPartyUserId } : {}), email, verified, tenant }),
  );
  expect([where, got.json.user.loginMethods.map(view).sort()]).toEqual([where, wanted.sort()]);
  expect([where, got.json.user.isPrimaryUser]).toEqual([where, want.loginMethods!.length > 1]);
}

/** Every text the run left: its terminal output, every file in the scratch folder (reports, ledgers) and the service's log. */
function everythingWritten(run: { stdout: string; stderr: string }): string {
  const files = readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
  return [run.stdout, run.stderr, ...files, ...api.logs].join('\n');
}

async function userData(tenant: string, id: string) {
  const metadata = (await api.get(`/recipe/user/metadata?userId=${encodeURIComponent(id)}`)).json.metadata;
  const roles = (await api.get(`/${tenant}/recipe/user/roles?userId=${encodeURIComponent(id)}`)).json.roles;
  return { metadata, roles };
}

describe.each(SOURCES)('%s', (source) => {
  const expected = ssoExpected(source);

  it('imports the enterprise users into their tenants, writes the export’s providers, leaks no secret; a re-run adds nothing', async () => {
    const before = await userCount();
    const run = await migrate(api, dir, argsOf(source, expected), undefined, expected.env);
    expect([run.code === expected.exitCode || (expected.exitCodeAlso ?? []).includes(run.code!), run.stderr]).toEqual([true, expect.any(String)]);
    expect(run.report.summary).toEqual(expected.summary);
    const outcome = (u: SsoUser) => run.report.users.find((e: any) => e.sourceId === u.sourceId);
    for (const want of expected.users) {
      const got = outcome(want);
      expect([want.label, got.outcome, got.outcome === 'imported' ? got.userId : want.externalUserId]).toEqual([want.label, want.outcome, want.externalUserId]);
      if (want.reasonCode !== undefined) expect([want.label, got.reasonCode]).toEqual([want.label, want.reasonCode]);
    }
    expect(await userCount()).toBe(before + expected.summary.imported);

    const tenants = (await api.get('/recipe/multitenancy/tenant/list/v2')).json.tenants.map((t: any) => t.tenantId);
    expect(tenants).toEqual(expect.arrayContaining(expected.tenants));
    for (const want of expected.users) {
      if (want.outcome === 'imported') await checkUser(want);
      for (const email of want.absent ?? []) {
        for (const tenant of ['public', ...expected.tenants]) {
          const found = await api.get(`/${tenant}/users/by-accountinfo?email=${encodeURIComponent(email)}`);
          expect([want.label, tenant, found.json.users]).toEqual([want.label, tenant, []]);
        }
      }
    }

    const written = expected.providers.filter((p) => p.outcome !== 'none');
    expect(run.report.providers ?? []).toEqual(
      written.map((p) => ({
        tenantId: p.tenantId,
        thirdPartyId: p.thirdPartyId,
        outcome: p.outcome,
        clientSecretFrom: p.clientSecretFromEnv !== undefined ? `env ${p.clientSecretFromEnv}` : 'export',
      })),
    );
    for (const p of written) {
      const stored = (await api.get(`/${p.tenantId}/recipe/multitenancy/tenant/v2`)).json.thirdParty.providers;
      const secret = p.clientSecretFromEnv !== undefined ? expected.env[p.clientSecretFromEnv as string] : p.clientSecret;
      expect(stored).toEqual([
        expect.objectContaining({
          thirdPartyId: p.thirdPartyId,
          name: p.name,
          clients: [{ clientId: p.clientId, clientSecret: secret, scope: p.scope }],
          authorizationEndpoint: p.authorizationEndpoint,
          tokenEndpoint: p.tokenEndpoint,
          userInfoEndpoint: p.userInfoEndpoint,
          jwksURI: p.jwksURI,
        }),
      ]);
    }

    const again = await migrate(api, dir, argsOf(source, expected), undefined, expected.env);
    // A re-run's summary adds the sync's counts (SPEC §17c): every imported user unchanged, nothing else.
    const rerun = { ...expected.summary, unchanged: expected.summary.imported, updated: 0, conflict: 0, goneFromSource: 0, removed: 0 };
    expect([again.report.summary, again.report.users.filter((u: any) => u.outcome === 'imported' && u.fromLedger !== true)]).toEqual([rerun, []]);
    expect((again.report.providers ?? []).map((p: any) => p.outcome)).toEqual(written.map(() => 'unchanged'));
    expect([await userCount(), await rowCount(api)]).toEqual([before + expected.summary.imported, 0]);

    // migrate verify (§17c) with the same mapping compares each enterprise method's tenant and identity.
    const verify = await migrate(api, dir, ['verify', ...argsOf(source, expected)], undefined, expected.env);
    const { imported, skipped } = expected.summary;
    expect([verify.code, verify.stdout]).toEqual([
      0,
      expect.stringContaining(
        `verify: ${expected.summary.total} users: ${imported} match, 0 different, 0 missing, ${skipped} absent as planned, 0 unexpected\n`,
      ),
    ]);

    const text = everythingWritten(run) + everythingWritten(again) + everythingWritten(verify);
    for (const secret of [...expected.secrets, ...Object.values(expected.env)]) expect([secret, text.includes(secret)]).toEqual([secret, false]);
  });

  it('each signIn user signs in through the stand-in as their tenant’s provider and finds the same user, metadata and roles', async () => {
    const signIns = expected.users.filter((u) => u.signIn !== undefined);
    expect(signIns.length).toBeGreaterThan(0);
    const since = Date.now();
    for (const tenant of new Set(signIns.map((u) => `${u.signIn!.tenant}\u0000${u.signIn!.thirdPartyId}`))) {
      const [tenantId, thirdPartyId] = tenant.split('\u0000');
      const stored = (await api.get(`/${tenantId}/recipe/multitenancy/tenant/v2`)).json.thirdParty.providers.find((p: any) => p.thirdPartyId === thirdPartyId);
      // The export's provider keeps its client (id and secret as migrated); another source's gets the operator's.
      const clients = stored?.clients ?? [{ clientId: E2E_CLIENT.id, clientSecret: E2E_CLIENT.secret }];
      const config = {
        thirdPartyId,
        name: `${thirdPartyId} (stand-in)`,
        clients,
        authorizationEndpoint: `${idp.base}/authorize`,
        tokenEndpoint: idp.tokenEndpoint,
        userInfoEndpoint: idp.userInfoEndpoint,
      };
      expect((await api.put(`/${tenantId}/recipe/multitenancy/config/thirdparty`, { config })).json.status).toBe('OK');
    }
    await pastTenantCache(since);
    for (const want of signIns) {
      const { tenant, thirdPartyId } = want.signIn!;
      const lm = want.loginMethods!.find((m) => m.thirdPartyId === thirdPartyId)!;
      const held = await userData(tenant, want.externalUserId);
      // As the export says: the mapping's metadata, and its roles in every tenant of the user.
      const mapped = (await plan((await openSsoSource(source)).source)).users.find((u) => u.mapped.sourceId === want.sourceId)!.mapped.user!;
      expect([want.label, held]).toEqual([want.label, { metadata: mapped.userMetadata ?? {}, roles: (mapped.userRoles ?? []).map((r) => r.role) }]);
      const clientId = (await api.get(`/${tenant}/recipe/multitenancy/tenant/v2`)).json.thirdParty.providers.find((p: any) => p.thirdPartyId === thirdPartyId)
        .clients[0].clientId as string;
      const exchanges = idp.counts.exchanges;
      const res = await signInUp(tenant, thirdPartyId, idp.codeFor(lm.email!, clientId));
      expect([want.label, res.status, res.body.status, res.body.createdNewRecipeUser, res.body.user?.id]).toEqual([
        want.label,
        200,
        'OK',
        false,
        want.externalUserId,
      ]);
      expect([want.label, res.body.user.thirdParty]).toEqual([want.label, expect.arrayContaining([{ id: thirdPartyId, userId: lm.thirdPartyUserId }])]);
      expect(idp.counts.exchanges).toBe(exchanges + 1);
      expect([want.label, await userData(tenant, want.externalUserId)]).toEqual([want.label, held]);
    }
    expect(idp.counts.refusedClients).toBe(0);
  });
});

describe('keycloak again, its providers changed since (the sign-in above pointed them at the stand-in)', () => {
  const expected = ssoExpected('keycloak');
  const tenantIds = async () => (await api.get('/recipe/multitenancy/tenant/list/v2')).json.tenants.map((t: any) => t.tenantId) as string[];
  const acme = async () =>
    (await api.get('/kc-acme/recipe/multitenancy/tenant/v2')).json.thirdParty.providers.find((p: any) => p.thirdPartyId === 'acme-oidc').tokenEndpoint;

  it('a mapping file with a bad entry exits 2 naming the file and the key, and writes nothing', async () => {
    const file = join(dir, 'bad-connections.json');
    writeFileSync(
      file,
      JSON.stringify({ 'acme-oidc': { tenantId: 'kc-new', thirdPartyId: 'acme-oidc' }, 'globex-kc': { tenantId: 'appid-x', thirdPartyId: 'globex' } }),
    );
    const run = await migrate(api, dir, ['keycloak', join(ssoFolder('keycloak'), 'corp-realm.json'), '--connections', file]);
    expect([run.code, run.stderr]).toEqual([
      2,
      `error: --connections ${file}: connection "globex-kc" has no valid tenantId (lower-case letters, digits and '-', not a reserved word or 'appid-' prefix).\n`,
    ]);
    expect(await tenantIds()).not.toContain('kc-new');
  });

  it('a dry run reports the tenant it would create, a key no user has (connection-unused) and the provider it would keep; it writes nothing', async () => {
    const file = join(dir, 'more-connections.json');
    const mapping = JSON.parse(readFileSync(join(ssoFolder('keycloak'), 'connections.json'), 'utf8'));
    writeFileSync(file, JSON.stringify({ ...mapping, nobody: { tenantId: 'kc-none', thirdPartyId: 'none-oidc' } }));
    const before = await acme();
    const run = await migrate(
      api,
      dir,
      ['keycloak', join(ssoFolder('keycloak'), 'corp-realm.json'), '--connections', file, '--dry-run'],
      undefined,
      expected.env,
    );
    expect([run.report.tenantsToCreate, run.report.warnings]).toEqual([
      ['kc-none'],
      [{ code: 'connection-unused', text: `connection "nobody" of ${file}: no user of the export has it` }],
    ]);
    expect(run.report.providers.map((p: any) => [p.thirdPartyId, p.outcome, p.reasonCode])).toEqual([
      ['acme-oidc', 'kept', 'provider-exists'],
      ['globex', 'unchanged', undefined],
    ]);
    expect(run.stderr).toContain(`warning connection-unused: connection "nobody" of ${file}: no user of the export has it\n`);
    expect([await tenantIds(), await acme()]).toEqual([expect.not.arrayContaining(['kc-none']), before]);
  });

  it('--overwrite-providers puts the export’s provider back; without it the changed one is kept', async () => {
    const args = argsOf('keycloak', expected);
    const kept = await migrate(api, dir, args, undefined, expected.env);
    expect(kept.report.providers.map((p: any) => p.outcome)).toEqual(['kept', 'unchanged']);
    expect(await acme()).toBe(idp.tokenEndpoint);
    const since = Date.now();
    const replaced = await migrate(api, dir, [...args, '--overwrite-providers'], undefined, expected.env);
    expect(replaced.report.providers.map((p: any) => [p.outcome, p.clientSecretFrom])).toEqual([
      ['updated', 'export'],
      ['unchanged', undefined],
    ]);
    await pastTenantCache(since);
    expect(await acme()).toBe(expected.providers[0].tokenEndpoint);
    const text = everythingWritten(kept) + everythingWritten(replaced);
    for (const secret of [...expected.secrets, ...Object.values(expected.env)]) expect([secret, text.includes(secret)]).toEqual([secret, false]);
  });
});
