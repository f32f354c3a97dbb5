import { base32Decode, base32Encode, normaliseSecret } from '../recipes/totp/base32';
import type { BulkLoginMethodInput, BulkTotpDeviceInput, MappedUser, MapOptions, SmsFactors, Warning } from './model';

/**
 * Second factors carried over (SPEC §20 "Carrying second factors over"), the part every source
 * shares. A source reads its own records into `SecondFactor`s (its traps — Keycloak's raw secrets,
 * django's hex keys, HOTP and SHA-256 devices — stay in its module); this module makes of them the
 * bulk user's TOTP devices, the SMS factors' phone login methods, the factors its metadata
 * requires, and the warnings. Pure: no I/O. A secret goes into `totpDevices` and nowhere else:
 * never into a warning, a reason or a note.
 */

export type SecondFactor =
  /** An authenticator app whose secret can be carried: RFC 4648 base32 (any case; spaces and `=` are dropped). */
  | {
      readonly kind: 'totp';
      /** What the warnings call it (`the OTP credential "iPad"`): never the secret. */
      readonly what: string;
      readonly name?: string;
      readonly secret: string;
      readonly period: number;
      readonly skew: number;
    }
  /** An SMS factor, its phone in E.164. */
  | { readonly kind: 'sms'; readonly what: string; readonly phone: string }
  /** Codes sent to the user's own email (WordPress's Two_Factor_Email): `otp-email` required, nothing linked. */
  | { readonly kind: 'email'; readonly what: string }
  /** Backup or recovery codes: never carried (hashed or one-use, and SuperTokens has none). */
  | { readonly kind: 'recovery'; readonly what: string }
  /** A factor that cannot be carried, and why; `authenticator`: it was an authenticator app, so `totp` stays required. */
  | { readonly kind: 'lost'; readonly what: string; readonly why: string; readonly authenticator?: boolean };

/** A source's name for a factor as a warning shows it: quoted, at most 64 characters. */
export const quoted = (label: string): string => JSON.stringify(label.trim().slice(0, 64));

/** The SDK's factor ids (MultiFactorAuth's `FactorIds`), in the order the metadata lists them. */
export const FACTOR_IDS = ['totp', 'otp-phone', 'otp-email'] as const;
type FactorId = (typeof FACTOR_IDS)[number];

/** The longest `secretKey` and `deviceName` the service takes (SPEC §20). */
const MAX_TOTP_FIELD = 256;

/** RFC 4648 base32 of bytes, upper-case, unpadded (as the core writes a secret): the TOTP recipe's own. */
export const base32Of = base32Encode;

/**
 * A base32 secret as the service stores it (spaces and `=` removed, upper-cased), or undefined
 * when it is not base32: a letter outside the alphabet, or a length no whole number of bytes has
 * (1, 3 or 6 characters past a multiple of 8). The TOTP recipe's normalisation and check, so the
 * command sends only what the service takes.
 */
export function normalisedBase32(text: string): string | undefined {
  const key = normaliseSecret(text);
  return key !== '' && base32Decode(key) !== undefined ? key : undefined;
}

/** What a user's second factors become. */
export interface MfaPlan {
  readonly totpDevices: BulkTotpDeviceInput[];
  /** Passwordless phone login methods for SMS factors on phones the user does not sign in with yet. */
  readonly smsMethods: BulkLoginMethodInput[];
  readonly required: FactorId[];
  readonly warnings: Warning[];
  readonly smsFactors?: SmsFactors;
}

/** `name`, or `name (2)`, `name (3)`… : the first that is not in `taken` (and is added to it). */
function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name.slice(0, MAX_TOTP_FIELD);
  for (let n = 2; taken.has(candidate); n++) {
    const suffix = ` (${n})`;
    candidate = name.slice(0, MAX_TOTP_FIELD - suffix.length) + suffix;
  }
  taken.add(candidate);
  return candidate;
}

const lostText = (what: string, why: string, authenticator: boolean) =>
  `${what} is not migrated: ${why}${authenticator ? '; the user sets up an authenticator app again at the next sign-in (totp stays required)' : ''}`;

/**
 * A user's second factors planned by `opts.mfa` (SPEC §20). `carry`: each TOTP secret becomes a
 * verified device (the source's name, made unique), each SMS factor a verified passwordless phone
 * login method (none for a phone in `ownPhones`, one per number), and the user requires the ids
 * of the factors it had (`totp` for any authenticator app, carried or not; `otp-phone` for a
 * carried SMS factor; `otp-email`); what is not carried is a warning. `report`: warnings only.
 */
