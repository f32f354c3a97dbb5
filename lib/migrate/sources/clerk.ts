import { assembleUser, emailOf, failedUser, noHashLoginMethod, phoneOf, unsupportedHashLoginMethod } from '../mapping';
import type { SecondFactor } from '../mfa';
import type { BulkLoginMethodInput, MapOptions, MappedUser, NotImported, Source, Warning } from '../model';
import { tableSource, type TableSpec } from '../table';

/**
 * Clerk (SPEC §17b): the dashboard's CSV export of the users (a header row; lists of addresses
 * `|`-separated; read by `../table.ts`). It has no date column: the creation time is the one in the
 * id, a KSUID. A `totp_secret` becomes a TOTP device (SPEC §20).
 */

type Obj = Record<string, unknown>;

const USERS: TableSpec = {
  what: "a Clerk users export (the dashboard's CSV with its header row)",
  required: [
    ['id'],
    ['primary_email_address'],
    ['primary_phone_number'],
    ['verified_email_addresses'],
    ['verified_phone_numbers'],
    ['totp_secret'],
    ['password_digest'],
    ['password_hasher'],
  ],
};

const cell = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const list = (v: unknown): string[] =>
  cell(v)
    .split('|')
    .map((x) => x.trim())
    .filter((x) => x !== '');

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KSUID_ID = /^user_([0-9A-Za-z]{27})$/;
/** KSUID's epoch: its timestamps count seconds from 2014-05-13T16:53:20Z. */
const KSUID_EPOCH_S = 1_400_000_000;

/**
 * The creation time (ms) in a Clerk id `user_<KSUID>`: the 27 base62 characters are a 160-bit
 * big-endian number whose first 4 bytes are seconds since `KSUID_EPOCH_S`; undefined when the id
 * is no KSUID (another form, or a number past 160 bits).
 */
export function ksuidTime(id: string): number | undefined {
  const m = KSUID_ID.exec(id);
  if (!m) return undefined;
  let n = 0n;
  for (const c of m[1]) n = n * 62n + BigInt(BASE62.indexOf(c));
  if (n >> 160n !== 0n) return undefined;
  return (Number(n >> 128n) + KSUID_EPOCH_S) * 1000;
}

/** `password_hasher` → the `hashingAlgorithm` of its family (SPEC §7b); any other hasher is not sent. */
const HASHER_FAMILIES: Readonly<Record<string, string>> = {
  bcrypt: 'bcrypt',
  argon2i: 'argon2',
  argon2id: 'argon2',
  bcrypt_sha256_django: 'bcrypt_sha256',
  pbkdf2_sha256_django: 'pbkdf2',
  phpass: 'phpass',
  scrypt_werkzeug: 'werkzeug',
  ldap_ssha: 'ldap',
};

export interface ClerkMapContext {
  readonly opts: MapOptions;
  /** The run's start (ms): the creation time of a user whose id holds none. */
  readonly now: number;
}

/** Maps one row of the export to a bulk user (or says why it is not imported); `at` names the row. */
export function mapClerkUser(raw: Obj, ctx: ClerkMapContext, at: string): MappedUser {
  const { opts } = ctx;
  const warnings: Warning[] = [];
  const sourceId = cell(raw.id);
  if (sourceId === '') return failedUser(`#${at}`, undefined, 'row-unreadable', `${at} has no id`);
  let createdAt = ksuidTime(sourceId);
  if (createdAt === undefined) {
    createdAt = ctx.now;
    warnings.push({ code: 'bad-created-at', text: 'the id is not user_ and a KSUID, which holds the creation time: timeJoined is the import time' });
  }
  // Clerk's TOTP is SHA-1, 6 digits, 30 s, its secret base32; no export holds its backup codes.
  const totp = cell(raw.totp_secret);
  const factors: SecondFactor[] = totp === '' ? [] : [{ kind: 'totp', what: 'the authenticator app (totp_secret)', secret: totp, period: 30, skew: 1 }];

  const verifiedEmails = new Set(list(raw.verified_email_addresses).map(emailOf));
  const verifiedPhones = new Set(list(raw.verified_phone_numbers).map(phoneOf));
  const primary = emailOf(raw.primary_email_address);
  if (cell(raw.primary_email_address) !== '' && primary === undefined)
    warnings.push({ code: 'bad-email', text: 'primary_email_address is not an email address: not imported' });

  const methods: BulkLoginMethodInput[] = [];
  /** `--no-hash skip` and a primary email without a usable password. */
  let skip: NotImported | undefined;
  const digest = cell(raw.password_digest);
  const hasher = cell(raw.password_hasher).toLowerCase();
  const family = Object.hasOwn(HASHER_FAMILIES, hasher) ? HASHER_FAMILIES[hasher] : undefined;
  if (primary === undefined) {
    if (digest !== '') warnings.push({ code: 'password-not-migrated', text: 'a password but no primary email address: the password is not imported' });
  } else if (digest !== '' && family !== undefined) {
    methods.push({
      recipeId: 'emailpassword',
      tenantIds: [],
      isVerified: verifiedEmails.has(primary),
      email: primary,
      passwordHash: digest,
      hashingAlgorithm: family,
    });
  } else {
    const noHash =
      digest === ''
        ? noHashLoginMethod(primary, verifiedEmails.has(primary), opts, 'no password')
        : unsupportedHashLoginMethod(
            primary,
            verifiedEmails.has(primary),
            opts,
            hasher === '' ? 'a password digest without its password_hasher' : `a password_hasher ${JSON.stringify(hasher.slice(0, 40))} digest`,
          );
    skip = noHash.skip;
    if (noHash.warning) warnings.push(noHash.warning);
    if (noHash.method) methods.push(noHash.method);
  }
  // Every other verified address and phone number signs in without a password; unverified ones are dropped.
  for (const email of verifiedEmails)
    if (email !== undefined && email !== primary) methods.push({ recipeId: 'passwordless', tenantIds: [], isVerified: true, email });
  const phone = phoneOf(raw.primary_phone_number);
  if (cell(raw.primary_phone_number) !== '' && phone === undefined)
    warnings.push({ code: 'bad-phone', text: 'primary_phone_number is not in international format: not imported' });
  if (phone !== undefined) methods.push({ recipeId: 'passwordless', tenantIds: [], isVerified: verifiedPhones.has(phone), phoneNumber: phone });
  for (const other of verifiedPhones)
    if (other !== undefined && other !== phone) methods.push({ recipeId: 'passwordless', tenantIds: [], isVerified: true, phoneNumber: other });

  // With other login methods, `--no-hash skip` drops the primary email only.
  if (skip && methods.length > 0) warnings.push({ code: skip.code, text: `${skip.reason}: the primary email only, the other login methods are imported` });
  return assembleUser({
    sourceId,
    createdAt,
    methods,
    metadata: Object.fromEntries(
      Object.entries({ first_name: cell(raw.first_name), last_name: cell(raw.last_name), username: cell(raw.username) }).filter(([, v]) => v !== ''),
    ),
    warnings,
    opts,
    factors,
    emptyReason: skip ?? { code: 'no-email', reason: 'no email address or phone number that can be imported', needsAction: false },
  });
}

export interface ClerkSourceOptions {
  readonly opts: MapOptions;
  readonly now?: number;
}

export function clerkSource(file: string, options: ClerkSourceOptions): Source {
  const ctx: ClerkMapContext = { opts: options.opts, now: options.now ?? Date.now() };
  return tableSource(file, USERS, (value, at) => mapClerkUser(value, ctx, at));
}
