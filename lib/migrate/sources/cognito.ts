import { chain } from 'stream-chain';
import { parser } from 'stream-json';
import { enterpriseMethod } from '../connections';
import { DiskJoin } from '../disk-join';
import { UsageError } from '../errors';
import { assembleUser, emailOf, failedUser, noHashLoginMethod, phoneOf, thirdPartyIdOf, timestampOf, nonEmpty } from '../mapping';
import type { SecondFactor } from '../mfa';
import type { BulkLoginMethodInput, MapOptions, MappedUser, Source, Warning } from '../model';
import { passkeyKindsShown, passkeysNotExported } from '../passkeys';
import { documentsArrays, openText, PARSER_OPTIONS } from '../read';

/**
 * Cognito (SPEC §17b): `aws cognito-idp list-users` output, one `{"Users":[…]}` document, several
 * concatenated (pages) or one per line, and optionally `--groups`: `{"<group>": <list-users-in-group
 * output>, …}`, joined on `Username`, the groups becoming roles. Cognito never exports password
 * hashes: a password user gets the `--no-hash` mode, `migrate-on-signin` by default (SPEC §16b).
 */

type Obj = Record<string, unknown>;

const WHAT = 'aws cognito-idp list-users output ({"Users":[…]})';
const GROUPS_WHAT = '--groups file ({"<group>": <aws cognito-idp list-users-in-group output>, …})';

/** Attributes that are login methods or their flags: every other one is metadata. */
const LOGIN_ATTRIBUTES = new Set(['sub', 'email', 'email_verified', 'phone_number', 'phone_number_verified', 'identities']);

/** Cognito's social `providerType`s → the SDK's `thirdPartyId`s; another keeps its name, lower-cased. */
const SOCIAL: Readonly<Record<string, string>> = { Google: 'google', Facebook: 'facebook', SignInWithApple: 'apple', LoginWithAmazon: 'amazon' };
/** Enterprise connections: not migrated (SPEC §17b `enterprise-connection`). */
const ENTERPRISE = new Set(['OIDC', 'SAML']);

/** Cognito's boolean attributes are the strings `"true"` and `"false"`. */
const isTrue = (v: unknown): boolean => v === 'true' || v === true;

/**
 * `UserCreateDate` in ms: epoch seconds with a fraction (the API, CLI v1, cognito-local; the
 * fraction's first three digits are the ms, the rest truncated) or ISO 8601 (CLI v2).
 */
export function createDateOf(v: unknown): number | undefined {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) return undefined;
    // Through the decimal text, so that 1675397106.123 is …123 ms, never …122.9999.
    const m = /^(\d+)(?:\.(\d+))?$/.exec(String(v));
    return m ? Number(m[1]) * 1000 + Number((m[2] ?? '').padEnd(3, '0').slice(0, 3)) : Math.floor(v * 1000);
  }
  const ms = timestampOf(v);
  return ms !== undefined && Number.isFinite(ms) ? ms : undefined;
}

/** `Attributes` (`[{Name, Value}]`) as a map; undefined when it is not such a list. */
function attributesOf(v: unknown): Map<string, string> | undefined {
  if (!Array.isArray(v)) return undefined;
  const attributes = new Map<string, string>();
  for (const a of v) {
    if (a === null || typeof a !== 'object') continue;
    const { Name, Value } = a as Obj;
    if (typeof Name === 'string' && typeof Value === 'string') attributes.set(Name, Value);
  }
  return attributes;
}

interface Identity {
  readonly providerName: string;
  readonly providerType: string;
  readonly userId?: string;
}

/** The `identities` attribute: a JSON string of a list; undefined when it is not one. */
function identitiesOf(v: string | undefined): Identity[] | undefined {
  if (v === undefined) return [];
  let list: unknown;
  try {
    list = JSON.parse(v);
  } catch {
    return undefined;
  }
  if (!Array.isArray(list)) return undefined;
  return list
    .filter((i): i is Obj => i !== null && typeof i === 'object')
    .map((i) => {
      const providerName = nonEmpty(i.providerName) ?? nonEmpty(i.providerType) ?? 'unknown';
      const userId = nonEmpty(i.userId) ?? (typeof i.userId === 'number' ? String(i.userId) : undefined);
      return { providerName, providerType: nonEmpty(i.providerType) ?? providerName, ...(userId !== undefined ? { userId } : {}) };
    });
}

