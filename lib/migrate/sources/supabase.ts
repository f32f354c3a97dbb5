import { droppedConnection, enterpriseMethod } from '../connections';
import { assembleUser, emailOf, failedUser, noHashLoginMethod, phoneOf, thirdPartyIdOf, timestampOf } from '../mapping';
import type { SecondFactor } from '../mfa';
import type { BulkLoginMethodInput, MapOptions, MappedUser, ReadPasskey, Source, Warning } from '../model';
import { tableRows, UserJoin, type TableSpec } from '../table';
import { webauthnMethodOf } from '../passkeys';
import type { FactorIndex } from './supabase-factors';
import type { PasskeyIndex } from './supabase-passkeys';

/**
 * Supabase (SPEC §17b): `auth.users`, and optionally `auth.identities`, as psql exports them
 * (`\copy (select * from auth.users) to f csv header`, or JSON: `json_agg` or `row_to_json`
 * lines; read by `../table.ts`). In CSV every cell is text (`t`/`f`, JSON cells as text,
 * `2023-05-01 10:20:30.5+00`); in JSON they are JSON values: the helpers below take either.
 * Second factors come from `auth.mfa_factors` (`--mfa-factors`: `./supabase-factors.ts`).
 */

type Obj = Record<string, unknown>;

const USERS: TableSpec = {
  what: 'an auth.users export (psql CSV with header, a json_agg array or row_to_json lines)',
  required: [['id'], ['email'], ['encrypted_password'], ['email_confirmed_at'], ['created_at'], ['raw_app_meta_data'], ['raw_user_meta_data']],
};
const IDENTITIES: TableSpec = {
  what: 'an auth.identities export (psql CSV with header, a json_agg array or row_to_json lines)',
  // `provider_id` since supabase/auth 2.40 (2023); before it, `id` was the provider's user id.
  required: [['user_id'], ['provider'], ['identity_data'], ['provider_id', 'id']],
};

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
const present = (v: unknown): boolean => v !== null && v !== undefined && v !== '';
/** A boolean column: JSON `true`, psql's `t`. */
const flag = (v: unknown): boolean => v === true || v === 't' || v === 'true';

