import { normaliseEmail, normalisePhoneNumber } from '../http/input';
import { planSecondFactors, withRequiredFactors, type SecondFactor } from './mfa';
import type { BulkLoginMethodInput, BulkUserInput, MapOptions, MappedUser, NotImported, Warning } from './model';

/**
 * What every source's mapping shares (SPEC §17): identities normalised as the service does (so
 * collisions found here are the ones the service would refuse), provider names, the `--no-hash`
 * rule, and the assembly of one bulk user from its login methods.
 */

/** A string that is not empty, else undefined (an absent, empty or non-string field). */
export const nonEmpty = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}(?::?\d{2}){0,2})?$/i;

/**
 * A timestamptz as psql (`2023-05-01 10:20:30.5+00`) or `row_to_json` (`2023-05-01T10:20:30.5+00:00`)
 * writes it, in ms since the epoch: µs truncated, never rounded; no zone is UTC. `infinity` is
 * Infinity (a ban for ever).
 */
export function timestampOf(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  if (v.trim() === 'infinity') return Infinity;
  const m = TIMESTAMP.exec(v.trim());
  if (!m) return undefined;
  const ms = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const local = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
  const zone = (m[8] ?? 'Z').toUpperCase();
  if (zone === 'Z') return local;
  const digits = zone.slice(1).replace(/:/g, '').padEnd(6, '0');
  const offset = (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4)) * 60 + Number(digits.slice(4, 6))) * 1000;
  return zone[0] === '-' ? local + offset : local - offset;
}

/** An email as the service stores it (SPEC §3), or undefined when it is not one. */
export function emailOf(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  try {
    return normaliseEmail(raw);
  } catch {
    return undefined;
  }
}

/** A phone number in E.164, or undefined when it is not one in international format. */
export function phoneOf(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  try {
    return normalisePhoneNumber(raw);
  } catch {
    return undefined;
  }
}

/** Provider names of the sources → the SDK's `thirdPartyId`s; anything else keeps its name (less `.com`). */
const THIRD_PARTY_IDS: Readonly<Record<string, string>> = {
  'google.com': 'google',
  'google-oauth2': 'google',
  'github.com': 'github',
  github: 'github',
  'apple.com': 'apple',
  apple: 'apple',
  'facebook.com': 'facebook',
  facebook: 'facebook',
  'twitter.com': 'twitter',
  twitter: 'twitter',
  'microsoft.com': 'microsoft',
  windowslive: 'microsoft',
  'linkedin.com': 'linkedin',
  linkedin: 'linkedin',
  'yahoo.com': 'yahoo',
  'gc.apple.com': 'gamecenter',
  'playgames.google.com': 'playgames',
};

/** The most characters of a `thirdPartyId` (SPEC §8). */
const MAX_THIRD_PARTY_ID = 28;

export function thirdPartyIdOf(provider: string): string {
  const known = THIRD_PARTY_IDS[provider];
  if (known !== undefined) return known;
  return provider.replace(/\.com$/, '').slice(0, MAX_THIRD_PARTY_ID);
}

/** Standard base64 with or without padding, or base64url with or without padding: nothing else. */
const BASE64 = /^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/;

/**
 * A base64 value in the standard alphabet with padding, or undefined when it is not base64 in
 * one of the two alphabets. Checked by pattern before decoding: Node's decoder skips bad
 * characters silently, and a hash decoded wrong would import fine and never sign in.
 */
export function standardBase64(raw: string): string | undefined {
  const text = raw.trim();
  if (!BASE64.test(text)) return undefined;
  const bare = text.replace(/=+$/, '');
  if (bare.length % 4 === 1) return undefined;
  const pad = (4 - (bare.length % 4)) % 4;
  // Padding is optional, but when there is some it must be the right amount.
  if (text.length !== bare.length && text.length !== bare.length + pad) return undefined;
  return (bare + '='.repeat(pad)).replace(/-/g, '+').replace(/_/g, '/');
}

/** The warning (and, in `skip` mode, the reason) for a user with an email but no hash. */
export function noHashLoginMethod(
  email: string,
  verified: boolean,
  opts: MapOptions,
  why: string,
): { method?: BulkLoginMethodInput; warning?: Warning; skip?: NotImported } {
  if (opts.noHash === 'skip') {
    return { skip: { code: 'no-password-hash', reason: `${why}: skipped (--no-hash skip)`, needsAction: false } };
  }
  if (opts.noHash === 'migrate-on-signin') {
    return {
      method: { recipeId: 'emailpassword', tenantIds: [opts.tenant], isVerified: verified, email, migratePasswordOnSignIn: true },
      warning: {
        code: 'no-password-hash',
        text: `${why}: imported as an email-password login method checked by the old provider at the first sign-in (--no-hash migrate-on-signin)`,
      },
    };
  }
  return {
    method: { recipeId: 'passwordless', tenantIds: [opts.tenant], isVerified: verified, email },
    warning: { code: 'no-password-hash', text: `${why}: imported as a passwordless email login method (--no-hash passwordless)` },
  };
}

