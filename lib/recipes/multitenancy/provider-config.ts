import type { JsonObject, ProviderClient, ThirdPartyProvider } from '../../storage/model';
import { answerBodyBytes } from '../answer-size';
import { InvalidInputError } from '../errors';

/**
 * A tenant's third-party providers (SPEC §22): the bounds, the core's validation with its texts,
 * and the form the tenant GET answers them in.
 */

/** A third-party id's length: the core's storage holds 28 characters (`VARCHAR(28)`), as SPEC §3 bounds it. */
export const MAX_THIRD_PARTY_ID_LENGTH = 28;
/** Providers per tenant: the tenant GET carries them all, and the SDK reads it before every sign-in. */
export const MAX_PROVIDERS = 50;
/** Clients per provider (web, iOS, Android… and a few more). */
export const MAX_CLIENTS = 20;
/**
 * A provider's size, measured as the answer carries it (its JSON text escaped once more into
 * Lambda's result, `answerBodyBytes`): 50 of them (3.2 MiB) always fit one tenant GET under Lambda's
 * 6 MB, whatever they hold. A typical provider is 1–2 KB.
 */
export const MAX_PROVIDER_BYTES = 64 * 1024;

/** The core's 400 text for a provider it refuses: `Invalid third party config: <reason>`. */
export function invalidConfig(reason: string): InvalidInputError {
  return new InvalidInputError(`Invalid third party config: ${reason}`);
}

/** The core's reasons (its `ThirdParty.verifyThirdPartyProvidersArray`), word for word. */
export const REASON = {
  duplicateThirdPartyId: 'Duplicate ThirdPartyId was specified in the providers list.',
  emptyThirdPartyId: 'thirdPartyId cannot be null or empty',
  duplicateClientType: 'Duplicate clientType was specified in the clients list.',
  nullClientId: 'clientId cannot be null',
  nullInScope: 'scope array cannot contain a null',
  apple: 'a non empty string value must be specified for keyId, teamId and privateKey in the additionalConfig for Apple provider',
  googleWorkspacesHd: 'hd in additionalConfig must be a non empty string value',
  boxySamlUrl: 'a non empty string value must be specified for boxyURL in the additionalConfig for Boxy SAML provider',
} as const;

const nonEmptyString = (v: unknown): boolean => typeof v === 'string' && v.length > 0;

/** Two clients of one provider with one `clientType` (none counts as one type): the core's storage refuses them even unvalidated. */
export function duplicateClientType(provider: ThirdPartyProvider): boolean {
  const types = provider.clients.map((c) => c.clientType ?? '');
  return new Set(types).size !== types.length;
}

/** The core's reason to refuse one client of a provider, if any. */
function clientProblem(client: ProviderClient, thirdPartyId: string): string | undefined {
  if (client.clientId === undefined) return REASON.nullClientId;
  if (client.scope?.includes(null)) return REASON.nullInScope;
  const extra: JsonObject | undefined = client.additionalConfig;
  if (thirdPartyId.startsWith('apple')) {
    if (!extra || !['keyId', 'teamId', 'privateKey'].every((k) => nonEmptyString(extra[k]))) return REASON.apple;
  } else if (thirdPartyId.startsWith('google-workspaces')) {
    if (extra && 'hd' in extra && !nonEmptyString(extra.hd)) return REASON.googleWorkspacesHd;
  } else if (thirdPartyId.startsWith('boxy-saml')) {
    if (extra && 'boxyURL' in extra && !nonEmptyString(extra.boxyURL)) return REASON.boxySamlUrl;
  }
  return undefined;
}

/**
 * The core's reason to refuse a tenant's list of providers, if any: it checks the whole list a
 * change leaves (a provider stored with `skipValidation` fails a later validated change), in
 * order, each provider's clients in order, as `verifyThirdPartyProvidersArray` does.
 */
export function providersProblem(providers: readonly ThirdPartyProvider[]): string | undefined {
  const ids = new Set<string>();
  for (const provider of providers) {
    if (ids.has(provider.thirdPartyId)) return REASON.duplicateThirdPartyId;
    ids.add(provider.thirdPartyId);
    if (provider.thirdPartyId === '') return REASON.emptyThirdPartyId;
    const types = new Set<string | undefined>();
    for (const client of provider.clients) {
      if (types.has(client.clientType)) return REASON.duplicateClientType;
      types.add(client.clientType);
      const problem = clientProblem(client, provider.thirdPartyId);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Whether a provider is over `MAX_PROVIDER_BYTES` as the answer carries it. */
export const tooLarge = (provider: ThirdPartyProvider): boolean => answerBodyBytes(provider) > MAX_PROVIDER_BYTES;

/** An object without its `null` members, at any depth (arrays keep theirs), as the core's serialiser writes `additionalConfig`. */
function withoutNullMembers(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNullMembers);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNullMembers(v)]),
  );
}

/**
 * A stored provider as the tenant GET answers it (the core's `Provider.toJson`): as stored, but a
 * client's `additionalConfig` without `null` members (the core keeps them, and validates them, but
 * its serialiser drops them); the four param/header objects keep theirs.
 */
export function providerAnswer(provider: ThirdPartyProvider): ThirdPartyProvider {
  if (!provider.clients.some((c) => c.additionalConfig !== undefined)) return provider;
  return {
    ...provider,
    clients: provider.clients.map((c) =>
      c.additionalConfig === undefined ? c : { ...c, additionalConfig: withoutNullMembers(c.additionalConfig) as JsonObject },
    ),
  };
}