/** A JSON column: the value in JSON, its text parsed in CSV; NULL → `{}`; anything but an object → undefined. */
function jsonObject(v: unknown): Obj | undefined {
  if (v === null || v === undefined || v === '') return {};
  let value = v;
  if (typeof v === 'string') {
    try {
      value = JSON.parse(v);
    } catch {
      return undefined;
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : undefined;
}

const BCRYPT = /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/;
const ARGON2 = /^\$argon2(?:id|i|d)\$/;

/** One row of `auth.identities`, as the mapping needs it. */
export interface SupabaseIdentity {
  readonly provider: string;
  readonly providerId: string;
  readonly data: Obj;
}

export interface SupabaseMapContext {
  readonly opts: MapOptions;
  /** The user's rows of `auth.identities`; undefined when no `--identities` file was given. */
  readonly identities?: readonly SupabaseIdentity[];
  /** The run's time (ms): a `banned_until` after it is a ban. */
  readonly now: number;
  /** The user's verified rows of `auth.mfa_factors` (`--mfa-factors`). */
  readonly factors?: readonly SecondFactor[];
  /** The user's rows of `auth.webauthn_credentials` (`--webauthn-credentials`, SPEC §21). */
  readonly passkeys?: readonly ReadPasskey[];
}

/** The user's own login kinds: not third-party identities. */
const OWN_PROVIDERS = new Set(['email', 'phone']);

/** Maps one `auth.users` row to a bulk user (or says why it is not imported); `at` names the row. */
export function mapSupabaseUser(raw: Obj, ctx: SupabaseMapContext, at: string): MappedUser {
  const { opts } = ctx;
  const warnings: Warning[] = [];
  const createdAt = timestampOf(raw.created_at);
  if (present(raw.created_at) && createdAt === undefined)
    warnings.push({
      code: 'bad-created-at',
      text: `created_at ${JSON.stringify(String(raw.created_at).slice(0, 40))} is not a time: timeJoined is the import time`,
    });
  const sourceId = text(raw.id);
  if (sourceId === undefined) return failedUser(`#${at}`, createdAt, 'no-source-id', `${at} has no id`, warnings);
  const skipped = (code: string, reason: string): MappedUser => ({
    sourceId,
    ...(createdAt !== undefined ? { createdAt } : {}),
    warnings,
    notImported: { outcome: 'skipped', code, reason, needsAction: false },
  });
  if (flag(raw.is_anonymous)) return skipped('anonymous', 'anonymous user (is_anonymous): no identity to sign in with');
  if (present(raw.deleted_at)) return skipped('deleted', 'deleted in Supabase (deleted_at is set)');
  // SPEC §22: an SSO user is imported when the mapping names one of its `sso:<uuid>` providers.
  const isSso = (i: SupabaseIdentity) => i.provider.startsWith('sso:');
  if (flag(raw.is_sso_user) && !(ctx.identities ?? []).some((i) => isSso(i) && opts.connections?.get(i.provider) !== undefined))
    return skipped('sso', 'SSO (SAML) user whose provider --connections does not map: enterprise sign-in is not migrated');

  const userMeta = jsonObject(raw.raw_user_meta_data);
  const appMeta = jsonObject(raw.raw_app_meta_data);
  if (userMeta === undefined || appMeta === undefined) {
    const column = userMeta === undefined ? 'raw_user_meta_data' : 'raw_app_meta_data';
    return failedUser(sourceId, createdAt, 'row-unreadable', `${at}: ${column} is not a JSON object`, warnings);
  }
  const bannedUntil = timestampOf(raw.banned_until);
  const banned = present(raw.banned_until) && (bannedUntil === undefined || bannedUntil > ctx.now);

  const email = emailOf(raw.email);
  if (present(raw.email) && email === undefined)
    warnings.push({ code: 'bad-email', text: `email ${JSON.stringify(String(raw.email).slice(0, 80))} is not an email address: not imported` });
  const emailVerified = present(raw.email_confirmed_at);
  const rawPhone = text(raw.phone);
  // auth.users keeps the number without its `+`.
  const phone = rawPhone === undefined ? undefined : phoneOf(rawPhone.startsWith('+') ? rawPhone : `+${rawPhone}`);
  if (rawPhone !== undefined && phone === undefined)
    warnings.push({ code: 'bad-phone', text: `phone ${JSON.stringify(rawPhone.slice(0, 40))} is not a phone number: not imported` });

  const methods: BulkLoginMethodInput[] = [];
  const hash = text(raw.encrypted_password);
  let hashUnsupported = false;
  if (hash !== undefined) {
    const hashingAlgorithm = BCRYPT.test(hash) ? 'bcrypt' : ARGON2.test(hash) ? 'argon2' : undefined;
    if (hashingAlgorithm === undefined) {
      hashUnsupported = true;
      warnings.push({
        code: 'hash-unsupported',
        text: hash.startsWith('$fbscrypt$')
          ? "the password hash is Supabase's Firebase scrypt ($fbscrypt$), which the service cannot check: the password is not imported"
          : 'the password hash is neither bcrypt nor argon2: the password is not imported',
      });
    } else if (email === undefined) {
      warnings.push({ code: 'password-not-migrated', text: 'a password but no email (a phone-password user): the password is not imported' });
    } else {
      methods.push({ recipeId: 'emailpassword', tenantIds: [], isVerified: emailVerified, email, passwordHash: hash, hashingAlgorithm });
    }
  }

  // Third-party identities: from auth.identities; without it, only the names in raw_app_meta_data.providers.
  const providers = Array.isArray(appMeta.providers) ? appMeta.providers.filter((p): p is string => typeof p === 'string') : [];
  const social = ctx.identities
    ? ctx.identities.filter((i) => !OWN_PROVIDERS.has(i.provider)).map((i) => i.provider)
    : providers.filter((p) => !OWN_PROVIDERS.has(p));
  for (const identity of ctx.identities ?? []) {
    if (OWN_PROVIDERS.has(identity.provider)) continue;
    const idEmail = emailOf(identity.data.email) ?? email;
    if (isSso(identity)) {
      const entry = opts.connections?.get(identity.provider);
      if (entry === undefined) warnings.push(droppedConnection(`the ${identity.provider} identity ${identity.providerId}`));
      else if (idEmail === undefined)
        warnings.push({ code: 'identity-without-email', text: `${identity.provider} identity ${identity.providerId} has no email: not imported` });
      // Supabase verified the email through the SAML assertion (identity_data.email_verified is always true).
      else methods.push(enterpriseMethod(entry, identity.providerId, idEmail, true));
      continue;
    }
    if (idEmail === undefined) {
      warnings.push({
        code: 'identity-without-email',
        text: `${identity.provider} identity ${identity.providerId} has no email anywhere in the record: not imported`,
      });
      continue;
    }
    const claimed = identity.data.email_verified;
    methods.push({
      recipeId: 'thirdparty',
      tenantIds: [],
      isVerified: typeof claimed === 'boolean' ? claimed : idEmail === email && emailVerified,
      email: idEmail,
      thirdPartyId: thirdPartyIdOf(identity.provider),
      thirdPartyUserId: identity.providerId,
    });
  }
  if (!ctx.identities && social.length > 0)
    warnings.push({ code: 'identity-not-migrated', text: `${social.join(', ')} sign-in not imported: give auth.identities with --identities` });

  const phoneMethod: BulkLoginMethodInput | undefined =
    phone === undefined ? undefined : { recipeId: 'passwordless', tenantIds: [], isVerified: present(raw.phone_confirmed_at), phoneNumber: phone };
  if (email !== undefined && !methods.some((m) => m.recipeId === 'emailpassword') && social.length === 0) {
    const why = hashUnsupported ? 'a password hash the service cannot check' : 'email but no password (a magic-link or OTP user)';
    const noHash = noHashLoginMethod(email, emailVerified, opts, why);
    if (noHash.skip && methods.length === 0 && phoneMethod === undefined) return skipped(noHash.skip.code, noHash.skip.reason);
    if (noHash.warning) warnings.push(noHash.warning);
    if (noHash.method?.recipeId === 'passwordless' && phoneMethod) {
      // One passwordless login method may hold both an email and a phone number.
      phoneMethod.email = email;
      phoneMethod.isVerified = emailVerified;
    } else if (noHash.method) {
      methods.push(noHash.method);
    }
  }
  if (phoneMethod) methods.push(phoneMethod);
  // SPEC §21: the user's passkeys as one webauthn login method, linked to the others (a passkey-only user has its --no-hash method too).
  const webauthn = ctx.passkeys ? webauthnMethodOf(sourceId, ctx.passkeys, opts.passkeys, email, emailVerified, warnings) : undefined;
  if (webauthn !== undefined) methods.push(webauthn);

  // raw_user_meta_data, then raw_app_meta_data without the provider bookkeeping: the app's values win.
  const { provider: _provider, providers: _providers, ...app } = appMeta;
  const clashes = Object.keys(app).filter((k) => Object.hasOwn(userMeta, k) && JSON.stringify(userMeta[k]) !== JSON.stringify(app[k]));
  if (clashes.length > 0)
    warnings.push({
      code: 'metadata-key-clash',
      text: `raw_user_meta_data and raw_app_meta_data both hold ${clashes.join(', ')}: raw_app_meta_data's values are kept`,
    });

  return assembleUser({
    sourceId,
    createdAt,
    methods,
    metadata: { ...userMeta, ...app },
    warnings,
    disabled: banned ? 'banned' : undefined,
    opts,
    factors: ctx.factors,
    emptyReason:
      !ctx.identities && social.length > 0
        ? { code: 'no-login-method', reason: `only ${social.join(', ')} sign-in, and no --identities file to import it from`, needsAction: true }
        : { code: 'no-login-method', reason: 'no email, phone number or identity that can be imported', needsAction: false },
  });
}

/** `auth.identities`, indexed by user: read whole before the users (it is the smaller table). */
export type IdentityIndex = UserJoin<SupabaseIdentity>;

/** Reads `auth.identities` (`--identities`): each identity under its user. */
export function readIdentities(file: string): Promise<IdentityIndex> {
  return UserJoin.read(file, IDENTITIES, (v, at) => {
    const userId = text(v.user_id);
    const provider = text(v.provider);
    const providerId = text('provider_id' in v ? v.provider_id : v.id);
    const data = jsonObject(v.identity_data);
    if (userId === undefined || provider === undefined || providerId === undefined || data === undefined) {
      const what = userId === undefined ? 'user_id' : provider === undefined ? 'provider' : providerId === undefined ? 'provider_id' : 'identity_data';
      return { unreadable: `${at}: no readable ${what}` };
    }
    return { userId, item: { provider: provider.trim().toLowerCase(), providerId, data } };
  });
}

export interface SupabaseSourceOptions {
  readonly opts: MapOptions;
  readonly identities?: IdentityIndex;
  readonly factors?: FactorIndex;
  readonly passkeys?: PasskeyIndex;
  readonly now?: number;
}

export function supabaseSource(file: string, options: SupabaseSourceOptions): Source {
  const now = options.now ?? Date.now();
  const { identities, factors, passkeys } = options;
  const plan = options.opts.passkeys;
  return {
    async *users() {
      plan?.startRead();
      // Whether the service imports passkeys of --webauthn-rp-id, before the first user (and any write).
      if (plan !== undefined && passkeys !== undefined && passkeys.rows > 0 && plan.rpIdOption !== undefined)
        await plan.ensure([plan.rpIdOption], plan.rpIdOption);
      for await (const row of tableRows(file, USERS)) {
        if ('unreadable' in row) {
          const first = row.firstCell;
          const sourceId = first !== undefined && /^[0-9a-f-]{36}$/i.test(first) ? first : `#${row.at}`;
          yield failedUser(sourceId, undefined, 'row-unreadable', row.unreadable);
          continue;
        }
        const id = text(row.value.id);
        const joined = {
          ...(identities && id !== undefined ? { identities: identities.of(id) } : {}),
          ...(factors && id !== undefined ? { factors: factors.of(id) } : {}),
          ...(passkeys && id !== undefined ? { passkeys: passkeys.of(id) } : {}),
        };
        yield mapSupabaseUser(row.value, { opts: options.opts, now, ...joined }, row.at);
      }
    },
    notes() {
      return {
        ...(identities ? { orphanIdentityRows: identities.orphans(), unreadableIdentityRows: identities.unreadable } : {}),
        ...(factors
          ? { orphanMfaFactorRows: factors.orphans(), unreadableMfaFactorRows: factors.unreadable }
          : { mfa: 'second factors are in auth.mfa_factors, which was not given: carry them with --mfa-factors' }),
        ...(passkeys ? { orphanWebauthnCredentialRows: passkeys.orphans(), unreadableWebauthnCredentialRows: passkeys.unreadable } : {}),
        ...(plan?.notes() ?? {}),
      };
    },
  };
}