/**
 * The user's second factors (SPEC §20): SMS MFA as `list-users` shows it (the deprecated
 * `MFAOptions`, its codes sent to `phone_number`), and `UserMFASettingList` when the record has it
 * (`admin-get-user` output): `SMS_MFA` as SMS, `SOFTWARE_TOKEN_MFA` reported (Cognito never lets a
 * TOTP secret be read), `EMAIL_OTP` reported.
 */
export function cognitoFactors(raw: Obj, phone: string | undefined): SecondFactor[] {
  const factors: SecondFactor[] = [];
  const sms = (what: string) => {
    if (factors.some((f) => f.kind === 'sms')) return;
    factors.push(phone !== undefined ? { kind: 'sms', what, phone } : { kind: 'lost', what, why: 'the user has no phone_number in international format' });
  };
  for (const option of Array.isArray(raw.MFAOptions) ? raw.MFAOptions : []) {
    const { DeliveryMedium: medium, AttributeName: attribute } = (option ?? {}) as Obj;
    if (medium === 'SMS' && (attribute === undefined || attribute === 'phone_number')) sms('SMS MFA (MFAOptions)');
    else factors.push({ kind: 'lost', what: `MFAOptions ${JSON.stringify(option).slice(0, 80)}`, why: 'only SMS to phone_number is carried' });
  }
  for (const setting of Array.isArray(raw.UserMFASettingList) ? raw.UserMFASettingList : []) {
    if (setting === 'SMS_MFA') sms('SMS MFA (UserMFASettingList)');
    else if (setting === 'SOFTWARE_TOKEN_MFA')
      factors.push({ kind: 'lost', what: 'TOTP MFA (SOFTWARE_TOKEN_MFA)', why: 'Cognito never lets a TOTP secret be read', authenticator: true });
    else factors.push({ kind: 'lost', what: `MFA ${JSON.stringify(String(setting).slice(0, 40))}`, why: 'only SMS MFA is carried' });
  }
  return factors;
}

/** What the report says of MFA that `list-users` does not show (SPEC §20). */
const MFA_NOTE =
  'list-users shows SMS MFA only in the deprecated MFAOptions: TOTP (software token) MFA and SMS MFA set by set-user-mfa-preference (UserMFASettingList) are not in it, and no TOTP secret is ever readable; those users sign in with one factor until they enrol again';

export interface CognitoMapContext {
  readonly opts: MapOptions;
  /** The groups of the user (by its `Username`) in the `--groups` file. */
  readonly groups?: readonly string[];
}

