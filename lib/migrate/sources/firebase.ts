import { createReadStream } from 'node:fs';
import { UsageError } from '../errors';
import type { FirebaseHashConfig } from '../hash-config';
import { usersArray } from '../read';
import { exporterCsvRecords } from './firebase-csv';
import { assembleUser, emailOf, failedUser, noHashLoginMethod, phoneOf, standardBase64, thirdPartyIdOf, nonEmpty } from '../mapping';
import { quoted, type SecondFactor } from '../mfa';
import type { BulkLoginMethodInput, MapOptions, MappedUser, Source, Warning } from '../model';

/**
 * Firebase's `auth:export` (SPEC §17): JSON (`{"users":[…]}`, streamed, never loaded whole) or CSV
 * (no header, one cell per column firebase-tools writes and a trailing comma, read by the
 * exporter's own rule: `./firebase-csv.ts`), hash and salt in
 * standard base64 (the CLI) or base64url (Admin-SDK dumps), `createdAt` a string of ms, custom
 * claims a JSON string; `mfaInfo` holds the second factors (SPEC §20: `firebaseFactors`).
 */

/** One exported account, as either format gives it. */
export interface FirebaseRecord {
  readonly localId: string;
  readonly email?: string;
  readonly emailVerified: boolean;
  readonly passwordHash?: string;
  readonly salt?: string;
  readonly createdAt?: string;
  readonly phoneNumber?: string;
  readonly disabled: boolean;
  readonly customAttributes?: string;
  readonly providers: readonly { readonly providerId: string; readonly rawId: string; readonly email?: string }[];
  /** `mfaInfo`'s enrolments (JSON only: the CSV has no column for them). */
  readonly mfaInfo: readonly Record<string, unknown>[];
}

/**
 * The CSV columns of firebase-tools' `accountExporter` (`transUserToArray`): 0 localId, 1 email,
 * 2 emailVerified, 3 passwordHash, 4 salt, 5 displayName, 6 photoUrl, four cells per provider
 * (rawId, email, displayName, photoUrl) at the places below, 23 createdAt, 24 lastLoginAt,
 * 25 phoneNumber, 26 disabled, 27 customAttributes. Older versions stop after yahoo's place is
 * not there: 28 cells (google … github only).
 */
const CSV_PROVIDER_COLUMNS: readonly (readonly [string, number])[] = [
  ['google.com', 7],
  ['facebook.com', 11],
  ['twitter.com', 15],
  ['github.com', 19],
  ['apple.com', 28],
  ['microsoft.com', 32],
  ['gc.apple.com', 36],
  ['playgames.google.com', 40],
  ['linkedin.com', 44],
  ['yahoo.com', 48],
];
/** Cells of a record of today's exporter (52 and the empty one after the trailing comma), and of older ones (28 + 1). */
const CSV_WIDTHS = new Set([53, 52, 29, 28]);

function fromJson(raw: Record<string, unknown>): FirebaseRecord {
  const providers = Array.isArray(raw.providerUserInfo) ? (raw.providerUserInfo as Record<string, unknown>[]) : [];
  return {
    localId: String(raw.localId ?? ''),
    email: nonEmpty(raw.email),
    emailVerified: raw.emailVerified === true,
    passwordHash: nonEmpty(raw.passwordHash),
    salt: nonEmpty(raw.salt),
    createdAt: raw.createdAt === undefined ? undefined : String(raw.createdAt),
    phoneNumber: nonEmpty(raw.phoneNumber),
    disabled: raw.disabled === true,
    customAttributes: nonEmpty(raw.customAttributes),
    providers: providers
      .filter((p) => p !== null && typeof p === 'object' && nonEmpty(p.providerId) !== undefined && nonEmpty(p.rawId) !== undefined)
      .map((p) => ({ providerId: String(p.providerId), rawId: String(p.rawId), email: nonEmpty(p.email) })),
    mfaInfo: Array.isArray(raw.mfaInfo) ? raw.mfaInfo.filter((e): e is Record<string, unknown> => e !== null && typeof e === 'object') : [],
  };
}

