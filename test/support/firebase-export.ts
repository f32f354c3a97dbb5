import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';

/**
 * Writes a Firebase `auth:export` JSON file of `count` generated users, streamed (never held
 * whole), in the exporter's own layout: password users with real Firebase-scrypt hashes (the
 * fixture's known pairs), Google users, password + Google, phone users and email-link users, one
 * in 50 disabled, and a pair of colliding emails every 1,000 users. Used by the memory test of the
 * dry run and by the bench.
 */
export async function writeFirebaseExport(file: string, count: number, prefix = 'gen'): Promise<{ bytes: number }> {
  const known = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'migration', 'firebase', 'known-passwords.json'), 'utf8')).users as {
    passwordHash: string;
    salt: string;
  }[];
  const out = createWriteStream(file);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('{"users": [\n');
  for (let i = 0; i < count; i++) {
    const id = `${prefix}${String(i).padStart(8, '0')}Xq7aZ2bLm9`;
    const email = i % 1000 === 999 ? `${prefix}.${i - 1}@example.net` : `${prefix}.${i}@example.net`;
    const created = String(1_500_000_000_000 + i * 1000);
    const pair = known[i % known.length];
    const user: Record<string, unknown> = {
      localId: id,
      email,
      emailVerified: i % 3 !== 0,
      displayName: `User ${i}`,
      lastSignedInAt: created,
      createdAt: created,
    };
    switch (i % 5) {
      case 0:
      case 1:
        Object.assign(user, { passwordHash: pair.passwordHash, salt: pair.salt, providerUserInfo: [] });
        break;
      case 2:
        user.providerUserInfo = [{ providerId: 'google.com', rawId: String(100_000_000_000_000_000_000n + BigInt(i)), email, displayName: `User ${i}` }];
        break;
      case 3:
        Object.assign(user, { passwordHash: pair.passwordHash, salt: pair.salt });
        user.providerUserInfo = [{ providerId: 'google.com', rawId: String(200_000_000_000_000_000_000n + BigInt(i)), email }];
        break;
      default:
        if (i % 10 === 4) {
          delete user.email;
          delete user.emailVerified;
          user.phoneNumber = `+4420${String(70_000_000 + i).slice(-8)}`;
        }
        user.providerUserInfo = [];
    }
    if (i % 1000 === 999) Object.assign(user, { passwordHash: pair.passwordHash, salt: pair.salt, providerUserInfo: [] });
    if (i % 50 === 7) user.disabled = true;
    await write(`${i === 0 ? '' : ',\n'}${JSON.stringify(user, null, 2)}`);
  }
  await write('\n]}\n');
  out.end();
  await once(out, 'finish');
  return { bytes };
}