/** Maps one user of `list-users` to a bulk user (or says why it is not imported); `at` names it (`user 3`). */
export function mapCognitoUser(raw: Obj, ctx: CognitoMapContext, at: string): MappedUser {
  const { opts } = ctx;
  const warnings: Warning[] = [];
  const createdAt = createDateOf(raw.UserCreateDate);
  if (raw.UserCreateDate !== undefined && createdAt === undefined)
    warnings.push({
      code: 'bad-created-at',
      text: `UserCreateDate ${JSON.stringify(String(raw.UserCreateDate).slice(0, 40))} is not a time: timeJoined is the import time`,
    });
  const attributes = attributesOf(raw.Attributes) ?? new Map<string, string>();
  const sourceId = nonEmpty(attributes.get('sub'));
  if (sourceId === undefined) return failedUser(`#${at}`, createdAt, 'no-source-id', `${at} has no sub attribute`, warnings);
  const skipped = (code: string, reason: string): MappedUser => ({
    sourceId,
    ...(createdAt !== undefined ? { createdAt } : {}),
    warnings,
    notImported: { outcome: 'skipped', code, reason, needsAction: false },
  });

  const identities = identitiesOf(attributes.get('identities'));
  if (identities === undefined) return failedUser(sourceId, createdAt, 'row-unreadable', `${at}: its identities attribute is not a JSON list`, warnings);
  const status = nonEmpty(raw.UserStatus);
  const federated = status === 'EXTERNAL_PROVIDER';
  const social = identities.filter((i) => !ENTERPRISE.has(i.providerType));
  // SPEC §22: an enterprise identity whose providerName the mapping names signs in through its tenant's provider.
  const mapped = identities.flatMap((i) => {
    const entry = ENTERPRISE.has(i.providerType) ? opts.connections?.get(i.providerName) : undefined;
    return entry !== undefined ? [{ identity: i, entry }] : [];
  });
  const enterprise = identities.filter((i) => ENTERPRISE.has(i.providerType) && !mapped.some((m) => m.identity === i));
  const names = (list: Identity[]) => list.map((i) => `${i.providerName} (${i.providerType})`).join(', ');
  if (federated && enterprise.length > 0 && social.length === 0 && mapped.length === 0)
    return skipped('enterprise-connection', `only ${names(enterprise)} sign-in: an enterprise connection --connections does not map is not migrated`);
  if (enterprise.length > 0) warnings.push({ code: 'identity-not-migrated', text: `${names(enterprise)} sign-in is an enterprise connection: not imported` });

  const rawEmail = attributes.get('email');
  const email = emailOf(rawEmail);
  if (rawEmail !== undefined && email === undefined)
    warnings.push({ code: 'bad-email', text: `email ${JSON.stringify(rawEmail.slice(0, 80))} is not an email address: not imported` });
  const emailVerified = isTrue(attributes.get('email_verified'));
  const rawPhone = attributes.get('phone_number');
  const phone = phoneOf(rawPhone);
  if (rawPhone !== undefined && phone === undefined)
    warnings.push({ code: 'bad-phone', text: `phone_number ${JSON.stringify(rawPhone.slice(0, 40))} is not a phone number: not imported` });

  const methods: BulkLoginMethodInput[] = [];
  for (const { identity, entry } of mapped) {
    if (identity.userId === undefined) warnings.push({ code: 'identity-unreadable', text: `${identity.providerName} identity has no userId: not imported` });
    else if (email === undefined)
      warnings.push({ code: 'identity-without-email', text: `${identity.providerName} identity ${identity.userId} has no email in the record: not imported` });
    else methods.push(enterpriseMethod(entry, identity.userId, email, emailVerified));
  }
  for (const identity of social) {
    if (identity.userId === undefined) {
      warnings.push({ code: 'identity-unreadable', text: `${identity.providerName} identity has no userId: not imported` });
    } else if (email === undefined) {
      warnings.push({ code: 'identity-without-email', text: `${identity.providerName} identity ${identity.userId} has no email in the record: not imported` });
    } else {
      methods.push({
        recipeId: 'thirdparty',
        tenantIds: [],
        isVerified: emailVerified,
        email,
        thirdPartyId: SOCIAL[identity.providerType] ?? thirdPartyIdOf(identity.providerName.toLowerCase()),
        thirdPartyUserId: identity.userId,
      });
    }
  }

  const phoneMethod: BulkLoginMethodInput | undefined =
    phone === undefined
      ? undefined
      : { recipeId: 'passwordless', tenantIds: [], isVerified: isTrue(attributes.get('phone_number_verified')), phoneNumber: phone };
  // A federated user has no Cognito password; every other status has one, which Cognito never exports.
  let emailMethod: BulkLoginMethodInput | undefined;
  if (!federated && status === 'RESET_REQUIRED') {
    warnings.push({
      code: 'password-reset-required',
      text: 'Cognito requires a password reset (RESET_REQUIRED), so it would refuse the old password: imported without one, to sign in by email or phone code',
    });
    if (email !== undefined) emailMethod = { recipeId: 'passwordless', tenantIds: [], isVerified: emailVerified, email };
  } else if (!federated && email !== undefined) {
    const noHash = noHashLoginMethod(email, emailVerified, opts, 'Cognito never exports password hashes');
    if (noHash.skip && methods.length === 0 && phoneMethod === undefined) return skipped(noHash.skip.code, noHash.skip.reason);
    if (noHash.skip) warnings.push({ code: noHash.skip.code, text: `the password is not imported (${noHash.skip.reason})` });
    if (noHash.warning) warnings.push(noHash.warning);
    emailMethod = noHash.method;
  } else if (!federated && phone !== undefined) {
    warnings.push({
      code: 'password-not-migrated',
      text: 'a password but no email (a phone-only user): the password is not imported, the phone signs in by code',
    });
  }
  if (emailMethod?.recipeId === 'passwordless' && phoneMethod) {
    // One passwordless login method may hold both an email and a phone number.
    phoneMethod.email = emailMethod.email;
    phoneMethod.isVerified = emailMethod.isVerified;
  } else if (emailMethod) {
    methods.push(emailMethod);
  }
  if (phoneMethod) methods.push(phoneMethod);

  // `custom:<x>` → `<x>`, every other attribute that is not a login method under its name: a custom one wins.
  const metadata: Obj = {};
  const clashes: string[] = [];
  for (const [name, value] of attributes) {
    if (LOGIN_ATTRIBUTES.has(name) || name.startsWith('custom:')) continue;
    metadata[name] = value;
  }
  for (const [name, value] of attributes) {
    if (!name.startsWith('custom:')) continue;
    const key = name.slice('custom:'.length);
    if (Object.hasOwn(metadata, key) && metadata[key] !== value) clashes.push(key);
    metadata[key] = value;
  }
  if (clashes.length > 0)
    warnings.push({
      code: 'metadata-key-clash',
      text: `custom:${clashes.join(', custom:')} and the standard attribute of the same name: the custom value is kept`,
    });
  // SPEC §21: passkeys, as get-user-auth-factors lists them beside a record; Cognito never gives their public keys.
  if (passkeyKindsShown(raw.ConfiguredUserAuthFactors, new Set(['WEB_AUTHN'])).length > 0)
    warnings.push(passkeysNotExported('Cognito', "the user's passkeys (ConfiguredUserAuthFactors WEB_AUTHN)"));

  return assembleUser({
    sourceId,
    createdAt,
    methods,
    metadata,
    roles: ctx.groups,
    warnings,
    disabled: raw.Enabled === false ? 'disabled' : undefined,
    opts,
    factors: cognitoFactors(raw, phone),
    emptyReason: { code: 'no-email', reason: 'no email, phone number or identity that can be imported', needsAction: false },
  });
}