function fromCsv(cells: readonly string[]): FirebaseRecord {
  const providers = CSV_PROVIDER_COLUMNS.filter(([, at]) => nonEmpty(cells[at]) !== undefined).map(([providerId, at]) => ({
    providerId,
    rawId: cells[at],
    email: nonEmpty(cells[at + 1]),
  }));
  return {
    localId: cells[0],
    email: nonEmpty(cells[1]),
    emailVerified: cells[2] === 'true',
    passwordHash: nonEmpty(cells[3]),
    salt: nonEmpty(cells[4]),
    createdAt: nonEmpty(cells[23]),
    phoneNumber: nonEmpty(cells[25]),
    disabled: cells[26] === 'true',
    customAttributes: nonEmpty(cells[27]),
    providers,
    mfaInfo: [],
  };
}

/** Identities that are not social logins: the password and phone of the account itself. */
const OWN_PROVIDERS = new Set(['password', 'phone', 'anonymous', 'firebase']);

/**
 * The user's second factors (SPEC §20), from Identity Platform's `MfaEnrollment`s: a phone
 * (`unobfuscatedPhoneInfo` when present: `phoneInfo` may be masked) is an SMS factor; a TOTP
 * enrolment has no secret in any export, an email one is not carried.
 */
export function firebaseFactors(enrolments: readonly Record<string, unknown>[]): SecondFactor[] {
  return enrolments.map((e): SecondFactor => {
    const name = nonEmpty(e.displayName);
    const named = (kind: string) => `the ${kind} second factor${name !== undefined ? ` ${quoted(name)}` : ''}`;
    if (e.phoneInfo !== undefined || e.unobfuscatedPhoneInfo !== undefined) {
      const phone = phoneOf(nonEmpty(e.unobfuscatedPhoneInfo) ?? e.phoneInfo);
      return phone !== undefined
        ? { kind: 'sms', what: named('SMS'), phone }
        : { kind: 'lost', what: named('SMS'), why: 'its phone number is masked or not in international format' };
    }
    if (e.totpInfo !== undefined) return { kind: 'lost', what: named('TOTP'), why: 'Firebase exports no TOTP secret', authenticator: true };
    if (e.emailInfo !== undefined) return { kind: 'lost', what: named('email'), why: 'email second factors are not carried' };
    return { kind: 'lost', what: named('unknown'), why: 'it is of no kind the export describes (phoneInfo, totpInfo, emailInfo)' };
  });
}

export interface FirebaseMapContext {
  readonly opts: MapOptions;
  /** Required once a user has a password hash. */
  readonly hashConfig?: FirebaseHashConfig;
}

