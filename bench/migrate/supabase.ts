import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATION_FIXTURES } from '../../test/support/migration';
import { psqlRow } from '../../test/support/psql-csv';
import { ExportWriter, type ExportGenerator, type Person, person, uuidOf } from './people';

/**
 * Supabase `auth.users` and `auth.identities` (`--identities`) of the bench's population, as
 * `\copy (select * from auth.users) to 'users.csv' csv header` writes them: every column of the
 * fixture's schema (test/fixtures/migration/supabase), `t`/`f`, NULL empty, jsonb as psql prints
 * it, timestamptz with µs. Email users with the fixture's real `$2a$10$` bcrypt hash, Google and
 * GitHub identities, a password user with a linked Google identity, phone users (the number
 * without its `+`), magic-link users, user and app metadata, banned users.
 */
const SUPABASE = join(MIGRATION_FIXTURES, 'supabase');

function fixture(): { columns: string[]; hash: string; password: string; identityColumns: string[] } {
  const first = (file: string) => JSON.parse(readFileSync(join(SUPABASE, file), 'utf8').split('\n')[0]);
  const user = first('users.ndjson');
  const expected = JSON.parse(readFileSync(join(SUPABASE, 'expected.json'), 'utf8')).users.find((u: { sourceId: string }) => u.sourceId === user.id);
  return { columns: Object.keys(user), hash: user.encrypted_password, password: expected.password, identityColumns: Object.keys(first('identities.ndjson')) };
}

/** A timestamptz as psql prints it: `2023-01-02 03:04:05.678+00` (trailing zeros of the fraction dropped). */
const timestamptz = (ms: number): string => {
  const [date, time] = new Date(ms).toISOString().replace('Z', '').split('T');
  return `${date} ${time.replace(/\.?0+$/, '')}+00`;
};

function identitiesOf(p: Person, id: string): Record<string, unknown>[] {
  const at = timestamptz(p.lastLoginMs);
  const row = (provider: string, providerId: string, data: Record<string, unknown>, k: number) => ({
    provider_id: providerId,
    user_id: id,
    identity_data: data,
    provider,
    last_sign_in_at: at,
    created_at: timestamptz(p.createdMs),
    updated_at: at,
    email: data.email ?? null,
    id: uuidOf(p.i * 4 + k, 'c3'),
  });
  const out: Record<string, unknown>[] = [];
  if (p.phone) out.push(row('phone', id, { sub: id, phone: p.phone.slice(1), email_verified: false, phone_verified: true }, 0));
  else if (p.kind !== 'social') out.push(row('email', id, { sub: id, email: p.email, email_verified: p.verified, phone_verified: false }, 0));
  if (p.social) {
    const iss = p.social.provider === 'google' ? 'https://accounts.google.com' : 'https://api.github.com';
    out.push(row(p.social.provider, p.social.id, { iss, sub: p.social.id, email: p.email, email_verified: true, name: p.name, provider_id: p.social.id }, 1));
  }
  return out;
}

export const supabase: ExportGenerator = {
  source: 'supabase',
  format: 'psql CSV + --identities',
  mix: ['password', 'social', 'linked', 'phone', 'metadata', 'disabled'],
  async write(dir, n) {
    const { columns, hash, password, identityColumns } = fixture();
    const users = new ExportWriter(join(dir, 'users.csv'));
    const identities = new ExportWriter(join(dir, 'identities.csv'));
    await users.write(`${columns.join(',')}\n`);
    await identities.write(`${identityColumns.join(',')}\n`);
    for (let i = 0; i < n; i++) {
      const p = person(i);
      const id = uuidOf(i);
      const created = timestamptz(p.createdMs);
      const confirmed = p.verified && p.email ? timestamptz(p.createdMs + 60_000) : null;
      const providers = [...(p.phone ? ['phone'] : p.kind === 'social' ? [] : ['email']), ...(p.social ? [p.social.provider] : [])];
      const row: Record<string, unknown> = {
        instance_id: '00000000-0000-0000-0000-000000000000',
        id,
        aud: 'authenticated',
        role: 'authenticated',
        email: p.email ?? null,
        encrypted_password: p.kind === 'password' || p.kind === 'linked' ? hash : '',
        email_confirmed_at: confirmed,
        confirmation_token: '',
        recovery_token: '',
        email_change_token_new: '',
        email_change: '',
        last_sign_in_at: timestamptz(p.lastLoginMs),
        raw_app_meta_data: { provider: providers[0], providers, ...(p.metadata ? { plan: p.metadata.plan } : {}) },
        raw_user_meta_data: p.metadata ? { full_name: p.name, locale: p.metadata.locale } : {},
        created_at: created,
        updated_at: created,
        phone: p.phone?.slice(1) ?? null,
        phone_confirmed_at: p.phone ? timestamptz(p.createdMs + 30_000) : null,
        phone_change: '',
        phone_change_token: '',
        confirmed_at: confirmed ?? (p.phone ? timestamptz(p.createdMs + 30_000) : null),
        email_change_token_current: '',
        email_change_confirm_status: 0,
        banned_until: p.disabled ? '2999-12-31 00:00:00+00' : null,
        reauthentication_token: '',
        is_sso_user: false,
        is_anonymous: false,
      };
      await users.write(`${psqlRow(columns, row)}\n`);
      for (const identity of identitiesOf(p, id)) await identities.write(`${psqlRow(identityColumns, identity)}\n`);
    }
    await users.close();
    await identities.close();
    return { file: users.file, companions: { identities: identities.file }, probe: { sourceId: uuidOf(0), password } };
  },
};