/** Whether a file holds nothing but white space. */
async function blank(file: string): Promise<boolean> {
  for await (const chunk of openText(file)) if (String(chunk).trim() !== '') return false;
  return true;
}

/**
 * The `--groups` file, indexed by `Username` on disk (`../disk-join.ts`: SPEC §17c, bounded
 * memory): one row per membership, the group's name; only the names are kept, read streamed.
 */
export class GroupIndex {
  private constructor(
    /** Each membership: the member's `Username` and the group; a row is marked once a user of the users file joined it. */
    private readonly join: DiskJoin<string>,
  ) {}

  static async read(file: string): Promise<GroupIndex> {
    const refuse = (why: string) => new UsageError(`${file} is not a ${GROUPS_WHAT}: ${why}.`);
    async function* memberships(): AsyncGenerator<{ key: string; item: string }> {
      // How deep a token is: 1 in the file's object, 2 in a group's, 3 in its Users, 4 in a user's.
      let depth = 0;
      let group = '';
      let groupKey: unknown;
      let inUsers = false;
      let userKey: unknown;
      let hasUsers = false;
      try {
        for await (const token of chain([openText(file), parser(PARSER_OPTIONS)]) as AsyncIterable<{ name: string; value?: unknown }>) {
          const end = token.name === 'endObject' || token.name === 'endArray';
          if (end) {
            depth--;
            if (depth === 1 && !hasUsers) throw refuse(`group ${JSON.stringify(group)} has no "Users" array`);
            if (depth === 2) inUsers = false;
            if (depth === 3) userKey = undefined;
            continue;
          }
          if (depth === 0) {
            if (token.name !== 'startObject') throw refuse(token.name === 'startArray' ? 'it is a JSON array' : 'it is not a JSON object');
          } else if (depth === 1 && token.name === 'keyValue') {
            group = String(token.value);
            hasUsers = false;
          } else if (depth === 1 && token.name !== 'startObject') {
            throw refuse(
              group === 'Users' && token.name === 'startArray'
                ? 'it is list-users output (a top-level "Users" array), not the users of each group'
                : `group ${JSON.stringify(group)} is not list-users-in-group output`,
            );
          } else if (depth === 2 && token.name === 'keyValue') {
            groupKey = token.value;
          } else if (depth === 2 && groupKey === 'Users') {
            if (token.name !== 'startArray') throw refuse(`the "Users" of group ${JSON.stringify(group)} is not an array`);
            hasUsers = true;
            inUsers = true;
          } else if (depth === 4 && inUsers && token.name === 'keyValue') {
            userKey = token.value;
          } else if (depth === 4 && inUsers && userKey === 'Username' && token.name === 'stringValue') {
            yield { key: String(token.value), item: group };
          }
          if (token.name === 'startObject' || token.name === 'startArray') depth++;
        }
      } catch (err) {
        if (err instanceof UsageError) throw err;
        throw refuse((await blank(file)) ? 'it is empty' : `it is not readable JSON (${(err as Error).message})`);
      }
    }
    return new GroupIndex(await DiskJoin.build(memberships()));
  }

