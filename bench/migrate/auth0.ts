import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATION_FIXTURES } from '../../test/support/migration';
import { ExportWriter, type ExportGenerator, hex24, person } from './people';

/**
 * Auth0's user export job (NDJSON) and the password-hash export its support delivers (NDJSON of
 * Mongo extended JSON, `--hashes`), of the bench's population, laid out as the fixture's
 * (test/fixtures/migration/auth0): database users with the fixture's real bcrypt hashes (one in
 * 40 without a hash line, as exports have), Google and GitHub users, a database user with a
 * linked Google identity, sms and email (passwordless) users, metadata and `app_metadata.roles`,
 * blocked users.
 */
const AUTH0 = join(MIGRATION_FIXTURES, 'auth0');
const ndjson = (file: string): Record<string, unknown>[] =>
  readFileSync(join(AUTH0, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

/** The fixture's hashes whose password is known: known-passwords.json → the user → its database identity → its hash line. */
function fixtureHashes(): { hash: string; password: string }[] {
  const users = ndjson('users.ndjson');
  const lines = ndjson('password-hashes.ndjson');
  const known: { userId: string; password: string }[] = JSON.parse(readFileSync(join(AUTH0, 'known-passwords.json'), 'utf8')).users;
  return known.flatMap(({ userId, password }) => {
    const identities = (users.find((u) => u.user_id === userId)?.identities ?? []) as { provider: string; user_id: string }[];
    const dbId = identities.find((id) => id.provider === 'auth0')?.user_id;
    const line = lines.find((l) => (l.alt_id ?? (l._id as { $oid: string }).$oid) === dbId);
    return line ? [{ hash: line.passwordHash as string, password }] : [];
  });
}

const iso = (ms: number) => new Date(ms).toISOString();
const DB = 'Username-Password-Authentication';

export const auth0: ExportGenerator = {
  source: 'auth0',
  format: 'user export NDJSON + --hashes',
  mix: ['password', 'social', 'linked', 'phone', 'metadata', 'roles', 'disabled'],
  async write(dir, n) {
    const hashes = fixtureHashes();
    const users = new ExportWriter(join(dir, 'users.ndjson'));
    const hashLines = new ExportWriter(join(dir, 'password-hashes.ndjson'));
    for (let i = 0; i < n; i++) {
      const p = person(i);
      const id = hex24(i);
      const database = p.kind === 'password' || p.kind === 'linked';
      const social = p.social && {
        provider: p.social.provider === 'google' ? 'google-oauth2' : 'github',
        user_id: p.social.id,
        connection: p.social.provider === 'google' ? 'google-oauth2' : 'github',
        isSocial: true,
      };
      const [prefix, identities] = database
        ? [
            'auth0',
            [
              { connection: DB, user_id: id, provider: 'auth0', isSocial: false },
              ...(social ? [{ profileData: { email: p.email, email_verified: true, name: p.name }, ...social }] : []),
            ],
          ]
        : social
          ? [social.provider, [social]]
          : p.phone
            ? ['sms', [{ user_id: id, provider: 'sms', connection: 'sms', isSocial: false }]]
            : ['email', [{ user_id: id, provider: 'email', connection: 'email', isSocial: false }]];
      const userId = `${prefix}|${prefix === 'auth0' || !social ? id : social.user_id}`;
      const user = {
        user_id: userId,
        ...(p.email ? { email: p.email, email_verified: p.verified } : { phone_number: p.phone, phone_verified: true }),
        created_at: iso(p.createdMs),
        updated_at: iso(p.createdMs + 3_600_000),
        last_login: iso(p.lastLoginMs),
        logins_count: 1 + (i % 40),
        identities,
        ...(p.role || p.metadata ? { app_metadata: { ...(p.role ? { roles: [p.role] } : {}), ...(p.metadata ? { plan: p.metadata.plan } : {}) } } : {}),
        ...(p.metadata ? { user_metadata: { locale: p.metadata.locale, signupSource: p.metadata.signupSource } } : {}),
        ...(p.disabled ? { blocked: true } : {}),
        name: p.name,
        nickname: (p.email ?? p.phone ?? '').split('@')[0],
        picture: 'https://cdn.auth0.com/avatars/default.png',
      };
      await users.write(`${JSON.stringify(user)}\n`);
      // One database user in 40 has no line in the hash export (it goes by --no-hash).
      if (database && i % 40 !== 20) {
        const line = {
          _id: { $oid: id },
          email_verified: p.verified,
          email: p.email,
          passwordHash: hashes[i % hashes.length].hash,
          password_set_date: { $date: iso(p.createdMs) },
          tenant: 'bench-prod',
          connection: DB,
          _tmp_is_unique: true,
          identifiers: [{ type: 'email', value: p.email, verified: p.verified }],
        };
        await hashLines.write(`${JSON.stringify(line)}\n`);
      }
    }
    await users.close();
    await hashLines.close();
    return { file: users.file, companions: { hashes: hashLines.file }, probe: { sourceId: `auth0|${hex24(0)}`, password: hashes[0].password } };
  },
};
