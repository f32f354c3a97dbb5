import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connections } from '../../lib/migrate/connections';
import { UsageError } from '../../lib/migrate/errors';
import type { MapOptions } from '../../lib/migrate/model';
import { mapKeycloakUser } from '../../lib/migrate/sources/keycloak';
import { keycloakProviderPlans, readIdentityProviders } from '../../lib/migrate/sources/keycloak-providers';
import { plan } from '../support/migration';
import { scratchDir } from '../support/scratch';
import { openSsoSource, ssoExpected, ssoFolder, ssoMethodView } from '../support/sso-fixtures';

/**
 * Enterprise users in the migration command (SPEC §22), each source's mapper on its fixture of
 * test/fixtures/sso: every user as expected.json says (outcome, reason, login methods with their
 * tenant and verified flag, external id), the mapping's keys all used, Keycloak's providers built
 * from the export (secrets from the export or the environment, never a masked one); and the cases
 * the fixtures do not hold: a bad mapping file (exit 2 naming the key), an unused key, a vault or
 * missing secret, an unmapped SAML user with a password, and the run without `--connections`.
 */
const scratch = scratchDir('migrate-sso-');
const written = (name: string, body: unknown): string => {
  const file = join(scratch, name);
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
};

async function checkFixture(sourceName: string): Promise<void> {
  const expected = ssoExpected(sourceName);
  const { source, connections } = await openSsoSource(sourceName);
  const { users } = await plan(source);
  expect(users.map((u) => u.mapped.sourceId).sort()).toEqual(expected.users.map((u) => u.sourceId).sort());
  for (const want of expected.users) {
    const got = users.find((u) => u.mapped.sourceId === want.sourceId)!;
    const where = `${want.label} (${want.kind})`;
    expect([where, got.outcome, got.mapped.createdAt]).toEqual([where, want.outcome, want.timeJoined]);
    if (want.reasonCode !== undefined) expect([where, got.reasonCode]).toEqual([where, want.reasonCode]);
    if (want.outcome !== 'imported') continue;
    const user = got.mapped.user!;
    const sort = (a: unknown[]) => a.map((x) => JSON.stringify(x)).sort();
    expect([where, sort(user.loginMethods.map(ssoMethodView))]).toEqual([where, sort(want.loginMethods!)]);
    expect([where, user.externalUserId]).toEqual([where, want.externalUserId]);
    // Several login methods, across tenants: one primary user (SPEC §11).
    expect([where, user.loginMethods.filter((lm) => lm.isPrimary === true).length]).toEqual([where, want.loginMethods!.length > 1 ? 1 : 0]);
  }
  const summary = { total: users.length, imported: 0, skipped: 0, failed: 0 };
  for (const u of users) summary[u.outcome]++;
  expect(summary).toEqual(expected.summary);
  expect(connections!.unused()).toEqual([]);
}

