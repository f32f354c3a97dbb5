import { assembleUser, emailOf, failedUser, noHashLoginMethod, unsupportedHashLoginMethod } from '../mapping';
import type { BulkLoginMethodInput, MapOptions, MappedUser, NotImported, Source, Warning } from '../model';
import { tableSource, type TableSpec } from '../table';
import { type UsermetaIndex, wordpressFactors } from './wordpress-usermeta';

/**
 * WordPress (SPEC §17b): the `wp_users` table (any table prefix: the file holds only its column
 * names) as CSV with a header row, in any column order (phpMyAdmin, `mysql`, Adminer, …; read by
 * `../table.ts`). Emails are unverified unless `--assume-verified`: WordPress keeps no such fact.
 * Second factors come from `wp_usermeta` (`--usermeta`: `./wordpress-usermeta.ts`).
 */

type Obj = Record<string, unknown>;

const USERS: TableSpec = {
  what: "a wp_users export (CSV with a header row of the table's column names)",
  required: [['ID'], ['user_login'], ['user_pass'], ['user_email'], ['user_registered']],
};

/** A cell as text: NULL (an unquoted empty cell) and the empty string are both empty. */
const cell = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');
/** Multisite's `spam` and `deleted` columns (tinyint): `1` is set. */
const set = (v: unknown): boolean => cell(v) === '1';

const REGISTERED = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** `user_registered` (`2019-01-02 03:04:05`, UTC as WordPress stores it) in ms; MySQL's zero date and other non-dates are undefined. */
export function registeredAt(v: unknown): number | undefined {
  const text = cell(v);
  if (!REGISTERED.test(text)) return undefined;
  const iso = `${text.replace(' ', 'T')}Z`;
  const ms = Date.parse(iso);
  // Date.parse rolls 2019-02-30 over to March: a date that does not come back the same is none.
  return Number.isNaN(ms) || new Date(ms).toISOString() !== iso.replace('Z', '.000Z') ? undefined : ms;
}

/** The hash forms `user_pass` holds, and the `hashingAlgorithm` each goes with (SPEC §7b). */
const HASH_FORMS: readonly { readonly prefix: RegExp; readonly algorithm: string }[] = [
  // phpass (WordPress ≤ 6.7) and bcrypt of the HMAC-SHA384 (WordPress ≥ 6.8): the `wordpress` family.
  { prefix: /^\$P\$/, algorithm: 'wordpress' },
  { prefix: /^\$wp\$2[aby]\$/, algorithm: 'wordpress' },
  // phpass's other marker, which WordPress's phpass checks too; plain bcrypt (a bcrypt plugin, which WordPress ≥ 6.8 also checks).
  { prefix: /^\$H\$/, algorithm: 'phpass' },
  { prefix: /^\$2[aby]\$/, algorithm: 'bcrypt' },
];
const BARE_MD5 = /^[0-9a-f]{32}$/i;

export interface WordPressMapContext {
  readonly opts: MapOptions;
  /** `--assume-verified`: every imported email is verified. */
  readonly assumeVerified: boolean;
  /** `--usermeta`: the Two Factor plugin's meta, by user id. */
  readonly usermeta?: Pick<UsermetaIndex, 'of'>;
}

/** Maps one `wp_users` row to a bulk user (or says why it is not imported); `at` names the row. */
export function mapWordPressUser(raw: Obj, ctx: WordPressMapContext, at: string): MappedUser {
  const { opts } = ctx;
  const warnings: Warning[] = [];
  const createdAt = registeredAt(raw.user_registered);
  if (createdAt === undefined)
    warnings.push({
      code: 'bad-created-at',
      text: `user_registered ${JSON.stringify(cell(raw.user_registered).slice(0, 40))} is not a date: timeJoined is the import time`,
    });
  const id = cell(raw.ID);
  if (!/^\d+$/.test(id))
    return failedUser(id === '' ? `#${at}` : id, createdAt, 'row-unreadable', `${at}: ID ${JSON.stringify(id.slice(0, 40))} is not a number`, warnings);
  const sourceId = String(BigInt(id));
  const skipped = (n: NotImported): MappedUser => ({
    sourceId,
    ...(createdAt !== undefined ? { createdAt } : {}),
    warnings,
    notImported: { outcome: 'skipped', ...n },
  });
  // Multisite's wp_users has `deleted` and `spam`: a deleted user is gone, a spammer is disabled.
  if (set(raw.deleted)) return skipped({ code: 'deleted', reason: 'deleted in WordPress (multisite deleted = 1)', needsAction: false });

  const rawEmail = cell(raw.user_email);
  const email = emailOf(rawEmail);
  if (email === undefined)
    return skipped(
      rawEmail === ''
        ? { code: 'no-email', reason: 'user_email is empty: no login method can be imported', needsAction: false }
        : { code: 'no-email', reason: `user_email ${JSON.stringify(rawEmail.slice(0, 80))} is not an email address`, needsAction: true },
    );
  const verified = ctx.assumeVerified;

  const methods: BulkLoginMethodInput[] = [];
  const hash = cell(raw.user_pass);
  const form = HASH_FORMS.find((f) => f.prefix.test(hash));
  if (form) {
    methods.push({ recipeId: 'emailpassword', tenantIds: [], isVerified: verified, email, passwordHash: hash, hashingAlgorithm: form.algorithm });
  } else {
    const noHash =
      hash === ''
        ? noHashLoginMethod(email, verified, opts, 'user_pass is empty')
        : unsupportedHashLoginMethod(
            email,
            verified,
            opts,
            BARE_MD5.test(hash) ? 'user_pass is a bare MD5 digest (an old install or a database edit)' : 'user_pass is in no form WordPress writes',
          );
    if (noHash.skip) return skipped(noHash.skip);
    if (noHash.warning) warnings.push(noHash.warning);
    if (noHash.method) methods.push(noHash.method);
  }

  const metadata = Object.fromEntries(
    Object.entries({ username: cell(raw.user_login), display_name: cell(raw.display_name), url: cell(raw.user_url) }).filter(([, v]) => v !== ''),
  );

  return assembleUser({
    sourceId,
    createdAt,
    methods,
    metadata,
    warnings,
    disabled: set(raw.spam) ? 'disabled' : undefined,
    opts,
    factors: wordpressFactors(ctx.usermeta?.of(sourceId)),
    emptyReason: { code: 'no-login-method', reason: 'nothing that can be imported', needsAction: false },
  });
}

export interface WordPressSourceOptions {
  readonly opts: MapOptions;
  readonly assumeVerified?: boolean;
  readonly usermeta?: UsermetaIndex;
}

export function wordpressSource(file: string, options: WordPressSourceOptions): Source {
  const { usermeta } = options;
  const ctx: WordPressMapContext = { opts: options.opts, assumeVerified: options.assumeVerified === true, ...(usermeta ? { usermeta } : {}) };
  const source = tableSource(file, USERS, (value, at) => mapWordPressUser(value, ctx, at));
  return {
    ...source,
    notes: () =>
      usermeta
        ? { unreadableUsermetaRows: usermeta.unreadable }
        : { mfa: "the Two Factor plugin's second factors are in wp_usermeta, which was not given: carry them with --usermeta" },
  };
}
