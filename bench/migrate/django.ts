import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { ExportWriter, type ExportGenerator, fixturePasswords, fixtureText, type Person, person } from './people';

/**
 * `manage.py dumpdata auth.group auth.user --indent 2` of the bench's population, as Django writes
 * it (test/fixtures/migration/django): one group, then the users with the fixture's real hashes of
 * known passwords (pbkdf2_sha256, argon2, bcrypt_sha256 in turn), `!`-unusable passwords for the
 * users without one (social logins live in django-allauth's tables, not in `auth.user`: a social
 * user here is an email without a password), first and last names, the group by its pk, inactive
 * users. `auth.user` has no phone: a phone user has it as its username and no email, and is
 * skipped (`no-email`).
 */
const GROUP = { model: 'auth.group', pk: 1, fields: { name: 'member', permissions: [] } };

/** Django's `date_joined` in a dump: ISO 8601 in UTC, ms only when there are some. */
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

function djangoRecord(p: Person, hash: string): Record<string, unknown> {
  const [first, last] = p.name.split(' ');
  const withPassword = p.kind === 'password' || p.kind === 'linked';
  return {
    model: 'auth.user',
    pk: p.i + 1,
    fields: {
      // set_unusable_password(): `!` and 40 random characters.
      password: withPassword ? hash : `!${String(p.i).padStart(8, '0')}bmUnusableX9q2LwZr7TkPd4sNvYh3cJ`,
      last_login: iso(p.lastLoginMs),
      is_superuser: false,
      username: p.phone ?? `${first.toLowerCase()}${p.i}`,
      first_name: first,
      last_name: last,
      email: p.email ?? '',
      is_staff: false,
      is_active: !p.disabled,
      date_joined: iso(p.createdMs),
      groups: p.role ? [GROUP.pk] : [],
      user_permissions: [],
    },
  };
}

/** A confirmed django-otp TOTP device of person `i` (its key hex, as django-otp keeps it). */
const totpDevice = (i: number): string =>
  JSON.stringify(
    {
      model: 'otp_totp.totpdevice',
      pk: Math.floor(i / 10) + 1,
      fields: {
        user: i + 1,
        name: 'default',
        confirmed: true,
        throttling_failure_timestamp: null,
        throttling_failure_count: 0,
        key: createHash('sha1').update(`totp-${i}`).digest('hex'),
        step: 30,
        t0: 0,
        digits: 6,
        tolerance: 1,
        drift: 0,
        last_t: -1,
      },
    },
    null,
    2,
  );

export const django: ExportGenerator = {
  source: 'django',
  format: 'dumpdata JSON (auth.group + auth.user)',
  mix: ['password', 'metadata', 'roles', 'disabled'],
  async write(dir, n, options) {
    const passwords = fixturePasswords('django');
    const known = (JSON.parse(fixtureText('django', 'auth.json')) as { model: string; pk: number; fields: { password: string } }[])
      .filter((r) => r.model === 'auth.user' && passwords.has(String(r.pk)))
      .map((r) => ({ hash: r.fields.password, password: passwords.get(String(r.pk))! }));
    const out = new ExportWriter(join(dir, 'auth.json'));
    await out.write(`[\n${JSON.stringify(GROUP, null, 2)}`);
    for (let i = 0; i < n; i++) await out.write(`,\n${JSON.stringify(djangoRecord(person(i), known[i % known.length].hash), null, 2)}`);
    // `dumpdata auth.user otp_totp otp_static`: the devices after the users, by the user's pk.
    if (options?.secondFactors) for (let i = 3; i < n; i += 10) await out.write(`,\n${totpDevice(i)}`);
    await out.write('\n]\n');
    await out.close();
    return { file: out.file, companions: {}, probe: { sourceId: '1', password: known[0].password } };
  },
};