/**
 * `noHashLoginMethod` for a hash in no form the service accepts (SPEC §17b): the user gets the
 * `--no-hash` mode, and one warning, `hash-unsupported`, says both what was wrong (`what`, never
 * the hash) and what became of the user.
 */
export function unsupportedHashLoginMethod(
  email: string,
  verified: boolean,
  opts: MapOptions,
  what: string,
): { method?: BulkLoginMethodInput; warning: Warning; skip?: NotImported } {
  const noHash = noHashLoginMethod(email, verified, opts, `${what}, which the service cannot check`);
  const text = noHash.skip?.reason ?? noHash.warning!.text;
  return { ...noHash, warning: { code: 'hash-unsupported', text }, ...(noHash.skip ? { skip: { ...noHash.skip, reason: text } } : {}) };
}

/**
 * One bulk user from its login methods: every method in the tenant and with the creation time;
 * with several, one primary user (the password one primary, else the oldest, first on ties).
 */
export function assembleUser(input: {
  sourceId: string;
  createdAt?: number;
  methods: BulkLoginMethodInput[];
  metadata?: Record<string, unknown>;
  roles?: readonly string[];
  warnings: Warning[];
  /** Disabled (Firebase), blocked (Auth0) or banned (Supabase) in the source: the word the report uses. */
  disabled?: 'disabled' | 'blocked' | 'banned';
  opts: MapOptions;
  /** Why there is no login method, when there is none. */
  emptyReason: NotImported;
  /** The user's second factors (SPEC §20), carried or reported as `opts.mfa` says; a user with no login method of its own gets none. */
  factors?: readonly SecondFactor[];
}): MappedUser {
  const { sourceId, createdAt, methods, opts, warnings } = input;
  const base = { sourceId, ...(createdAt !== undefined ? { createdAt } : {}), warnings };
  if (input.disabled !== undefined && !opts.includeDisabled) {
    const reason = `${input.disabled} in the source (--include-disabled imports it with userMetadata.disabled = true)`;
    return { ...base, notImported: { outcome: 'skipped', code: 'disabled', reason, needsAction: false } };
  }
  if (methods.length === 0) return { ...base, notImported: { outcome: 'skipped', ...input.emptyReason } };
  const ownPhones = new Set(methods.flatMap((m) => (m.recipeId === 'passwordless' && m.phoneNumber !== undefined ? [m.phoneNumber] : [])));
  const mfa = input.factors && input.factors.length > 0 ? planSecondFactors(input.factors, opts, ownPhones) : undefined;
  if (mfa) {
    methods.push(...mfa.smsMethods);
    warnings.push(...mfa.warnings);
  }
  for (const m of methods) {
    // A mapped enterprise identity keeps its connection's tenant (SPEC §22); every other method is in `--tenant`.
    if (m.tenantIds.length === 0) m.tenantIds = [opts.tenant];
    if (createdAt !== undefined) m.timeJoinedInMSSinceEpoch = createdAt;
  }
  if (methods.length > 1) {
    const primary = methods.find((m) => m.recipeId === 'emailpassword') ?? oldest(methods);
    for (const m of methods) m.isPrimary = m === primary;
  }
  const metadata = withRequiredFactors({ ...(input.metadata ?? {}), ...(input.disabled !== undefined ? { disabled: true } : {}) }, mfa?.required ?? []);
  const user: BulkUserInput = {
    externalUserId: sourceId,
    ...(Object.keys(metadata).length > 0 ? { userMetadata: metadata } : {}),
    ...(input.roles && input.roles.length > 0 ? { userRoles: input.roles.map((role) => ({ role, tenantIds: roleTenants(methods, opts.tenant) })) } : {}),
    loginMethods: methods,
    ...(mfa && mfa.totpDevices.length > 0 ? { totpDevices: mfa.totpDevices } : {}),
  };
  return { ...base, user, ...(mfa?.smsFactors ? { smsFactors: mfa.smsFactors } : {}) };
}

/**
 * The tenants a user's roles are assigned in: `--tenant` (when it is `public` or one of the user's
 * methods is there: the service refuses a role in another tenant the user is not in), and each
 * tenant of a mapped enterprise identity (SPEC §22), so the roles hold wherever the user signs in.
 */
function roleTenants(methods: readonly BulkLoginMethodInput[], tenant: string): string[] {
  const own = new Set(methods.flatMap((m) => m.tenantIds));
  return [...new Set([...(tenant === 'public' || own.has(tenant) ? [tenant] : []), ...own])];
}

function oldest(methods: readonly BulkLoginMethodInput[]): BulkLoginMethodInput {
  return methods.reduce((a, b) => ((b.timeJoinedInMSSinceEpoch ?? Infinity) < (a.timeJoinedInMSSinceEpoch ?? Infinity) ? b : a));
}

/** A failed mapping: the source record holds something that must be fixed first. */
export function failedUser(sourceId: string, createdAt: number | undefined, code: string, reason: string, warnings: Warning[] = []): MappedUser {
  return { sourceId, ...(createdAt !== undefined ? { createdAt } : {}), warnings, notImported: { outcome: 'failed', code, reason, needsAction: true } };
}
