import { assembleUser, emailOf, failedUser, noHashLoginMethod, phoneOf, thirdPartyIdOf } from '../mapping';
import { quoted, type SecondFactor } from '../mfa';
import type { BulkLoginMethodInput, MapOptions, MappedUser, Source, Warning } from '../model';
import { droppedConnection, enterpriseMethod } from '../connections';
import { DiskJoin } from '../disk-join';
import { UsageError } from '../errors';
import { passkeyKindsShown, passkeysNotExported } from '../passkeys';
import { ndjsonLines, type NdjsonLine } from '../read';

/** Auth0's SAML strategies (SPEC §22): unmapped, their identities are dropped (`enterprise-connection`). */
const SAML_STRATEGIES: ReadonlySet<string> = new Set(['samlp', 'adfs', 'pingfederate']);

/**
 * Auth0 (SPEC §17): the user export job's NDJSON (plain or gzipped) and the password-hash export
 * Auth0 support delivers (NDJSON of Mongo extended JSON). A hash line belongs to the identity
 * `provider: "auth0"` whose `user_id` is the line's `alt_id ?? _id.$oid`, searched in every
 * user's `identities[]`: not the top-level `user_id`, never the email.
 */

interface HashLine {
  readonly hash: string;
  readonly connection?: string;
  readonly email?: string;
}

/**
 * The hash export, indexed by the database identity's id, on disk (`../disk-join.ts`: SPEC §17c,
 * bounded memory; its scratch file is private and gone when the process ends).
 */
export class HashIndex {
  /** Lines that are not a hash line (not JSON, no id or no bcrypt hash): line numbers only. */
  readonly unreadable: { line: number; reason: string }[] = [];

  private constructor(private readonly join: DiskJoin<HashLine>) {}

  static async read(file: string): Promise<HashIndex> {
    const unreadable: { line: number; reason: string }[] = [];
    async function* lines(): AsyncGenerator<{ key: string; item: HashLine }> {
      for await (const line of ndjsonLines(file)) {
        if ('error' in line) {
          unreadable.push({ line: line.index + 1, reason: 'not JSON' });
          continue;
        }
        const v = line.value as Record<string, unknown> | null;
        const oid = (v?._id as { $oid?: unknown } | undefined)?.$oid;
        const id = typeof v?.alt_id === 'string' ? v.alt_id : typeof oid === 'string' ? oid : undefined;
        const hash = typeof v?.passwordHash === 'string' ? v.passwordHash : undefined;
        if (id === undefined || hash === undefined) {
          unreadable.push({ line: line.index + 1, reason: id === undefined ? 'no _id.$oid' : 'no passwordHash' });
          continue;
        }
        const identifiers = Array.isArray(v?.identifiers) ? (v.identifiers as { type?: unknown; value?: unknown }[]) : [];
        const email = typeof v?.email === 'string' ? v.email : identifiers.find((i) => i?.type === 'email' && typeof i.value === 'string')?.value;
        const connection = typeof v?.connection === 'string' ? v.connection : undefined;
        yield { key: id, item: { hash, ...(connection !== undefined ? { connection } : {}), ...(typeof email === 'string' ? { email } : {}) } };
      }
    }
    const index = new HashIndex(await DiskJoin.build(lines()));
    index.unreadable.push(...unreadable);
    return index;
  }

  /** The hash line of a database identity: by id, and by connection when an id is in several. */
  take(id: string, connection: string | undefined): HashLine | undefined {
    const lines = this.join.rows(id);
    const line = lines.length === 1 ? lines[0] : lines.find((l) => l.item.connection === connection);
    if (line) this.join.mark(line.ordinal);
    return line?.item;
  }

  /** Hash lines no user's identity joined (their ids and connections; never the hash). */
  orphans(): { id: string; connection?: string }[] {
    const out: { id: string; connection?: string }[] = [];
    for (const { key, item } of this.join.unmarked()) out.push({ id: key, ...(item.connection ? { connection: item.connection } : {}) });
    return out;
  }

  /** Marks every line unused again (the command reads the users twice). */
  reset(): void {
    this.join.unmarkAll();
  }
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);
const BCRYPT = /^\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{53}$/;

/**
 * The user's second factors (SPEC §20): the providers of `multifactor` (`guardian`,
 * `google-authenticator`, `duo`, …). Auth0 exports no MFA secret, so none is carried; each is an
 * authenticator, so the user sets one up again (`totp` required).
 */
export function auth0Factors(raw: Obj): SecondFactor[] {
  const providers = Array.isArray(raw.multifactor) ? raw.multifactor.filter((p): p is string => typeof p === 'string' && p.trim() !== '') : [];
  if (providers.length === 0) return [];
  const what = `the Auth0 MFA (multifactor ${providers.map((p) => quoted(p)).join(', ')})`;
  return [{ kind: 'lost', what, why: 'Auth0 exports no MFA secret', authenticator: true }];
}

