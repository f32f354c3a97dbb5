import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATION_FIXTURES } from '../../test/support/migration';
import { ExportWriter, type ExportGenerator, type GeneratedExport, type Person, person } from './people';

/**
 * Firebase `auth:export` (JSON and CSV) of the bench's population: password users with the real
 * Firebase-scrypt hashes of the fixture's known passwords (and its `hash-config.txt`), Google and
 * GitHub identities in `providerUserInfo`, phone users, email-link users, custom claims, disabled
 * users, laid out as firebase-tools writes them (test/fixtures/migration/firebase).
 */
const FIREBASE = join(MIGRATION_FIXTURES, 'firebase');
const HASH_CONFIG = join(FIREBASE, 'hash-config.txt');

interface Known {
  readonly passwordHash: string;
  readonly salt: string;
  readonly password: string;
}

function fixtureHashes(): { known: readonly Known[]; signerKey: string } {
  const file = JSON.parse(readFileSync(join(FIREBASE, 'known-passwords.json'), 'utf8'));
  return { known: file.users, signerKey: file.hash_config.base64_signer_key };
}

const localIdOf = (i: number): string => `bm${String(i).padStart(8, '0')}Xq7aZ2bLm9Qr4tUv`;
const PROVIDER = { google: 'google.com', github: 'github.com' } as const;

/** One account as `auth:export` JSON holds it. */
function account(p: Person, known: readonly Known[]): Record<string, unknown> {
  const pair = known[p.i % known.length];
  const social = p.social && {
    providerId: PROVIDER[p.social.provider],
    rawId: p.social.id,
    email: p.email,
    displayName: p.name,
    photoUrl: `https://lh3.googleusercontent.com/a/${p.social.id}=s96-c`,
  };
  return {
    localId: localIdOf(p.i),
    ...(p.email ? { email: p.email, emailVerified: p.verified } : {}),
    ...(p.kind === 'password' || p.kind === 'linked' ? { passwordHash: pair.passwordHash, salt: pair.salt } : {}),
    displayName: p.name,
    lastSignedInAt: String(p.lastLoginMs),
    createdAt: String(p.createdMs),
    ...(p.phone ? { phoneNumber: p.phone } : {}),
    ...(p.disabled ? { disabled: true } : {}),
    ...(p.metadata || p.role ? { customAttributes: JSON.stringify({ ...p.metadata, ...(p.role ? { role: p.role } : {}) }) } : {}),
    providerUserInfo: social ? [social] : [],
  };
}

async function generate(dir: string, n: number, write: (out: ExportWriter, users: AsyncIterable<Record<string, unknown>>) => Promise<void>, name: string) {
  const { known, signerKey } = fixtureHashes();
  const out = new ExportWriter(join(dir, name));
  await write(
    out,
    (async function* () {
      for (let i = 0; i < n; i++) yield account(person(i), known);
    })(),
  );
  await out.close();
  const probe = person(0);
  return {
    file: out.file,
    companions: { hashConfig: HASH_CONFIG },
    probe: { sourceId: localIdOf(probe.i), password: known[0].password, signerKey },
  } satisfies GeneratedExport;
}

export const firebaseJson: ExportGenerator = {
  source: 'firebase',
  format: 'auth:export JSON',
  mix: ['password', 'social', 'linked', 'phone', 'metadata', 'disabled'],
  write: (dir, n) =>
    generate(
      dir,
      n,
      async (out, users) => {
        // firebase-tools writes `{"users": [` then each account indented by two, comma-separated.
        await out.write('{"users": [\n');
        let first = true;
        for await (const user of users) {
          await out.write(`${first ? '' : ',\n'}${JSON.stringify(user, null, 2)}`);
          first = false;
        }
        await out.write('\n]}\n');
      },
      'users.json',
    ),
};

/** The provider columns of firebase-tools' CSV (four cells each: rawId, email, displayName, photoUrl). */
const CSV_PROVIDER_AT: Readonly<Record<string, number>> = { 'google.com': 7, 'github.com': 19 };
const CSV_CELLS = 52;
const csvCell = (v: unknown): string => {
  const s = v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** One account as a row of firebase-tools' CSV (`transUserToArray`): 52 cells and a trailing comma. */
function csvRow(user: Record<string, unknown>): string {
  const cells: string[] = Array(CSV_CELLS).fill('');
  const put = (at: number, v: unknown) => (cells[at] = csvCell(v));
  put(0, user.localId);
  put(1, user.email);
  put(2, user.emailVerified ?? false);
  put(3, user.passwordHash);
  put(4, user.salt);
  put(5, user.displayName);
  for (const p of user.providerUserInfo as Record<string, string>[]) {
    const at = CSV_PROVIDER_AT[p.providerId];
    [p.rawId, p.email, p.displayName, p.photoUrl].forEach((v, k) => put(at + k, v));
  }
  put(23, user.createdAt);
  put(24, user.lastSignedInAt);
  put(25, user.phoneNumber);
  put(26, user.disabled ?? false);
  // The claims: every quote doubled, unless a backslash precedes it (the exporter's own rule).
  if (typeof user.customAttributes === 'string') cells[27] = `"${user.customAttributes.replace(/(?<!\\)"/g, '""')}"`;
  return `${cells.join(',')},\n`;
}

export const firebaseCsv: ExportGenerator = {
  source: 'firebase',
  format: 'auth:export CSV',
  mix: firebaseJson.mix,
  write: (dir, n) =>
    generate(
      dir,
      n,
      async (out, users) => {
        for await (const user of users) await out.write(csvRow(user));
      },
      'users.csv',
    ),
};