/** Maps one exported account to a bulk user (or says why it is not imported). */
export function mapFirebaseUser(rec: FirebaseRecord, ctx: FirebaseMapContext): MappedUser {
  const { opts } = ctx;
  const sourceId = rec.localId;
  const warnings: Warning[] = [];
  const createdAt = rec.createdAt !== undefined && /^\d{1,15}$/.test(rec.createdAt.trim()) ? Number(rec.createdAt) : undefined;
  if (rec.createdAt !== undefined && createdAt === undefined) {
    warnings.push({
      code: 'bad-created-at',
      text: `createdAt ${JSON.stringify(rec.createdAt.slice(0, 40))} is not a time in ms: timeJoined is the import time`,
    });
  }
  if (sourceId === '') return failedUser('#no-localId', createdAt, 'no-source-id', 'the record has no localId', warnings);
  const email = emailOf(rec.email);
  if (rec.email !== undefined && email === undefined)
    warnings.push({ code: 'bad-email', text: `email ${JSON.stringify(rec.email.slice(0, 80))} is not an email address: not imported` });
  const phone = phoneOf(rec.phoneNumber);
  if (rec.phoneNumber !== undefined && phone === undefined)
    warnings.push({ code: 'bad-phone', text: `phoneNumber ${JSON.stringify(rec.phoneNumber.slice(0, 40))} is not in international format: not imported` });

  let metadata: Record<string, unknown> | undefined;
  if (rec.customAttributes !== undefined) {
    try {
      const claims: unknown = JSON.parse(rec.customAttributes);
      if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) throw new Error('not an object');
      metadata = claims as Record<string, unknown>;
    } catch {
      return failedUser(
        sourceId,
        createdAt,
        'bad-custom-claims',
        'customAttributes is not a JSON object: fix the record (its claims would be lost) and run again',
        warnings,
      );
    }
  }

  const methods: BulkLoginMethodInput[] = [];
  if (rec.passwordHash !== undefined) {
    const hash = standardBase64(rec.passwordHash);
    const salt = rec.salt === undefined ? undefined : standardBase64(rec.salt);
    if (hash === undefined) return failedUser(sourceId, createdAt, 'bad-password-hash', 'passwordHash is not base64 (standard or url-safe)', warnings);
    if (salt === undefined)
      return failedUser(
        sourceId,
        createdAt,
        'bad-password-hash',
        rec.salt === undefined ? 'passwordHash has no salt' : 'salt is not base64 (standard or url-safe)',
        warnings,
      );
    if (email === undefined) {
      warnings.push({ code: 'password-without-email', text: 'a password hash but no usable email: the password is not imported' });
    } else {
      if (ctx.hashConfig === undefined) {
        throw new UsageError(
          'the export holds password hashes: --hash-config <file> is required (Firebase console → Authentication → Users → ⋮ → Password hash parameters).',
        );
      }
      const { memCost, rounds, saltSeparator } = ctx.hashConfig;
      methods.push({
        recipeId: 'emailpassword',
        tenantIds: [],
        isVerified: rec.emailVerified,
        email,
        passwordHash: `$f_scrypt$${hash}$${salt}$m=${memCost}$r=${rounds}$s=${saltSeparator}`,
        hashingAlgorithm: 'FIREBASE_SCRYPT',
      });
    }
  }

  let unsupported: string | undefined;
  for (const p of rec.providers) {
    if (OWN_PROVIDERS.has(p.providerId)) continue;
    if (/^(oidc|saml)\./.test(p.providerId)) {
      unsupported = p.providerId;
      warnings.push({ code: 'unsupported-provider', text: `${p.providerId} identity not migrated (OIDC and SAML providers are not imported)` });
      continue;
    }
    const thirdPartyId = thirdPartyIdOf(p.providerId);
    const idEmail = emailOf(p.email) ?? email;
    if (idEmail === undefined) {
      warnings.push({ code: 'identity-without-email', text: `${p.providerId} identity ${p.rawId} has no email anywhere in the record: not imported` });
      continue;
    }
    methods.push({
      recipeId: 'thirdparty',
      tenantIds: [],
      isVerified: rec.emailVerified && idEmail === email,
      email: idEmail,
      thirdPartyId,
      thirdPartyUserId: p.rawId,
    });
  }

  const hasSocial = methods.some((m) => m.recipeId === 'thirdparty');
  const phoneMethod: BulkLoginMethodInput | undefined =
    phone === undefined ? undefined : { recipeId: 'passwordless', tenantIds: [], isVerified: true, phoneNumber: phone };
  if (email !== undefined && rec.passwordHash === undefined && !hasSocial) {
    const why = 'email but no password hash and no social identity (an email-link user, or a password the export dropped)';
    const noHash = noHashLoginMethod(email, rec.emailVerified, opts, why);
    if (noHash.skip && methods.length === 0) {
      return { sourceId, ...(createdAt !== undefined ? { createdAt } : {}), warnings, notImported: { outcome: 'skipped', ...noHash.skip } };
    }
    if (noHash.warning) warnings.push(noHash.warning);
    if (noHash.method?.recipeId === 'passwordless' && phoneMethod) {
      // One passwordless user may hold both an email and a phone number.
      phoneMethod.email = email;
      phoneMethod.isVerified = rec.emailVerified;
    } else if (noHash.method) {
      methods.push(noHash.method);
    }
  }
  if (phoneMethod) methods.push(phoneMethod);

  return assembleUser({
    sourceId,
    createdAt,
    methods,
    metadata,
    warnings,
    disabled: rec.disabled ? 'disabled' : undefined,
    opts,
    factors: firebaseFactors(rec.mfaInfo),
    emptyReason:
      unsupported !== undefined
        ? { code: 'unsupported-provider', reason: `only an ${unsupported} identity: OIDC and SAML users are not migrated`, needsAction: false }
        : { code: 'no-login-method', reason: 'no email, phone number or identity (anonymous or custom-token user)', needsAction: false },
  });
}

