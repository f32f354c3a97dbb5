import { ConfigError } from '../config/config';
import { keysOfJwks, type IssuerKey } from './public-keys';

/**
 * `SESSION_EXCHANGE_ISSUERS` (SPEC §19): the old providers whose tokens the exchange accepts, each
 * a preset filled in and checked here, so a malformed list is one sentence naming the issuer id and
 * the field, never a surprise at the first exchange. Read from the environment and SSM by
 * `lib/config/session-exchange-issuers.ts`; parsed here from what it passes in.
 */

export type ExchangePreset = 'firebase' | 'firebase-session-cookie' | 'auth0' | 'cognito' | 'supabase' | 'oidc' | 'firebase-emulator';

/** Where an issuer's verification keys come from. */
export type ExchangeKeySource =
  | { readonly kind: 'jwks'; readonly url: string }
  | { readonly kind: 'x509'; readonly url: string }
  /** An inline JWKS, its usable keys imported once when the configuration is read. */
  | { readonly kind: 'inline'; readonly keys: readonly IssuerKey[] }
  | { readonly kind: 'none' };

export interface ExchangeIssuer {
  readonly id: string;
  readonly preset: ExchangePreset;
  /** The accepted `iss` values (two only for the emulator: ID tokens and session cookies). */
  readonly issuers: readonly string[];
  /** Accepted `aud` values (for Cognito, the app client ids: an ID token's `aud`, an access token's `client_id`). */
  readonly audiences: readonly string[];
  readonly keys: ExchangeKeySource;
  /** Inline HS256 secret (UTF-8). */
  readonly secret: string | undefined;
  readonly algorithms: readonly string[];
  readonly maxTokenAgeSeconds: number | undefined;
  /** Epoch ms; after it, `EXCHANGE_WINDOW_CLOSED_ERROR`. */
  readonly acceptUntil: number | undefined;
  readonly externalIdClaim: string;
  readonly clockSkewSeconds: number;
  readonly keyRefetchCooldownSeconds: number;
  /** Cognito only: which token kinds are accepted. */
  readonly cognito?: { readonly tokenUse: 'id' | 'access' | 'any' };
}

type Env = Readonly<Record<string, string | undefined>>;

const PRESETS: readonly ExchangePreset[] = ['firebase', 'firebase-session-cookie', 'auth0', 'cognito', 'supabase', 'oidc', 'firebase-emulator'];
/** The signature algorithms an issuer may list (`none` only by the emulator preset, which lists nothing else). */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'HS256'];
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

const FIREBASE_X509 = 'https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com';
const SESSION_COOKIE_X509 = 'https://www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether the date part of an ISO date-time names a day of the calendar: `Date.parse` rolls 2027-02-30 over to 2 March. */
function isCalendarDate(iso: string): boolean {
  const [y, m, d] = iso.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
}

/** A list of issuers as written, and where it comes from (the start of every refusal's sentence). */
export interface IssuerList {
  readonly source: string;
  readonly json: string | undefined;
}

/**
 * Parses and checks the issuers of every list (`SESSION_EXCHANGE_ISSUERS`, and in AWS the stage's
 * SSM parameter too), as one: ids and issuer strings are unique across them. Absent, blank or
 * `[]`: no issuer (the endpoint is not configured).
 */
export function parseIssuerLists(lists: readonly IssuerList[], env: Env): ExchangeIssuer[] {
  const inLambda = env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
  const ids = new Set<string>();
  const issuerStrings = new Map<string, string>();
  const out: ExchangeIssuer[] = [];
  for (const { source, json } of lists) {
    if (json === undefined || json.trim() === '') continue;
    const fail = (sentence: string): never => {
      throw new ConfigError(`${source}: ${sentence}`);
    };
    let list: unknown;
    try {
      list = JSON.parse(json);
    } catch {
      return fail('not JSON');
    }
    if (!Array.isArray(list)) return fail('not a JSON array');
    list.forEach((element: unknown, index) => {
      if (!isObject(element)) fail(`element ${index} is not a JSON object`);
      const e = element as Record<string, unknown>;
      if (typeof e.id !== 'string' || !ID.test(e.id)) fail(`element ${index}: id is missing or not 1 to 64 characters of A-Z, a-z, 0-9, "_" and "-"`);
      const id = e.id as string;
      if (ids.has(id)) fail(`issuer ${id}: id is used twice`);
      ids.add(id);
      const issuer = parseIssuer(id, e, env, inLambda, fail);
      for (const iss of issuer.issuers) {
        const other = issuerStrings.get(iss);
        if (other !== undefined) fail(`issuer ${id}: issuer ${iss} is also issuer ${other}'s`);
        issuerStrings.set(iss, id);
      }
      out.push(issuer);
    });
  }
  return out;
}

