import { join } from 'node:path';
import { ExportWriter, type ExportGenerator, fixturePasswords, fixtureText, type Person, person } from './people';

/**
 * Clerk's dashboard CSV export (test/fixtures/migration/clerk) of the bench's population: ids
 * `user_` + a KSUID holding the creation time, the fixture's real bcrypt digest of a known
 * password, verified and unverified addresses in their own columns, phone users. The export has
 * no social account, metadata (but the names) or banned flag: a social user is an email without a
 * password, a banned user is imported.
 */
const COLUMNS =
  'id,first_name,last_name,username,primary_email_address,primary_phone_number,verified_email_addresses,unverified_email_addresses,verified_phone_numbers,unverified_phone_numbers,totp_secret,password_digest,password_hasher';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** KSUID's epoch: seconds since 2014-05-13T16:53:20Z. */
const KSUID_EPOCH_S = 1_400_000_000n;

/** `user_` and a KSUID: 4 bytes of seconds since its epoch, 16 of payload (here from `i`), 27 base62 digits. */
export function clerkId(p: Person): string {
  let n = ((BigInt(Math.floor(p.createdMs / 1000)) - KSUID_EPOCH_S) << 128n) | (BigInt(p.i) * 0x9e3779b97f4a7c15n + 0x2545f491n);
  let digits = '';
  for (let k = 0; k < 27; k++, n /= 62n) digits = BASE62[Number(n % 62n)] + digits;
  return `user_${digits}`;
}

export const clerk: ExportGenerator = {
  source: 'clerk',
  format: 'dashboard CSV',
  mix: ['password', 'phone', 'metadata'],
  async write(dir, n) {
    const [[sourceId, password]] = fixturePasswords('clerk');
    const row = fixtureText('clerk', 'clerk-users.csv')
      .split('\n')
      .find((r) => r.startsWith(`${sourceId},`))!
      .split(',');
    const [digest, hasher] = row.slice(-2);
    const out = new ExportWriter(join(dir, 'clerk-users.csv'));
    await out.write(`${COLUMNS}\n`);
    for (let i = 0; i < n; i++) {
      const p = person(i);
      const [first, last] = p.name.split(' ');
      const email = p.email ?? '';
      const withPassword = p.kind === 'password' || p.kind === 'linked';
      const cells = [
        clerkId(p),
        first,
        p.metadata ? last : '',
        '',
        email,
        p.phone ?? '',
        p.verified ? email : '',
        p.verified ? '' : email,
        p.phone ?? '',
        '',
        '',
        withPassword ? digest : '',
        withPassword ? hasher : '',
      ];
      await out.write(`${cells.join(',')}\n`);
    }
    await out.close();
    return { file: out.file, companions: {}, probe: { sourceId: clerkId(person(0)), password } };
  },
};
