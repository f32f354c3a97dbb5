import { invalidConfig, MAX_CLIENTS, MAX_THIRD_PARTY_ID_LENGTH } from '../recipes/multitenancy/provider-config';
import { jsonValueProblems } from '../recipes/usermetadata/json-value';
import { MAX_JSON_DEPTH } from '../recipes/usermetadata/limits';
import type { JsonObject, ProviderClient, ThirdPartyProvider, UserInfoMapSide } from '../storage/model';
import { invalidField } from './errors';
import { checkWellFormed, optionalBoolean, requiredObject, type Fields } from './input';

/**
 * The body of `PUT [/<t>]/recipe/multitenancy/config/thirdparty` and `…/remove` (SPEC §22). A
 * provider is kept as the core keeps it (its `Gson` parse into `ThirdPartyConfig.Provider`): the
 * fields it knows, in its order, `null` as absent, unknown keys dropped. A field of the wrong JSON
 * type is a 400 naming it (unlike the core, whose parser fails). No text here ever holds a value:
 * a provider carries client secrets.
 */

const isObject = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A wrong field of the provider: `Invalid third party config: <path> is invalid`. */
const invalid = (path: string) => invalidConfig(`${path} is invalid`);

/** An optional string of the provider at `path`. */
function str(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(path);
  if (!value.isWellFormed()) throw invalidConfig(`${path} is not valid Unicode: it holds a lone surrogate`);
  return value;
}

function bool(value: unknown, path: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalid(path);
  return value;
}

/** An optional JSON object kept as given (its `null` members too), valid Unicode and at most `MAX_JSON_DEPTH` deep. */
function object(value: unknown, path: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isObject(value)) throw invalid(path);
  const [problem] = jsonValueProblems(value);
  if (problem === 'NOT_UNICODE') throw invalidConfig(`${path} is not valid Unicode: it holds a lone surrogate`);
  if (problem === 'TOO_DEEP') throw invalidConfig(`${path} nests deeper than ${MAX_JSON_DEPTH} levels`);
  return value as JsonObject;
}

/** Drops the keys whose value is `undefined`, keeping the order of the rest. */
function defined<T extends object>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;
}

function client(value: unknown, path: string): ProviderClient {
  if (!isObject(value)) throw invalid(path);
  let scope: (string | null)[] | undefined;
  if (value.scope !== undefined && value.scope !== null) {
    if (!Array.isArray(value.scope)) throw invalid(`${path}.scope`);
    // A `null` item is kept: the core's validation refuses it, `skipValidation` lets it in.
    scope = value.scope.map((s, i) => (s === null ? null : (str(s, `${path}.scope[${i}]`) as string)));
  }
  const clientType = str(value.clientType, `${path}.clientType`);
  return defined({
    // `""` is no type: the core's storage reads an empty type back as none.
    clientType: clientType === '' ? undefined : clientType,
    clientId: str(value.clientId, `${path}.clientId`),
    clientSecret: str(value.clientSecret, `${path}.clientSecret`),
    scope,
    forcePKCE: bool(value.forcePKCE, `${path}.forcePKCE`),
    additionalConfig: object(value.additionalConfig, `${path}.additionalConfig`),
  });
}

function userInfoSide(value: unknown, path: string): UserInfoMapSide {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw invalid(path);
  return defined({
    userId: str(value.userId, `${path}.userId`),
    email: str(value.email, `${path}.email`),
    emailVerified: str(value.emailVerified, `${path}.emailVerified`),
  });
}

/** A `PUT …/config/thirdparty` body: the provider as it will be stored, and whether the core's validation is skipped. */
export function parseProviderConfig(body: Fields): { provider: ThirdPartyProvider; skipValidation: boolean } {
  const config = requiredObject(body, 'config');
  const thirdPartyId = parseProviderId(config);
  const skipValidation = optionalBoolean(body, 'skipValidation', false);
  // Always, even unvalidated: the core's storage holds 28 characters (SPEC §3's bound).
  if (thirdPartyId.length > MAX_THIRD_PARTY_ID_LENGTH) throw invalidConfig(`thirdPartyId must be at most ${MAX_THIRD_PARTY_ID_LENGTH} characters`);
  let clients: ProviderClient[] = [];
  if (config.clients !== undefined && config.clients !== null) {
    if (!Array.isArray(config.clients)) throw invalid('clients');
    if (config.clients.length > MAX_CLIENTS) throw invalidConfig('too many clients');
    clients = config.clients.map((c, i) => client(c, `clients[${i}]`));
  }
  const map = config.userInfoMap;
  if (map !== undefined && map !== null && !isObject(map)) throw invalid('userInfoMap');
  const userInfoMap = {
    fromIdTokenPayload: userInfoSide(isObject(map) ? map.fromIdTokenPayload : undefined, 'userInfoMap.fromIdTokenPayload'),
    fromUserInfoAPI: userInfoSide(isObject(map) ? map.fromUserInfoAPI : undefined, 'userInfoMap.fromUserInfoAPI'),
  };
  const provider: ThirdPartyProvider = defined({
    thirdPartyId,
    name: str(config.name, 'name'),
    clients,
    authorizationEndpoint: str(config.authorizationEndpoint, 'authorizationEndpoint'),
    authorizationEndpointQueryParams: object(config.authorizationEndpointQueryParams, 'authorizationEndpointQueryParams'),
    tokenEndpoint: str(config.tokenEndpoint, 'tokenEndpoint'),
    tokenEndpointBodyParams: object(config.tokenEndpointBodyParams, 'tokenEndpointBodyParams'),
    userInfoEndpoint: str(config.userInfoEndpoint, 'userInfoEndpoint'),
    userInfoEndpointQueryParams: object(config.userInfoEndpointQueryParams, 'userInfoEndpointQueryParams'),
    userInfoEndpointHeaders: object(config.userInfoEndpointHeaders, 'userInfoEndpointHeaders'),
    jwksURI: str(config.jwksURI, 'jwksURI'),
    oidcDiscoveryEndpoint: str(config.oidcDiscoveryEndpoint, 'oidcDiscoveryEndpoint'),
    requireEmail: bool(config.requireEmail, 'requireEmail'),
    userInfoMap,
  });
  return { provider, skipValidation };
}

/** The `thirdPartyId` of a provider config or of a `POST …/config/thirdparty/remove` body (§1's text when it is not a string), trimmed. */
export function parseProviderId(body: Fields): string {
  const raw = body.thirdPartyId;
  if (typeof raw !== 'string') throw invalidField('thirdPartyId');
  checkWellFormed('thirdPartyId', raw);
  return raw.trim();
}