function parseIssuer(id: string, e: Record<string, unknown>, env: Env, inLambda: boolean, fail: (s: string) => never): ExchangeIssuer {
  const where = `issuer ${id}`;
  const preset = e.preset as ExchangePreset;
  if (typeof e.preset !== 'string' || !PRESETS.includes(preset)) fail(`${where}: preset must be one of ${PRESETS.join(', ')}`);

  const str = (field: string, required: boolean): string | undefined => {
    const v = e[field];
    if (v === undefined) return required ? fail(`${where}: preset ${preset} needs ${field}`) : undefined;
    if (typeof v !== 'string' || v.trim() === '') fail(`${where}: ${field} must be a non-empty string`);
    return (v as string).trim();
  };
  const strings = (field: string): string[] | undefined => {
    const v = e[field];
    if (v === undefined) return undefined;
    const list = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(list) || list.length === 0 || !list.every((s) => typeof s === 'string' && s.trim() !== '')) {
      fail(`${where}: ${field} must be a non-empty string or array of non-empty strings`);
    }
    return (list as string[]).map((s) => s.trim());
  };
  const int = (field: string, min: number, max: number, fallback: number | undefined): number | undefined => {
    const v = e[field];
    if (v === undefined) return fallback;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) fail(`${where}: ${field} must be an integer from ${min} to ${max}`);
    return v as number;
  };
  /** A URL field, checked (https; plain http only outside Lambda), and parsed. */
  const url = (field: string): URL | undefined => {
    const v = str(field, false);
    if (v === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      return fail(`${where}: ${field} must be a URL`);
    }
    if (parsed.protocol !== 'https:' && (inLambda || parsed.protocol !== 'http:')) fail(`${where}: ${field} must be an https URL`);
    return parsed;
  };

  // The preset's inputs, and what it fills in.
  let issuers: string[];
  let audiences: string[];
  let defaultKeys: ExchangeKeySource;
  let cognito: ExchangeIssuer['cognito'];
  switch (preset) {
    case 'firebase':
    case 'firebase-session-cookie':
    case 'firebase-emulator': {
      const p = str('projectId', true) as string;
      const idTokens = `https://securetoken.google.com/${p}`;
      const cookies = `https://session.firebase.google.com/${p}`;
      audiences = [p];
      if (preset === 'firebase') {
        issuers = [idTokens];
        defaultKeys = { kind: 'x509', url: FIREBASE_X509 };
      } else if (preset === 'firebase-session-cookie') {
        issuers = [cookies];
        defaultKeys = { kind: 'x509', url: SESSION_COOKIE_X509 };
      } else {
        if (env.SESSION_EXCHANGE_ALLOW_EMULATOR?.trim() !== '1') fail(`${where}: preset firebase-emulator needs SESSION_EXCHANGE_ALLOW_EMULATOR=1`);
        if (!p.startsWith('demo-')) fail(`${where}: preset firebase-emulator needs a projectId starting with demo-`);
        issuers = [idTokens, cookies];
        defaultKeys = { kind: 'none' };
      }
      break;
    }
    case 'auth0': {
      const domain = (str('domain', true) as string).replace(/^https?:\/\//, '').replace(/\/+$/, '');
      issuers = [`https://${domain}/`];
      audiences = strings('audience') ?? fail(`${where}: preset auth0 needs audience`);
      defaultKeys = { kind: 'jwks', url: `https://${domain}/.well-known/jwks.json` };
      break;
    }
    case 'cognito': {
      const region = str('region', true) as string;
      const pool = str('userPoolId', true) as string;
      const clientId = str('clientId', true) as string;
      const tokenUse = (str('tokenUse', false) ?? 'id') as 'id' | 'access' | 'any';
      if (!['id', 'access', 'any'].includes(tokenUse)) fail(`${where}: tokenUse must be id, access or any`);
      const iss = `https://cognito-idp.${region}.amazonaws.com/${pool}`;
      issuers = [iss];
      audiences = [clientId];
      cognito = { tokenUse };
      defaultKeys = { kind: 'jwks', url: `${iss}/.well-known/jwks.json` };
      break;
    }
    case 'supabase': {
      const ref = str('projectRef', false);
      const given = str('issuer', false);
      // The key URL is made from it: a URL like the key URLs (kept as written, since `iss` is compared exactly).
      if (given !== undefined) url('issuer');
      if (ref === undefined && given === undefined) fail(`${where}: preset supabase needs projectRef or issuer`);
      const iss = given ?? `https://${ref}.supabase.co/auth/v1`;
      issuers = [iss];
      audiences = ['authenticated'];
      defaultKeys = { kind: 'jwks', url: `${iss.replace(/\/+$/, '')}/.well-known/jwks.json` };
      break;
    }
    case 'oidc': {
      issuers = [str('issuer', true) as string];
      audiences = strings('audiences') ?? fail(`${where}: preset oidc needs audiences`);
      if (e.jwksUri === undefined && e.jwks === undefined && e.secret === undefined) fail(`${where}: preset oidc needs jwksUri or jwks`);
      defaultKeys = { kind: 'none' };
      break;
    }
  }

  // Overrides.
  if (preset !== 'supabase' && preset !== 'oidc' && e.issuer !== undefined) issuers = [str('issuer', true) as string];
  if (preset !== 'oidc' && e.audiences !== undefined) audiences = strings('audiences') as string[];
  const secret = e.secret === undefined ? undefined : e.secret;
  if (secret !== undefined && (typeof secret !== 'string' || secret.length < 32)) fail(`${where}: secret must be a string of at least 32 characters`);
  const jwksUri = url('jwksUri');
  const x509Uri = url('x509Uri');
  if (jwksUri && x509Uri) fail(`${where}: give jwksUri or x509Uri, not both`);
  let keys: ExchangeKeySource = defaultKeys;
  if (e.jwks !== undefined) {
    const jwks = e.jwks;
    if (!isObject(jwks) || !Array.isArray(jwks.keys) || !jwks.keys.every(isObject)) fail(`${where}: jwks must be a JWKS ({"keys":[…]})`);
    // Checked now, as a fetched key set is when it comes: else every token would answer "key unknown".
    const inline = keysOfJwks(jwks);
    if (inline.length === 0) fail(`${where}: jwks has no usable key (an RSA or EC public key for signatures)`);
    keys = { kind: 'inline', keys: inline };
  } else if (jwksUri) keys = { kind: 'jwks', url: jwksUri.toString() };
  else if (x509Uri) keys = { kind: 'x509', url: x509Uri.toString() };

  let algorithms: string[];
  if (e.algorithms === undefined) {
    algorithms = preset === 'firebase-emulator' ? ['none'] : preset === 'supabase' ? (secret !== undefined ? ['HS256'] : ['ES256', 'RS256']) : ['RS256'];
    if (preset === 'oidc' && secret !== undefined && e.jwksUri === undefined && e.jwks === undefined) algorithms = ['HS256'];
  } else {
    if (!Array.isArray(e.algorithms) || e.algorithms.length === 0 || !e.algorithms.every((a) => typeof a === 'string')) {
      fail(`${where}: algorithms must be a non-empty array of strings`);
    }
    algorithms = e.algorithms as string[];
    for (const alg of algorithms) {
      if (alg === 'none') {
        if (preset !== 'firebase-emulator') fail(`${where}: algorithm none is accepted only by preset firebase-emulator`);
      } else if (preset === 'firebase-emulator') fail(`${where}: preset firebase-emulator accepts only algorithm none`);
      else if (!ALGORITHMS.includes(alg)) fail(`${where}: algorithm ${alg} is not one of ${ALGORITHMS.join(', ')}`);
    }
  }
  if (algorithms.includes('HS256') && secret === undefined) fail(`${where}: algorithm HS256 needs secret`);
  // A supabase issuer with only its secret fetches nothing.
  if (preset === 'supabase' && !algorithms.some((a) => a !== 'HS256') && keys.kind === 'jwks' && jwksUri === undefined) keys = { kind: 'none' };

  let acceptUntil: number | undefined;
  if (e.acceptUntil !== undefined) {
    const v = e.acceptUntil;
    acceptUntil = typeof v === 'string' && ISO_DATE_TIME.test(v) && isCalendarDate(v) ? Date.parse(v) : Number.NaN;
    if (!Number.isFinite(acceptUntil)) fail(`${where}: acceptUntil must be an ISO 8601 date-time (e.g. 2027-01-31T00:00:00Z)`);
  }
  const externalIdClaim = str('externalIdClaim', false) ?? 'sub';
  return {
    id,
    preset,
    issuers,
    audiences,
    keys,
    secret: secret as string | undefined,
    algorithms,
    maxTokenAgeSeconds: int('maxTokenAgeSeconds', 1, Number.MAX_SAFE_INTEGER, undefined),
    acceptUntil,
    externalIdClaim,
    clockSkewSeconds: int('clockSkewSeconds', 0, 300, 60) as number,
    keyRefetchCooldownSeconds: int('keyRefetchCooldownSeconds', 0, 3600, 30) as number,
    ...(cognito ? { cognito } : {}),
  };
}
