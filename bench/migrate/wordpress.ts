import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { base32Of } from '../../lib/migrate/mfa';
import { ExportWriter, type ExportGenerator, fixturePasswords, fixtureText, person } from './people';

/**
 * `wp_users` as CSV with its header row (test/fixtures/migration/wordpress) of the bench's
 * population: the fixture's real hashes of known passwords (phpass `$P$B` and WordPress 6.8's
 * `$wp$2y$` in turn), one user in 40 with the fixture's bare MD5 (an old install: imported without
 * the password). WordPress gives every user a password, a social-login or magic-link plugin a
 * random one, so every user with an email has a hash here; a phone user (an SMS plugin) has an
 * empty `user_email` and is skipped (`no-email`). `wp_users` holds no role (wp_usermeta does), no
 * verified flag and, on a single site, no disabled flag: those users are imported.
 */
const COLUMNS = 'ID,user_login,user_pass,user_nicename,user_email,user_url,user_registered,user_activation_key,user_status,display_name';

/** `user_registered`: UTC, `YYYY-MM-DD HH:MM:SS`. */
const registered = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

export const wordpress: ExportGenerator = {
  source: 'wordpress',
  format: 'wp_users CSV',
  mix: ['password', 'metadata'],
  async write(dir, n, options) {
    const passwords = fixturePasswords('wordpress');
    const rows = fixtureText('wordpress', 'wp_users.csv').trim().split('\n').slice(1);
    const hashOf = (id: string) => rows.find((r) => r.startsWith(`${id},`))!.split(',')[2];
    const known = [...passwords].map(([id, password]) => ({ hash: hashOf(id), password }));
    const md5 = rows.map((r) => r.split(',')[2]).find((h) => /^[0-9a-f]{32}$/.test(h))!;
    const out = new ExportWriter(join(dir, 'wp_users.csv'));
    await out.write(`${COLUMNS}\n`);
    // wp_usermeta: every user's nickname and role (rows the source passes over), the Two Factor plugin's TOTP for one in 10.
    const meta = options?.secondFactors ? new ExportWriter(join(dir, 'wp_usermeta.csv')) : undefined;
    await meta?.write('umeta_id,user_id,meta_key,meta_value\n');
    let umeta = 0;
    for (let i = 0; i < n; i++) {
      const p = person(i);
      const login =
        p.phone?.slice(1) ??
        `${p.name
          .split(' ')[0]
          .toLowerCase()
          .normalize('NFD')
          .replace(/[\u0300-\u036f]/g, '')}${i}`;
      const hash = i % 40 === 21 ? md5 : known[i % known.length].hash;
      const url = p.metadata ? `https://${login}.example.org` : '';
      await out.write(`${i + 1},${login},${hash},${login},${p.email ?? ''},${url},${registered(p.createdMs)},,0,${p.name}\n`);
      if (meta) {
        await meta.write(`${++umeta},${i + 1},nickname,${login}\n${++umeta},${i + 1},wp_capabilities,"a:1:{s:10:""subscriber"";b:1;}"\n`);
        if (i % 10 === 3) {
          const secret = base32Of(createHash('sha1').update(`totp-${i}`).digest().subarray(0, 10));
          await meta.write(
            `${++umeta},${i + 1},_two_factor_enabled_providers,"a:1:{i:0;s:15:""Two_Factor_Totp"";}"\n${++umeta},${i + 1},_two_factor_totp_key,${secret}\n`,
          );
        }
      }
    }
    await out.close();
    await meta?.close();
    return {
      file: out.file,
      companions: meta ? { usermeta: meta.file } : {},
      probe: { sourceId: '1', password: known[0].password },
    };
  },
};
