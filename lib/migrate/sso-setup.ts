import { canonical } from '../canonical-json';
import type { Connections } from './connections';
import type { ProviderPlan } from './model';
import type { ServiceClient } from './service';

/**
 * What `--connections` needs written before the first user (SPEC §22): each tenant the mapping
 * names that the service lacks is created (`PUT /recipe/multitenancy/tenant/v2`), and each
 * provider the export describes (Keycloak's OIDC identity providers) is written into its tenant
 * (`PUT /<t>/recipe/multitenancy/config/thirdparty`): `created`, `updated` (with
 * `--overwrite-providers`), `unchanged`, `kept` (the service holds another config under that id)
 * or `skipped` (no usable secret). A dry run asks and writes nothing. The report and the terminal
 * say where a client secret came from, never what it is.
 */

export interface SsoSetup {
  /** Absent with `--offline`. */
  readonly service?: ServiceClient;
  readonly connections: Connections;
  readonly plans: readonly ProviderPlan[];
  readonly dryRun: boolean;
  readonly overwrite: boolean;
  readonly log: (line: string) => void;
}

export type ProviderOutcome = 'created' | 'updated' | 'unchanged' | 'kept' | 'skipped';

/** One line of the report's `providers`: never the config itself. */
export interface ProviderEntry {
  readonly tenantId: string;
  readonly thirdPartyId: string;
  readonly outcome: ProviderOutcome;
  readonly reasonCode?: string;
  readonly reason?: string;
  /** Where the client secret written came from (`export`, `env <NAME>`). */
  readonly clientSecretFrom?: string;
}

type Obj = Record<string, unknown>;

/** A stored provider as the tenant GET answers it, less the empty `userInfoMap` the service adds. */
function comparable(stored: Obj): Obj {
  const { userInfoMap, ...rest } = stored;
  const map = (userInfoMap ?? {}) as Obj;
  const empty = Object.values(map).every((side) => side === undefined || Object.keys(side as Obj).length === 0);
  return empty ? rest : stored;
}

async function existingTenants(service: ServiceClient): Promise<Set<string>> {
  const list = await service.ok('GET', '/recipe/multitenancy/tenant/list/v2');
  return new Set<string>(['public', ...(list.tenants as { tenantId: string }[]).map((t) => t.tenantId)]);
}

async function storedProvider(service: ServiceClient, tenantId: string, thirdPartyId: string): Promise<Obj | undefined> {
  const tenant = await service.ok('GET', `/${tenantId}/recipe/multitenancy/tenant/v2`);
  return ((tenant.thirdParty?.providers ?? []) as Obj[]).find((p) => p.thirdPartyId === thirdPartyId);
}

/** `held`: whether the tenant existed before this run (a tenant created now holds no provider: not asked, its GET not cached empty). */
async function writeProvider(setup: SsoSetup, plan: ProviderPlan, held: boolean): Promise<ProviderEntry> {
  const { tenantId, thirdPartyId } = plan;
  if (plan.config === undefined) return { tenantId, thirdPartyId, outcome: 'skipped', reasonCode: plan.skipped?.code, reason: plan.skipped?.reason };
  const from = { clientSecretFrom: plan.secretFrom };
  const stored = setup.service && held ? await storedProvider(setup.service, tenantId, thirdPartyId) : undefined;
  if (stored !== undefined && canonical(comparable(stored)) === canonical(plan.config)) return { tenantId, thirdPartyId, outcome: 'unchanged' };
  if (stored !== undefined && !setup.overwrite) {
    const reason = 'the service holds another config under this id: left as it is (--overwrite-providers replaces it)';
    return { tenantId, thirdPartyId, outcome: 'kept', reasonCode: 'provider-exists', reason };
  }
  const outcome = stored !== undefined ? 'updated' : 'created';
  if (setup.dryRun || !setup.service) return { tenantId, thirdPartyId, outcome, ...from };
  const res = await setup.service.request('PUT', `/${tenantId}/recipe/multitenancy/config/thirdparty`, { config: plan.config });
  if (res.status !== 200) {
    // The service's 400 names the field, never a secret (SPEC §22).
    return {
      tenantId,
      thirdPartyId,
      outcome: 'skipped',
      reasonCode: 'provider-refused',
      reason: `the service answered ${res.status}: ${res.text.slice(0, 200)}`,
    };
  }
  return { tenantId, thirdPartyId, outcome, ...from };
}

/** Creates the missing tenants and writes the providers; the report head's `tenantsCreated`/`tenantsToCreate`, `providers` and `warnings`. */
export async function setUpConnections(setup: SsoSetup): Promise<Record<string, unknown>> {
  const { service, connections, dryRun, log } = setup;
  const head: Record<string, unknown> = {};
  const tenants = service ? await existingTenants(service) : new Set<string>(['public']);
  const missing = connections.tenants().filter((t) => !tenants.has(t));
  if (missing.length > 0 && (dryRun || !service)) head.tenantsToCreate = missing;
  else if (missing.length > 0 && service) {
    for (const tenantId of missing) {
      await service.ok('PUT', '/recipe/multitenancy/tenant/v2', { tenantId });
    }
    log(`created tenant(s): ${missing.join(', ')}`);
    head.tenantsCreated = missing;
  }
  const providers: ProviderEntry[] = [];
  for (const plan of setup.plans) {
    const entry = await writeProvider(setup, plan, tenants.has(plan.tenantId));
    providers.push(entry);
    const secret = entry.clientSecretFrom !== undefined ? ` (client secret from ${entry.clientSecretFrom})` : '';
    log(
      `${dryRun ? 'dry run: ' : ''}provider ${entry.thirdPartyId} of tenant ${entry.tenantId}: ${entry.outcome}${secret}${entry.reason ? `: ${entry.reason}` : ''}`,
    );
  }
  if (setup.plans.length > 0) head.providers = providers;
  const unused = connections.unused();
  for (const w of unused) log(`warning ${w.code}: ${w.text}`);
  if (unused.length > 0) head.warnings = unused;
  return head;
}