export function planSecondFactors(factors: readonly SecondFactor[], opts: MapOptions, ownPhones: ReadonlySet<string>): MfaPlan {
  const plan: MfaPlan = { totpDevices: [], smsMethods: [], required: [], warnings: [] };
  const required = new Set<FactorId>();
  const names = new Set<string>();
  const phones: string[] = [];
  let onOwnPhone = false;
  const lose = (what: string, why: string, authenticator: boolean) => {
    plan.warnings.push({ code: 'mfa-not-migrated', text: lostText(what, why, authenticator) });
    if (authenticator) required.add('totp');
  };
  for (const f of factors) {
    if (f.kind === 'recovery') {
      plan.warnings.push({
        code: 'recovery-codes-not-migrated',
        text: `${f.what}: not migrated (backup codes are hashed or one-use, and the service keeps none)`,
      });
    } else if (opts.mfa === 'report') {
      plan.warnings.push({ code: 'mfa-not-migrated', text: `${f.what} is not migrated (--mfa report): the user enrols it again` });
    } else if (f.kind === 'lost') {
      lose(f.what, f.why, f.authenticator === true);
    } else if (f.kind === 'totp') {
      const secretKey = normalisedBase32(f.secret);
      if (secretKey === undefined) lose(f.what, 'its secret is not base32', true);
      else if (secretKey.length > MAX_TOTP_FIELD) lose(f.what, `its secret is longer than the ${MAX_TOTP_FIELD} characters the service takes`, true);
      else {
        const name = f.name?.trim();
        plan.totpDevices.push({ secretKey, ...(name ? { deviceName: uniqueName(name, names) } : {}), period: f.period, skew: f.skew });
        required.add('totp');
      }
    } else if (f.kind === 'sms') {
      required.add('otp-phone');
      if (ownPhones.has(f.phone)) onOwnPhone = true;
      else if (!phones.includes(f.phone)) {
        phones.push(f.phone);
        plan.smsMethods.push({ recipeId: 'passwordless', tenantIds: [], isVerified: true, phoneNumber: f.phone });
      }
    } else {
      required.add('otp-email');
    }
  }
  plan.required.push(...FACTOR_IDS.filter((id) => required.has(id)));
  return phones.length > 0 || onOwnPhone ? { ...plan, smsFactors: { phones, onOwnPhone } } : plan;
}

/** Whether a login method is one added for an SMS second factor on one of `phones` (a phone alone, no email). */
export function isSmsFactorMethod(lm: BulkLoginMethodInput, phones: readonly string[]): boolean {
  return lm.recipeId === 'passwordless' && lm.email === undefined && lm.phoneNumber !== undefined && phones.includes(lm.phoneNumber);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `metadata` with `_supertokens.requiredSecondaryFactors` holding `required` too (the user's other metadata kept). */
export function withRequiredFactors(metadata: Record<string, unknown>, required: readonly string[]): Record<string, unknown> {
  if (required.length === 0) return metadata;
  const own = isObject(metadata._supertokens) ? metadata._supertokens : {};
  const had = Array.isArray(own.requiredSecondaryFactors) ? own.requiredSecondaryFactors.filter((f): f is string => typeof f === 'string') : [];
  return { ...metadata, _supertokens: { ...own, requiredSecondaryFactors: [...new Set([...had, ...required])] } };
}

/** `metadata` without `factor` among its required factors, and without what that leaves empty. */
function withoutRequiredFactor(metadata: Record<string, unknown>, factor: string): Record<string, unknown> | undefined {
  const { _supertokens: own, ...rest } = metadata;
  if (!isObject(own) || !Array.isArray(own.requiredSecondaryFactors)) return metadata;
  const { requiredSecondaryFactors, ...ownRest } = own;
  const left = (requiredSecondaryFactors as unknown[]).filter((f) => f !== factor);
  const kept = left.length > 0 ? { ...ownRest, requiredSecondaryFactors: left } : ownRest;
  const out = Object.keys(kept).length > 0 ? { ...rest, _supertokens: kept } : rest;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The user without the SMS factors whose phone another user holds (SPEC §20: not carried,
 * `mfa-not-migrated` naming that user). `holderOf(phone)` names the other user(s) (`user 42 of
 * the export`), or is undefined when the phone is free. With no SMS factor left, `otp-phone` is
 * no longer required (unless a factor was on a phone the user signs in with).
 */
export function dropHeldSmsFactors(m: MappedUser, holderOf: (phone: string) => string | undefined): MappedUser {
  if (!m.user || !m.smsFactors || m.smsFactors.phones.length === 0) return m;
  const held = new Map<string, string>();
  for (const phone of m.smsFactors.phones) {
    const holder = holderOf(phone);
    if (holder !== undefined) held.set(phone, holder);
  }
  if (held.size === 0) return m;
  const phones = m.smsFactors.phones.filter((p) => !held.has(p));
  const loginMethods = m.user.loginMethods.filter((lm) => !isSmsFactorMethod(lm, [...held.keys()]));
  if (loginMethods.length === 1) {
    const { isPrimary: _isPrimary, ...only } = loginMethods[0];
    loginMethods[0] = only;
  }
  const { userMetadata, ...user } = m.user;
  const metadata = userMetadata && phones.length === 0 && !m.smsFactors.onOwnPhone ? withoutRequiredFactor(userMetadata, 'otp-phone') : userMetadata;
  const warnings = [...held].map(([phone, holder]) => ({
    code: 'mfa-not-migrated',
    text: `the SMS second factor ${phone} is not migrated: that phone number belongs to ${holder}`,
  }));
  return {
    ...m,
    user: { ...user, ...(metadata ? { userMetadata: metadata } : {}), loginMethods },
    warnings: [...m.warnings, ...warnings],
    smsFactors: { phones, onOwnPhone: m.smsFactors.onOwnPhone },
  };
}

/**
 * The user without the SMS second factors on phones another user of the service holds (SPEC §20).
 * `holders(phone)` answers the ids of the service's users holding a phone: from what a dry run
 * read, or asked of the service (the export's own users are settled by the collision index).
 */
export async function withoutServiceHeldPhones(m: MappedUser, holders: (phone: string) => Promise<string[]>): Promise<MappedUser> {
  if (!m.smsFactors || m.smsFactors.phones.length === 0) return m;
  const held = new Map<string, string>();
  for (const phone of m.smsFactors.phones) {
    const others = (await holders(phone)).filter((id) => id !== m.user?.externalUserId);
    if (others.length > 0) held.set(phone, `${others.length === 1 ? 'user' : 'users'} ${others.join(', ')} of the service`);
  }
  return dropHeldSmsFactors(m, (phone) => held.get(phone));
}