/** Auth0's names of a WebAuthn credential: a passkey, and the two WebAuthn MFA factors. */
const AUTH0_PASSKEYS: ReadonlySet<string> = new Set(['passkey', 'webauthn-roaming', 'webauthn-platform']);

export interface Auth0MapContext {
  readonly opts: MapOptions;
  readonly hashes?: HashIndex;
}

/** Maps one exported Auth0 user to a bulk user (or says why it is not imported). */
export function mapAuth0User(raw: Obj, ctx: Auth0MapContext): MappedUser {
  const { opts } = ctx;
  const warnings: Warning[] = [];
  const sourceId = str(raw.user_id);
  const createdMs = typeof raw.created_at === 'string' ? Date.parse(raw.created_at) : NaN;
  const createdAt = Number.isFinite(createdMs) ? createdMs : undefined;
  if (raw.created_at !== undefined && createdAt === undefined)
    warnings.push({ code: 'bad-created-at', text: 'created_at is not a date: timeJoined is the import time' });
  if (sourceId === undefined) return failedUser('#no-user_id', createdAt, 'no-source-id', 'the record has no user_id', warnings);

  const identities = Array.isArray(raw.identities) ? (raw.identities as Obj[]).filter((i) => i !== null && typeof i === 'object') : [];
  const methods: BulkLoginMethodInput[] = [];
  let unsupported: string | undefined;
  let droppedSaml = false;
  identities.forEach((identity, i) => {
    const profile = (identity.profileData ?? {}) as Obj;
    // The root fields describe the first identity; a linked one carries its own in profileData.
    const own = i === 0 ? raw : profile;
    const provider = str(identity.provider) ?? '';
    const idUserId = str(identity.user_id) ?? '';
    const email = emailOf(own.email);
    const verified = own.email_verified === true;
    if (provider === 'auth0') {
      const line = ctx.hashes?.take(idUserId, str(identity.connection));
      const dbEmail = email ?? emailOf(line?.email);
      if (dbEmail === undefined) {
        warnings.push({ code: 'identity-without-email', text: `database identity ${idUserId} has no email: not imported` });
        return;
      }
      if (line === undefined) {
        const noHash = noHashLoginMethod(dbEmail, verified, opts, 'database user with no line in the hash file');
        if (noHash.skip) warnings.push({ code: noHash.skip.code, text: noHash.skip.reason });
        if (noHash.warning) warnings.push(noHash.warning);
        if (noHash.method) methods.push(noHash.method);
        return;
      }
      if (!BCRYPT.test(line.hash)) {
        warnings.push({ code: 'bad-password-hash', text: `the hash line of database identity ${idUserId} is not a bcrypt hash: the password is not imported` });
        return;
      }
      methods.push({ recipeId: 'emailpassword', tenantIds: [], isVerified: verified, email: dbEmail, passwordHash: line.hash, hashingAlgorithm: 'BCRYPT' });
    } else if (provider === 'sms') {
      const phone = phoneOf(own.phone_number);
      if (phone === undefined) warnings.push({ code: 'bad-phone', text: `sms identity ${idUserId} has no phone number in international format: not imported` });
      else methods.push({ recipeId: 'passwordless', tenantIds: [], isVerified: true, phoneNumber: phone });
    } else if (provider === 'email') {
      if (email === undefined) warnings.push({ code: 'identity-without-email', text: `email identity ${idUserId} has no email: not imported` });
      else methods.push({ recipeId: 'passwordless', tenantIds: [], isVerified: true, email });
    } else if (identity.isSocial === true) {
      const socialEmail = email ?? emailOf(raw.email);
      if (socialEmail === undefined) {
        warnings.push({ code: 'identity-without-email', text: `${provider} identity ${idUserId} has no email anywhere in the record: not imported` });
        return;
      }
      methods.push({
        recipeId: 'thirdparty',
        tenantIds: [],
        isVerified: email !== undefined && verified,
        email: socialEmail,
        thirdPartyId: thirdPartyIdOf(provider),
        thirdPartyUserId: idUserId,
      });
    } else {
      // SPEC §22: an enterprise connection the mapping names → a third-party method of its tenant's provider.
      const entry = ctx.opts.connections?.get(str(identity.connection) ?? '');
      const enterpriseEmail = email ?? emailOf(raw.email);
      if (entry !== undefined && enterpriseEmail !== undefined && idUserId !== '') {
        // Verified as a third-party method: its own claim, else as the user's email when it is the same.
        const claimed = own.email_verified;
        const isVerified = typeof claimed === 'boolean' ? claimed : enterpriseEmail === emailOf(raw.email) && raw.email_verified === true;
        methods.push(enterpriseMethod(entry, idUserId, enterpriseEmail, isVerified));
        return;
      }
      if (entry !== undefined) {
        warnings.push({ code: 'identity-without-email', text: `${provider} identity ${idUserId} has no email anywhere in the record: not imported` });
        return;
      }
      if (SAML_STRATEGIES.has(provider)) {
        droppedSaml = true;
        warnings.push(droppedConnection(`the ${provider} identity ${idUserId} of connection ${str(identity.connection) ?? '(none)'}`));
        return;
      }
      unsupported = provider;
      warnings.push({
        code: 'unsupported-provider',
        text: `${provider} (enterprise) identity ${idUserId} not migrated: its connection ${str(identity.connection) ?? '(none)'} is not one --connections maps`,
      });
    }
  });

  // `--no-hash skip` on a user with nothing else: the skip is the reason, not a warning.
  const skipWarning = methods.length === 0 ? warnings.find((w) => w.code === 'no-password-hash' && opts.noHash === 'skip') : undefined;
  const appMetadata = (raw.app_metadata !== null && typeof raw.app_metadata === 'object' && !Array.isArray(raw.app_metadata) ? raw.app_metadata : {}) as Obj;
  const userMetadata = (
    raw.user_metadata !== null && typeof raw.user_metadata === 'object' && !Array.isArray(raw.user_metadata) ? raw.user_metadata : {}
  ) as Obj;
  const { roles: rawRoles, ...appRest } = appMetadata;
  const roles = Array.isArray(rawRoles) ? rawRoles.filter((r): r is string => typeof r === 'string' && r.trim() !== '').map((r) => r.trim()) : [];
  if (rawRoles !== undefined && !Array.isArray(rawRoles)) appRest.roles = rawRoles;
  const metadata = { ...userMetadata, ...appRest };
  // SPEC §21: passkeys (and WebAuthn factors) the record lists, which no Auth0 export carries the keys of.
  const passkeys = [...passkeyKindsShown(raw.multifactor, AUTH0_PASSKEYS), ...passkeyKindsShown(raw.authentication_methods, AUTH0_PASSKEYS, 'type')];
  if (passkeys.length > 0) warnings.push(passkeysNotExported('Auth0', `the user's passkeys (${[...new Set(passkeys)].join(', ')})`));

  return assembleUser({
    sourceId,
    createdAt,
    methods,
    metadata,
    roles,
    warnings: skipWarning ? warnings.filter((w) => w !== skipWarning) : warnings,
    disabled: raw.blocked === true ? 'blocked' : undefined,
    opts,
    factors: auth0Factors(raw),
    emptyReason: skipWarning
      ? { code: 'no-password-hash', reason: skipWarning.text, needsAction: false }
      : droppedSaml && unsupported === undefined
        ? { code: 'enterprise-connection', reason: 'only SAML sign-in through a connection --connections does not map: not migrated', needsAction: false }
        : unsupported !== undefined
          ? { code: 'unsupported-provider', reason: `only an enterprise (${unsupported}) identity: not migrated`, needsAction: false }
          : { code: 'no-login-method', reason: 'no email, phone number or identity that can be imported', needsAction: false },
  });
}

