import type { ExportedPasskey, ReadPasskey } from '../model';
import { timestampOf } from '../mapping';
import { UserJoin, type TableSpec } from '../table';

/**
 * Supabase's passkeys (SPEC §21, `--webauthn-credentials`): `auth.webauthn_credentials` exported as
 * the users file is (psql CSV with header, `json_agg`, or `row_to_json` lines). `credential_id`
 * and `public_key` are bytea as psql writes it (`\x` + hex; the public key is go-webauthn's COSE
 * key bytes), `sign_count` the counter, `transports` jsonb. The export names no RP id: every
 * passkey is `--webauthn-rp-id`'s (Supabase's `GOTRUE_WEBAUTHN_RP_ID`), required with the file.
 */

const CREDENTIALS: TableSpec = {
  what: 'an auth.webauthn_credentials export (psql CSV with header, a json_agg array or row_to_json lines)',
  required: [['user_id'], ['credential_id'], ['public_key'], ['sign_count']],
};

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

/** A bytea cell as psql writes it (`\x` + an even number of hex digits), or undefined. */
export function byteaOf(v: unknown): Buffer | undefined {
  const t = text(v);
  if (t === undefined || !/^\\x(?:[0-9a-fA-F]{2})+$/.test(t)) return undefined;
  return Buffer.from(t.slice(2), 'hex');
}

/** A jsonb array of strings: JSON in a JSON export, its text in CSV; anything else: none. */
function transportsOf(v: unknown): string[] {
  let value = v;
  if (typeof v === 'string') {
    try {
      value = JSON.parse(v);
    } catch {
      return [];
    }
  }
  return Array.isArray(value) ? value.filter((t): t is string => typeof t === 'string') : [];
}

/** One row of `auth.webauthn_credentials` as the passkey plan reads it, under `rpId`. */
export function supabasePasskey(row: Record<string, unknown>, rpId: string | undefined, at: string): ReadPasskey {
  const credentialId = byteaOf(row.credential_id);
  if (credentialId === undefined) return { id: `(${at})`, why: 'its credential_id is not bytea (\\x + hex)' };
  const id = credentialId.toString('base64url');
  const publicKey = byteaOf(row.public_key);
  if (publicKey === undefined) return { id, why: 'its public_key is not bytea (\\x + hex)' };
  const count = typeof row.sign_count === 'number' ? row.sign_count : /^\d{1,10}$/.test(text(row.sign_count) ?? '') ? Number(row.sign_count) : Number.NaN;
  const aaguid = text(row.aaguid);
  const createdAt = timestampOf(row.created_at);
  const passkey: ExportedPasskey = {
    credentialId,
    publicKey,
    ...(rpId !== undefined ? { rpId } : {}),
    counter: count,
    transports: transportsOf(row.transports),
    ...(aaguid !== undefined ? { aaguid } : {}),
    ...(createdAt !== undefined && Number.isFinite(createdAt) ? { createdAt } : {}),
  };
  return passkey;
}

/** A row as the join keeps it on disk, as JSON (no Buffer survives that): its columns and its place. */
interface StoredRow {
  readonly row: Record<string, unknown>;
  readonly at: string;
}

/** `auth.webauthn_credentials`, indexed by user (on disk); `rows`: the passkeys read. */
export interface PasskeyIndex {
  /** The user's passkeys, decoded from their stored rows. */
  of(userId: string): readonly ReadPasskey[];
  orphans(): number;
  readonly unreadable: readonly { at: string; reason: string }[];
  readonly rows: number;
}

/** Reads `--webauthn-credentials`: each passkey under its user, all of `rpId`. */
export async function readPasskeys(file: string, rpId: string | undefined): Promise<PasskeyIndex> {
  let rows = 0;
  const join = await UserJoin.read<StoredRow>(file, CREDENTIALS, (value, at) => {
    const userId = text(value.user_id);
    if (userId === undefined) return { unreadable: `${at}: no user_id` };
    rows++;
    const { credential_id, public_key, sign_count, transports, aaguid, created_at } = value;
    return { userId, item: { row: { credential_id, public_key, sign_count, transports, aaguid, created_at }, at } };
  });
  return {
    rows,
    unreadable: join.unreadable,
    of: (userId) => join.of(userId).map(({ row, at }) => supabasePasskey(row, rpId, at)),
    orphans: () => join.orphans(),
  };
}