/** Whether a file is the CSV form: by its name, else by its first character. */
async function isCsv(file: string): Promise<boolean> {
  if (/\.csv$/i.test(file)) return true;
  if (/\.json$/i.test(file)) return false;
  for await (const chunk of createReadStream(file, { start: 0, end: 255, encoding: 'utf8' })) {
    return !String(chunk).trimStart().startsWith('{');
  }
  return false;
}

/** A record that is not an account at all (a JSON element that is not an object). */
type Unreadable = { readonly unreadable: MappedUser };

async function* jsonRecords(file: string): AsyncGenerator<FirebaseRecord | Unreadable> {
  try {
    for await (const item of usersArray(file)) {
      const value = item.value;
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        yield { unreadable: failedUser(`#${item.key}`, undefined, 'not-an-account', `users[${item.key}] is not an object`) };
        continue;
      }
      yield fromJson(value as Record<string, unknown>);
    }
  } catch (err) {
    const what = (err as Error).message;
    const hint = /\b(base64_signer_key|hash_config)\b/.test(what) ? ': that is the password hash config, give it with --hash-config' : '';
    throw new UsageError(`${file} is not an auth:export JSON file: ${what}${hint}.`);
  }
}

/** A CSV record that cannot be read as an account: failed by its localId (its first cell). */
function malformedRow(firstCell: string, line: number, why: string): Unreadable {
  const sourceId = /^[^,"\r\n]{1,128}$/.test(firstCell) ? firstCell : `#line-${line}`;
  return { unreadable: failedUser(sourceId, undefined, 'malformed-csv-row', `${why}; fix the row or use the JSON export (auth:export users.json)`) };
}

/**
 * The records of an `auth:export` CSV, read by the exporter's own rule (`./firebase-csv.ts`, which
 * reads the custom claims firebase-tools does not escape as RFC 4180 asks). A record of another
 * width (a photo URL with a comma, which the exporter does not quote) fails on its own, the others
 * are read; a file with no record of the exporter's width is not an export.
 */
async function* csvRecords(file: string): AsyncGenerator<FirebaseRecord | Unreadable> {
  let good = 0;
  let records = 0;
  for await (const { cells, line } of exporterCsvRecords(createReadStream(file, { encoding: 'utf8' }), file)) {
    records++;
    if (!CSV_WIDTHS.has(cells.length)) {
      yield malformedRow(
        cells[0] ?? '',
        line,
        `the CSV record at line ${line} has ${cells.length} cells instead of 53 (52 and the trailing comma): a value with a comma the exporter did not quote`,
      );
      continue;
    }
    good++;
    yield fromCsv(cells);
  }
  if (good === 0 && records > 0) throw new UsageError(`${file} is not an auth:export CSV file: none of its records has the exporter's 53 cells.`);
}

export function firebaseSource(file: string, ctx: FirebaseMapContext): Source {
  return {
    async *users() {
      const records = (await isCsv(file)) ? csvRecords(file) : jsonRecords(file);
      for await (const rec of records) yield 'unreadable' in rec ? rec.unreadable : mapFirebaseUser(rec, ctx);
    },
    notes: () => ({}),
  };
}