/**
 * The first line decides whether a file is Auth0's user export at all: a user object with a
 * `user_id`. A pretty-printed or array JSON document, or another source's file, is refused (exit 2)
 * instead of failing every line as `not-an-account`; a later line that is not a user fails alone.
 */
function assertExportLine(file: string, first: NdjsonLine): void {
  const value = 'error' in first ? undefined : first.value;
  const what =
    'error' in first
      ? 'is not JSON (a pretty-printed JSON document? the export job writes one user per line)'
      : Array.isArray(value)
        ? 'is a JSON array, not a user object'
        : value === null || typeof value !== 'object'
          ? 'is not a user object'
          : typeof (value as Obj).user_id !== 'string'
            ? 'has no user_id (export the user_id field)'
            : undefined;
  if (what !== undefined) throw new UsageError(`${file} is not an Auth0 user export (NDJSON, one user object per line): line ${first.index + 1} ${what}.`);
}

export function auth0Source(file: string, ctx: Auth0MapContext): Source {
  return {
    createsRoles: true,
    async *users() {
      ctx.hashes?.reset();
      let first = true;
      for await (const line of ndjsonLines(file)) {
        if (first) assertExportLine(file, line);
        first = false;
        if ('error' in line) {
          yield failedUser(`#line-${line.index + 1}`, undefined, 'not-an-account', `line ${line.index + 1} is not JSON`);
          continue;
        }
        const value = line.value;
        if (value === null || typeof value !== 'object' || Array.isArray(value)) {
          yield failedUser(`#line-${line.index + 1}`, undefined, 'not-an-account', `line ${line.index + 1} is not a user object`);
          continue;
        }
        yield mapAuth0User(value as Obj, ctx);
      }
    },
    notes() {
      if (!ctx.hashes) return {};
      return { orphanHashLines: ctx.hashes.orphans(), unreadableHashLines: ctx.hashes.unreadable };
    },
  };
}
