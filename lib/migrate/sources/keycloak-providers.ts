import { createReadStream } from 'node:fs';
import { chain } from 'stream-chain';
import { parser } from 'stream-json';
import { pick } from 'stream-json/filters/Pick';
import { streamArray } from 'stream-json/streamers/StreamArray';
import { nonEmpty } from '../mapping';
import type { ConnectionLookup, ProviderPlan } from '../model';
import { PARSER_OPTIONS } from '../read';

/**
 * Keycloak's identity providers (SPEC §22): the realm file's `identityProviders[]`
 * (`IdentityProviderRepresentation`: `alias`, `displayName`, `providerId`, `config` of strings),
 * which say which brokered identities are enterprise connections (`oidc`, `keycloak-oidc`,
 * `saml`), and from which the command writes a mapped OIDC connection's provider into its tenant.
 * Keycloak is the only source whose export holds a connection's configuration.
 */

type Obj = Record<string, unknown>;

/** An identity provider as the mapping needs it. */
export interface KeycloakIdentityProvider {
  readonly alias: string;
  readonly providerId: string;
  readonly displayName?: string;
  readonly config: Readonly<Record<string, unknown>>;
}

/** `providerId`s of enterprise connections; the others (`google`, `github`, …) are social. */
export const ENTERPRISE_PROVIDER_IDS: ReadonlySet<string> = new Set(['oidc', 'keycloak-oidc', 'saml']);
const OIDC_PROVIDER_IDS: ReadonlySet<string> = new Set(['oidc', 'keycloak-oidc']);

/** What an admin console's partial export writes instead of a secret. */
const MASKED = /^\*+$/;
/** A Keycloak vault reference (`${vault.key}`): the secret is elsewhere. */
const VAULT = /^\$\{vault\.[^}]*\}$/;

/**
 * The `identityProviders` of every file of an export (a realm file holds them, users files none),
 * by alias; streamed, since Keycloak writes them after the users. A file that cannot be read is
 * passed over here: reading its users refuses it with the sentence that says why.
 */
export async function readIdentityProviders(files: readonly string[]): Promise<Map<string, KeycloakIdentityProvider>> {
  const found = new Map<string, KeycloakIdentityProvider>();
  for (const file of files) {
    try {
      const items = chain([createReadStream(file), parser(PARSER_OPTIONS), pick({ filter: 'identityProviders' }), streamArray()]);
      for await (const { value } of items as AsyncIterable<{ value: unknown }>) {
        if (value === null || typeof value !== 'object') continue;
        const raw = value as Obj;
        const alias = nonEmpty(raw.alias);
        const providerId = nonEmpty(raw.providerId);
        if (alias === undefined || providerId === undefined) continue;
        const config = raw.config !== null && typeof raw.config === 'object' && !Array.isArray(raw.config) ? (raw.config as Obj) : {};
        const displayName = nonEmpty(raw.displayName);
        found.set(alias, { alias, providerId, ...(displayName !== undefined ? { displayName } : {}), config });
      }
    } catch {
      // Refused with its reason when its users are read.
    }
  }
  return found;
}

/**
 * The providers to write (SPEC §22): one per mapped alias whose identity provider is `oidc` or
 * `keycloak-oidc`, in the mapping file's order. The secret is `clientSecretEnv`'s variable when the
 * entry names one, else the export's `clientSecret` unless it is masked or a vault reference; with
 * none, the provider is `skipped` (`provider-secret-missing`) and its users are still imported.
 */
export function keycloakProviderPlans(providers: ReadonlyMap<string, KeycloakIdentityProvider>, connections: ConnectionLookup): ProviderPlan[] {
  const plans: ProviderPlan[] = [];
  for (const entry of connections.all()) {
    const idp = providers.get(entry.key);
    if (idp === undefined || !OIDC_PROVIDER_IDS.has(idp.providerId)) continue;
    const { tenantId, thirdPartyId } = entry;
    const c = idp.config;
    const clientId = nonEmpty(c.clientId);
    if (clientId === undefined) {
      plans.push({
        tenantId,
        thirdPartyId,
        skipped: { code: 'provider-client-missing', reason: `identity provider ${entry.key} has no clientId in the export` },
      });
      continue;
    }
    const exported = nonEmpty(c.clientSecret);
    const usable = exported !== undefined && !MASKED.test(exported) && !VAULT.test(exported) ? exported : undefined;
    const fromEnv = connections.secretFromEnv(entry);
    const secret = entry.clientSecretEnv !== undefined ? fromEnv : usable;
    if (secret === undefined) {
      const why =
        entry.clientSecretEnv !== undefined
          ? `the environment variable ${entry.clientSecretEnv} (its clientSecretEnv) is not set`
          : exported === undefined
            ? 'the export holds no clientSecret'
            : `the export's clientSecret is ${VAULT.test(exported) ? 'a vault reference' : 'masked'}: give it with clientSecretEnv`;
      plans.push({ tenantId, thirdPartyId, skipped: { code: 'provider-secret-missing', reason: `identity provider ${entry.key}: ${why}` } });
      continue;
    }
    const scope = (nonEmpty(c.defaultScope) ?? '').split(/\s+/).filter((s) => s !== '');
    const issuer = nonEmpty(c.issuer);
    const endpoints: Record<string, string | undefined> = {
      authorizationEndpoint: nonEmpty(c.authorizationUrl),
      tokenEndpoint: nonEmpty(c.tokenUrl),
      userInfoEndpoint: nonEmpty(c.userInfoUrl),
      jwksURI: nonEmpty(c.jwksUrl),
      oidcDiscoveryEndpoint: issuer !== undefined ? `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration` : undefined,
    };
    const config = {
      thirdPartyId,
      name: idp.displayName ?? idp.alias,
      clients: [{ clientId, clientSecret: secret, ...(scope.length > 0 ? { scope } : {}) }],
      ...Object.fromEntries(Object.entries(endpoints).filter(([, v]) => v !== undefined)),
    };
    plans.push({ tenantId, thirdPartyId, config, secretFrom: entry.clientSecretEnv !== undefined ? `env ${entry.clientSecretEnv}` : 'export' });
  }
  return plans;
}
