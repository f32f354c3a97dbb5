import { DiskJoin } from '../disk-join';
import type { SecondFactor } from '../mfa';
import { tableRows, type TableSpec } from '../table';

/**
 * WordPress's `wp_usermeta` (SPEC §20, `--usermeta`): the keys the "Two Factor" plugin
 * (WordPress/two-factor) keeps. `_two_factor_enabled_providers` is a PHP-serialized array of
 * provider class names; `_two_factor_totp_key` the TOTP secret in base32 (SHA-1, 6 digits, 30 s);
 * `_two_factor_backup_codes` hashed codes. Only these keys are kept; every other meta row is passed over.
 */

const USERMETA: TableSpec = {
  what: 'a wp_usermeta export (CSV with a header row: umeta_id,user_id,meta_key,meta_value)',
  required: [['user_id'], ['meta_key'], ['meta_value']],
};

const TOTP_KEY = '_two_factor_totp_key';
const PROVIDERS = '_two_factor_enabled_providers';

/** The plugin's meta of one user. */
interface TwoFactorMeta {
  totpKey?: string;
  /** The enabled providers; `null` when the value is no PHP-serialized array of strings. */
  providers?: string[] | null;
}

/**
 * The strings of a PHP-serialized array (`a:2:{i:0;s:15:"Two_Factor_Totp";i:1;s:16:"Two_Factor_Email";}`),
 * by PHP's own rule: `s:<bytes>:"…";` counts UTF-8 bytes. Undefined when the value is anything
 * else (an array holding other than integer or string keys and string values, or a cut value).
 */
export function phpStringArray(value: string): string[] | undefined {
  const bytes = Buffer.from(value.trim(), 'utf8');
  let at = 0;
  const expect = (text: string) => {
    if (bytes.toString('latin1', at, at + text.length) !== text) throw new Error(`no ${text}`);
    at += text.length;
  };
  const integer = (end: string) => {
    const stop = bytes.indexOf(end, at, 'latin1');
    const digits = stop < 0 ? '' : bytes.toString('latin1', at, stop);
    if (!/^-?\d{1,9}$/.test(digits)) throw new Error('no integer');
    at = stop + end.length;
    return Number(digits);
  };
  const string = () => {
    expect('s:');
    const length = integer(':"');
    const text = bytes.toString('utf8', at, at + length);
    at += length;
    expect('";');
    return text;
  };
  try {
    expect('a:');
    const count = integer(':{');
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      if (bytes[at] === 0x69 /* i */) {
        expect('i:');
        integer(';');
      } else string();
      out.push(string());
    }
    expect('}');
    return at === bytes.length ? out : undefined;
  } catch {
    return undefined;
  }
}

/** What a user's Two Factor meta becomes (SPEC §20); a key without `Two_Factor_Totp` enabled is ignored. */
export function wordpressFactors(meta: TwoFactorMeta | undefined): SecondFactor[] {
  if (meta?.providers === undefined) return [];
  if (meta.providers === null) return [{ kind: 'lost', what: `the Two Factor providers (${PROVIDERS})`, why: 'the value is no PHP-serialized list' }];
  const factors: SecondFactor[] = [];
  for (const provider of new Set(meta.providers)) {
    const what = `the Two Factor provider ${provider.slice(0, 64)}`;
    if (provider === 'Two_Factor_Totp') {
      factors.push(
        meta.totpKey === undefined
          ? { kind: 'lost', what, why: `the user has no ${TOTP_KEY}`, authenticator: true }
          : // The plugin allows ±4 steps; the service's skew is per device, 1 as the core's default.
            { kind: 'totp', what, secret: meta.totpKey, period: 30, skew: 1 },
      );
    } else if (provider === 'Two_Factor_Email') factors.push({ kind: 'email', what });
    else if (provider === 'Two_Factor_Backup_Codes') factors.push({ kind: 'recovery', what: `${what} (_two_factor_backup_codes)` });
    // The plugin's test provider, which lets anyone in: no second factor at all.
    else if (provider !== 'Two_Factor_Dummy') factors.push({ kind: 'lost', what, why: 'only Two_Factor_Totp and Two_Factor_Email are carried' });
  }
  return factors;
}

/** One Two Factor meta row as the join keeps it: the TOTP key, or the providers (`null`: not a PHP-serialized list). */
type MetaRow = { readonly totpKey: string } | { readonly providers: string[] | null };

/**
 * `wp_usermeta`'s Two Factor keys, indexed by user id on disk (`../disk-join.ts`: SPEC §17c,
 * bounded memory): read whole before the users, keeping those keys only, one row each, folded
 * into the user's meta in file order when it is asked for (a later row wins, as it did in WordPress).
 */
export class UsermetaIndex {
  private constructor(
    private readonly join: DiskJoin<MetaRow>,
    /** Rows that could not be read (their place and why; never their data). */
    readonly unreadable: { at: string; reason: string }[],
  ) {}

  static async read(file: string): Promise<UsermetaIndex> {
    const unreadable: { at: string; reason: string }[] = [];
    async function* rows(): AsyncGenerator<{ key: string; item: MetaRow }> {
      for await (const row of tableRows(file, USERMETA)) {
        if ('unreadable' in row) {
          unreadable.push({ at: row.at, reason: row.unreadable });
          continue;
        }
        const key = row.value.meta_key;
        if (key !== TOTP_KEY && key !== PROVIDERS) continue;
        const rawId = row.value.user_id;
        const userId = typeof rawId === 'number' ? String(rawId) : typeof rawId === 'string' && /^\d+$/.test(rawId.trim()) ? String(BigInt(rawId)) : undefined;
        if (userId === undefined) {
          unreadable.push({ at: row.at, reason: `${row.at}: user_id is not a number` });
          continue;
        }
        const value = typeof row.value.meta_value === 'string' ? row.value.meta_value.trim() : '';
        if (key === TOTP_KEY) yield { key: userId, item: { totpKey: value } };
        else yield { key: userId, item: { providers: value === '' ? [] : (phpStringArray(value) ?? null) } };
      }
    }
    const join = await DiskJoin.build(rows());
    return new UsermetaIndex(join, unreadable);
  }

  of(userId: string): TwoFactorMeta | undefined {
    const rows = this.join.rows(userId);
    if (rows.length === 0) return undefined;
    const meta: TwoFactorMeta = {};
    for (const { item } of rows) {
      if ('totpKey' in item) {
        if (item.totpKey !== '') meta.totpKey = item.totpKey;
      } else meta.providers = item.providers;
    }
    return meta;
  }
}