describe('keycloak', () => {
  it('maps every user of the fixture as expected.json says: mapped aliases in their tenants, the unmapped SAML user skipped', async () => {
    await checkFixture('keycloak');
  });

  it("builds each mapped OIDC alias's provider from the export: the export's secret, the environment's for a masked one; none for SAML", async () => {
    const expected = ssoExpected('keycloak');
    const { source } = await openSsoSource('keycloak');
    const plans = await source.providers!();
    const wanted = expected.providers.filter((p) => p.outcome !== 'none');
    expect(plans.map((p) => [p.tenantId, p.thirdPartyId])).toEqual(wanted.map((p) => [p.tenantId, p.thirdPartyId]));
    for (const want of wanted) {
      const got = plans.find((p) => p.thirdPartyId === want.thirdPartyId)!;
      const secret = want.clientSecretFromEnv !== undefined ? expected.env[want.clientSecretFromEnv as string] : want.clientSecret;
      const realm = JSON.parse(readFileSync(join(ssoFolder('keycloak'), 'corp-realm.json'), 'utf8'));
      const issuer = realm.identityProviders.find((i: any) => i.displayName === want.name).config.issuer;
      expect(got.config).toEqual({
        thirdPartyId: want.thirdPartyId,
        name: want.name,
        clients: [{ clientId: want.clientId, clientSecret: secret, scope: want.scope }],
        authorizationEndpoint: want.authorizationEndpoint,
        tokenEndpoint: want.tokenEndpoint,
        userInfoEndpoint: want.userInfoEndpoint,
        jwksURI: want.jwksURI,
        oidcDiscoveryEndpoint: `${issuer}/.well-known/openid-configuration`,
      });
      expect(got.secretFrom).toBe(want.clientSecretFromEnv !== undefined ? `env ${want.clientSecretFromEnv}` : 'export');
    }
  });

  it('a masked secret without its variable, a vault reference or an unset clientSecretEnv: provider-secret-missing, its users still imported', async () => {
    const { source } = await openSsoSource('keycloak', { env: {} });
    const plans = await source.providers!();
    expect(plans.map((p) => [p.thirdPartyId, p.config !== undefined, p.skipped?.code])).toEqual([
      ['acme-oidc', true, undefined],
      ['globex', false, 'provider-secret-missing'],
    ]);
    expect(plans[1].skipped!.reason).toBe('identity provider globex-kc: the environment variable SSO_GLOBEX_SECRET (its clientSecretEnv) is not set');
    const { users } = await plan(source);
    expect(users.find((u) => u.mapped.sourceId.endsWith('0004'))?.outcome).toBe('imported');

    const realm = JSON.parse(readFileSync(join(ssoFolder('keycloak'), 'corp-realm.json'), 'utf8'));
    const idps = await readIdentityProviders([join(ssoFolder('keycloak'), 'corp-realm.json')]);
    expect([...idps.keys()]).toEqual(realm.identityProviders.map((i: any) => i.alias));
    const vault = new Map(idps);
    vault.set('acme-oidc', { ...idps.get('acme-oidc')!, config: { ...idps.get('acme-oidc')!.config, clientSecret: ['$', '{vault.acme}'].join('') } });
    const mapping = Connections.read(written('vault.json', { 'acme-oidc': { tenantId: 'kc-acme', thirdPartyId: 'acme-oidc' } }), {});
    expect(keycloakProviderPlans(vault, mapping)[0].skipped?.reason).toBe(
      "identity provider acme-oidc: the export's clientSecret is a vault reference: give it with clientSecretEnv",
    );
    const masked = keycloakProviderPlans(
      idps,
      Connections.read(written('masked.json', { 'globex-kc': { tenantId: 'kc-globex', thirdPartyId: 'globex' } }), {}),
    );
    expect(masked[0].skipped?.reason).toBe("identity provider globex-kc: the export's clientSecret is masked: give it with clientSecretEnv");
  });

  it('without --connections: OIDC aliases stay third-party methods named by the alias in --tenant (§17b); a SAML-only user is skipped enterprise-connection', async () => {
    const { source } = await openSsoSource('keycloak', { withConnections: false });
    const { users } = await plan(source);
    const byLabel = new Map(ssoExpected('keycloak').users.map((u) => [u.label, users.find((p) => p.mapped.sourceId === u.sourceId)!]));
    expect(byLabel.get('ke01')!.mapped.user!.loginMethods.map(ssoMethodView)).toEqual([
      {
        recipeId: 'thirdparty',
        thirdPartyId: 'acme-oidc',
        thirdPartyUserId: 'acme-sub-d1001',
        email: 'olga@kc-acme-dev.example',
        verified: true,
        tenant: 'public',
      },
    ]);
    for (const label of ['ke05', 'ke06']) {
      expect([label, byLabel.get(label)!.outcome, byLabel.get(label)!.reasonCode]).toEqual([label, 'skipped', 'enterprise-connection']);
      expect([label, byLabel.get(label)!.mapped.warnings.map((w) => w.code)]).toEqual([label, ['enterprise-connection']]);
    }
  });

  it('an unmapped SAML identity beside a password is dropped with a warning; the password user is imported (its hash unsupported: passwordless)', () => {
    const opts: MapOptions = { tenant: 'public', noHash: 'passwordless', includeDisabled: false };
    const idps = new Map([['hooli-saml', { alias: 'hooli-saml', providerId: 'saml', config: {} }]]);
    const raw = {
      id: 'u-1',
      email: 'a@b.example',
      emailVerified: true,
      credentials: [{ type: 'password', secretData: '{"value":"dg==","salt":"cw=="}', credentialData: '{"algorithm":"md5","hashIterations":1}' }],
      federatedIdentities: [{ identityProvider: 'hooli-saml', userId: 'h-1' }],
    };
    const mapped = mapKeycloakUser(raw, { opts, identityProviders: idps }, 'users[0]');
    expect([mapped.user?.loginMethods.map((lm) => lm.recipeId), mapped.warnings.map((w) => w.code)]).toEqual([
      ['passwordless'],
      ['hash-unsupported', 'enterprise-connection', 'no-password-hash'],
    ]);
  });
});