  /**
   * The groups of a user, by its `Username`, each once, in the order the file names them. The
   * join looks the name up as its own JSON text: the name, cut from the users file's parser input,
   * is not kept (it would keep that whole chunk alive: measured for 100,000 users, a 161 MB peak
   * when every name was kept, 58 MB without).
   */
  of(username: string): string[] {
    const groups = new Set<string>();
    for (const { ordinal, item } of this.join.rows(username)) {
      this.join.mark(ordinal);
      groups.add(item);
    }
    return [...groups];
  }

  /** How many members of the groups are no user of the users file (a member's rows are marked together). */
  orphans(): number {
    let n = 0;
    for (const _member of this.join.unmarkedKeys()) n++;
    return n;
  }
}

export interface CognitoSourceOptions {
  readonly opts: MapOptions;
  readonly groups?: GroupIndex;
}

export function cognitoSource(file: string, options: CognitoSourceOptions): Source {
  const { opts, groups } = options;
  return {
    createsRoles: true,
    async *users() {
      try {
        for await (const { key, value } of documentsArrays(file, 'Users')) {
          const at = `user ${key + 1}`;
          if (value === null || typeof value !== 'object' || Array.isArray(value)) {
            yield failedUser(`#${at}`, undefined, 'not-a-user', `${at} is not an object`);
            continue;
          }
          const user = value as Obj;
          if (key === 0 && !('Attributes' in user) && !('Username' in user))
            throw new UsageError(`${file} is not ${WHAT}: its first user has neither Username nor Attributes.`);
          const username = nonEmpty(user.Username);
          yield mapCognitoUser(user, { opts, ...(groups && username !== undefined ? { groups: groups.of(username) } : {}) }, at);
        }
      } catch (err) {
        if (err instanceof UsageError) throw err;
        const why = (err as Error).message;
        throw new UsageError(`${file} is not ${WHAT}: ${/^(it|its) /.test(why) ? why : `it is not readable JSON (${why})`}.`);
      }
    },
    notes() {
      return { mfa: MFA_NOTE, ...(groups ? { groupMembersWithoutUser: groups.orphans() } : {}) };
    },
  };
}
