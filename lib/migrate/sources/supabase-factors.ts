import { phoneOf } from '../mapping';
import { quoted, type SecondFactor } from '../mfa';
import { UserJoin, type TableSpec } from '../table';

/**
 * Supabase's `auth.mfa_factors` (SPEC §20, `--mfa-factors`), exported as the users file is (psql
 * CSV with header, `json_agg`, or `row_to_json` lines): a `verified` TOTP factor's `secret` is
 * base32 (pquerna/otp: SHA-1, 6 digits, 30 s) unless GoTrue encrypted it
 * (`GOTRUE_SECURITY_DB_ENCRYPTION`: a JSON cell `{"key_id",…,"alg":"aes-gcm-hkdf",…}`, which
 * only the project's keys open); a `verified` phone factor's `phone` is the number without its `+`.
 * Unverified factors are abandoned enrolments: ignored.
 */

const FACTORS: TableSpec = {
  what: 'an auth.mfa_factors export (psql CSV with header, a json_agg array or row_to_json lines)',
  required: [['id'], ['user_id'], ['friendly_name'], ['factor_type'], ['status'], ['secret']],
};

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** One verified factor row as a second factor; `undefined` for a row that is not one (unverified). */
export function supabaseFactor(row: Record<string, unknown>): SecondFactor | undefined {
  if (text(row.status) !== 'verified') return undefined;
  const type = text(row.factor_type);
  const name = text(row.friendly_name);
  const named = (kind: string) => `the ${kind} factor${name !== undefined ? ` ${quoted(name)}` : ''}`;
  if (type === 'totp') {
    const secret = text(row.secret);
    if (secret === undefined) return { kind: 'lost', what: named('TOTP'), why: 'it has no secret', authenticator: true };
    if (secret.startsWith('{'))
      return {
        kind: 'lost',
        what: named('TOTP'),
        why: 'its secret is encrypted (GOTRUE_SECURITY_DB_ENCRYPTION), and only the project keys open it',
        authenticator: true,
      };
    return { kind: 'totp', what: named('TOTP'), ...(name !== undefined ? { name } : {}), secret, period: 30, skew: 1 };
  }
  if (type === 'phone') {
    const raw = text(row.phone);
    const phone = raw === undefined ? undefined : phoneOf(raw.startsWith('+') ? raw : `+${raw}`);
    return phone !== undefined ? { kind: 'sms', what: named('phone'), phone } : { kind: 'lost', what: named('phone'), why: 'its phone is not a phone number' };
  }
  if (type === 'webauthn') return { kind: 'lost', what: named('WebAuthn'), why: 'WebAuthn factors are not carried' };
  return { kind: 'lost', what: named(`${quoted(type ?? '?')}`), why: 'it is of no factor_type carried (totp, phone)' };
}

/** `auth.mfa_factors`, indexed by user: read whole before the users (it is a small table). */
export type FactorIndex = UserJoin<SecondFactor>;

/** Reads `auth.mfa_factors` (`--mfa-factors`): each verified factor under its user. */
export function readFactors(file: string): Promise<FactorIndex> {
  return UserJoin.read(file, FACTORS, (value, at) => {
    const userId = text(value.user_id);
    if (userId === undefined) return { unreadable: `${at}: no user_id` };
    const item = supabaseFactor(value);
    return item === undefined ? { userId } : { userId, item };
  });
}