describe('roles of a user with enterprise identities', () => {
  const idps = new Map([['acme-oidc', { alias: 'acme-oidc', providerId: 'oidc', config: {} }]]);
  const connections = Connections.read(written('roles.json', { 'acme-oidc': { tenantId: 'kc-acme', thirdPartyId: 'acme-oidc' } }), {});
  const raw = {
    id: 'u-2',
    email: 'r@b.example',
    emailVerified: true,
    realmRoles: ['admin'],
    federatedIdentities: [{ identityProvider: 'acme-oidc', userId: 's-2' }],
  };
  const rolesOf = (tenant: string) =>
    mapKeycloakUser(raw, { opts: { tenant, noHash: 'passwordless', includeDisabled: false, connections }, identityProviders: idps }, 'users[0]').user
      ?.userRoles;

  it('are assigned in --tenant when it is public or the user is there, and in each tenant of a mapped identity', () => {
    expect(rolesOf('public')).toEqual([{ role: 'admin', tenantIds: ['public', 'kc-acme'] }]);
    // An enterprise-only user is not in another --tenant: the service refuses a role there.
    expect(rolesOf('shop')).toEqual([{ role: 'admin', tenantIds: ['kc-acme'] }]);
  });
});

describe('the --connections file', () => {
  it('refuses a bad entry naming the file and the key (exit 2), and reports keys no user has', () => {
    const bad = (body: unknown) => () => Connections.read(written('bad.json', body), {});
    expect(bad({ corp: { tenantId: 'Not Valid', thirdPartyId: 'x' } })).toThrow(UsageError);
    expect(bad({ corp: { tenantId: 'recipe', thirdPartyId: 'x' } })).toThrow(/bad\.json: connection "corp" has no valid tenantId/);
    expect(bad({ corp: { tenantId: 't', thirdPartyId: 'x'.repeat(29) } })).toThrow(
      /connection "corp" has no valid thirdPartyId \(a string of 1 to 28 characters\)/,
    );
    expect(bad({ corp: { tenantId: 't', thirdPartyId: 'x', clientSecretEnv: 'no spaces' } })).toThrow(/connection "corp" has a clientSecretEnv/);
    expect(bad([1])).toThrow(/is not a JSON object/);
    expect(() => Connections.read(written('broken.json', '{'), {})).toThrow(/is not readable JSON/);

    const ok = Connections.read(written('ok.json', { Corp: { tenantId: ' T-1 ', thirdPartyId: ' okta ' }, other: { tenantId: 't-2', thirdPartyId: 'o' } }), {});
    expect(ok.get('corp')).toEqual({ key: 'Corp', tenantId: 't-1', thirdPartyId: 'okta' });
    expect(ok.tenants()).toEqual(['t-1', 't-2']);
    expect(ok.unused()).toEqual([{ code: 'connection-unused', text: `connection "other" of ${join(scratch, 'ok.json')}: no user of the export has it` }]);
  });
});

describe('auth0', () => {
  it('maps every user of the fixture: samlp and waad connections in their tenants, a linked social + enterprise user one primary user, the unmapped SAML user skipped', async () => {
    await checkFixture('auth0');
    const { source } = await openSsoSource('auth0');
    expect(await source.providers?.()).toBeUndefined();
    const { users } = await plan(source);
    const ned = users.find((u) => u.mapped.sourceId === 'samlp|hooli-saml|h-9921')!;
    expect([ned.reasonCode, ned.mapped.warnings.map((w) => w.code)]).toEqual(['enterprise-connection', ['enterprise-connection']]);
  });

  it('without --connections: enterprise identities are not imported (§17b), SAML ones reported enterprise-connection', async () => {
    const { users } = await plan((await openSsoSource('auth0', { withConnections: false })).source);
    const reasons = Object.fromEntries(users.map((u) => [u.mapped.sourceId, u.reasonCode ?? u.outcome]));
    expect(reasons).toEqual({
      'samlp|acme-saml|kate@a0-acme-dev.example': 'enterprise-connection',
      'waad|contoso-entra|8e2d2b7a-1111-4a2b-9c3d-00000000a002': 'unsupported-provider',
      'samlp|hooli-saml|h-9921': 'enterprise-connection',
      'google-oauth2|105000000000000000004': 'imported',
      'google-oauth2|105000000000000000005': 'imported',
    });
  });
});

describe('cognito', () => {
  it('maps every user of the fixture: SAML and OIDC identities of mapped providers in their tenants, the unmapped OIDC user skipped enterprise-connection', async () => {
    await checkFixture('cognito');
  });
});

describe('supabase', () => {
  it('maps every user of the fixture: the SSO user of a mapped sso:<uuid> in its tenant (verified), the unmapped one skipped', async () => {
    await checkFixture('supabase');
    const { users } = await plan((await openSsoSource('supabase')).source);
    expect(users.find((u) => u.mapped.sourceId.endsWith('0002'))?.reasonCode).toBe('sso');
  });

  it('without --connections: every SSO user is skipped sso (§17b)', async () => {
    const { users } = await plan((await openSsoSource('supabase', { withConnections: false })).source);
    expect(users.map((u) => u.reasonCode ?? u.outcome)).toEqual(['sso', 'sso', 'imported']);
  });
});
