import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import type { Companions } from '../../lib/migrate/model';
import { MIGRATION_FIXTURES } from '../../test/support/migration';

/**
 * The synthetic user base of the mapping figure (bench/README.md, figure 16): one population,
 * which every source's generator (`./<source>.ts`) writes in that source's own export format, so
 * the sources are compared on the same users. Per 20 users: 10 with a password, 3 social only
 * (2 Google, 1 GitHub), 2 password + Google (linked), 2 phone only, 3 email without a password
 * (magic link); a third with metadata, a tenth with a role, one in 50 disabled, and one pair of
 * password users sharing an email per 1,000 (a collision the plan finds). Nothing random: user
 * `i` is the same in every run and every format.
 */

export type Kind = 'password' | 'social' | 'linked' | 'phone' | 'magic-link';

export interface Person {
  readonly i: number;
  readonly kind: Kind;
  /** Lower case (the service's normal form); absent for a phone-only user. */
  readonly email?: string;
  readonly name: string;
  readonly verified: boolean;
  /** E.164. */
  readonly phone?: string;
  /** The social identity (social and linked users). */
  readonly social?: { readonly provider: 'google' | 'github'; readonly id: string };
  readonly createdMs: number;
  readonly lastLoginMs: number;
  /** App-level data the source keeps beside the user (claims, app_metadata, …). */
  readonly metadata?: Readonly<Record<string, string>>;
  readonly role?: string;
  readonly disabled: boolean;
}

const FIRST = ['ana', 'ben', 'chloé', 'dmitri', 'emeka', 'fatima', 'grace', 'hiro', 'ines', 'jonas', 'kai', 'lena'];
const LAST = ['silva', 'okafor', 'müller', 'nguyen', 'kowalski', 'haddad', 'tanaka', 'dubois', 'rossi', 'larsen'];
const DOMAINS = ['example.net', 'example.org', 'mail.example.com'];
const KINDS: readonly Kind[] = [
  ...Array<Kind>(10).fill('password'),
  'social',
  'social',
  'social',
  'linked',
  'linked',
  'phone',
  'phone',
  'magic-link',
  'magic-link',
  'magic-link',
];

const emailOf = (i: number): string => {
  const first = FIRST[i % FIRST.length].normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  const last = LAST[Math.floor(i / FIRST.length) % LAST.length].normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  return `${first}.${last}.${i}@${DOMAINS[i % DOMAINS.length]}`;
};

export function person(i: number): Person {
  // Users 998 and 999 of every 1,000 are password users with one email: a collision.
  const pair = i % 1000 >= 998;
  const kind = pair ? 'password' : KINDS[i % KINDS.length];
  const createdMs = 1_500_000_000_000 + i * 7_919;
  const name = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
  return {
    i,
    kind,
    ...(kind === 'phone' ? {} : { email: emailOf(i % 1000 === 999 ? i - 1 : i) }),
    name,
    verified: kind === 'phone' || i % 4 !== 0,
    ...(kind === 'phone' ? { phone: `+4420${String(70_000_000 + i).slice(-8)}` } : {}),
    ...(kind === 'social' || kind === 'linked'
      ? {
          social:
            kind === 'social' && i % 20 === 12
              ? { provider: 'github' as const, id: String(9_000_000 + i) }
              : { provider: 'google' as const, id: String(108_000_000_000_000_000_000n + BigInt(i)) },
        }
      : {}),
    createdMs,
    lastLoginMs: createdMs + 86_400_000 * (1 + (i % 400)),
    ...(i % 3 === 0 ? { metadata: { plan: i % 2 === 0 ? 'pro' : 'free', locale: 'de-DE', signupSource: 'ios' } } : {}),
    ...(i % 10 === 0 ? { role: 'member' } : {}),
    disabled: i % 50 === 7,
  };
}

/** A hex id of 24 characters (a Mongo ObjectId, as Auth0 makes them). */
export const hex24 = (i: number, prefix = 0x61a): string => `${prefix.toString(16)}${i.toString(16).padStart(21, '0')}`.slice(-24);

/** A UUID made from a number (Supabase, Cognito ids). */
export const uuidOf = (i: number, prefix = 'b2'): string => {
  const hex = `${prefix}${i.toString(16).padStart(30, '0')}`.slice(-32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
};

/** A fixture file of `test/fixtures/migration/<source>/`, as text. */
export const fixtureText = (source: string, file: string): string => readFileSync(join(MIGRATION_FIXTURES, source, file), 'utf8');

/** The known passwords of a source's fixture (its expected.json), by source id, in the fixture's order. */
export const fixturePasswords = (source: string): Map<string, string> =>
  new Map(
    (JSON.parse(fixtureText(source, 'expected.json')).users as { sourceId: string; password?: string }[]).flatMap((u) =>
      u.password === undefined ? [] : [[u.sourceId, u.password] as const],
    ),
  );

/** A file written as a stream (an export of 100,000 users is never held whole). */
export class ExportWriter {
  private readonly out;

  constructor(readonly file: string) {
    this.out = createWriteStream(file);
  }

  async write(text: string): Promise<void> {
    if (!this.out.write(text)) await once(this.out, 'drain');
  }

  async close(): Promise<void> {
    this.out.end();
    await once(this.out, 'finish');
  }
}

/** What a generator wrote: the export, the companions to open it with, and one known password. */
export interface GeneratedExport {
  readonly file: string;
  readonly companions: Companions;
  /**
   * A user whose imported hash must verify with `password` (checked by the generators' test);
   * none for a source that exports no hash (Cognito).
   */
  readonly probe?: { readonly sourceId: string; readonly password: string; readonly signerKey?: string };
}

/** What a generator's export holds, as the generators' test checks it on the mapped users. */
export type Mix = 'password' | 'migrate-on-signin' | 'social' | 'linked' | 'phone' | 'metadata' | 'roles' | 'disabled';

/** One export format of one source of `SOURCES` (lib/migrate/sources/index.ts). */
export interface ExportGenerator {
  /** The source's name in `SOURCES`. */
  readonly source: string;
  /** The export format, for the table (`auth:export JSON`). */
  readonly format: string;
  /** What the mapped users include (the generators' test fails when one is missing). */
  readonly mix: readonly Mix[];
  /**
   * `secondFactors`: also the second factors of one user in 10 where the source keeps them in the
   * export or a companion of its own (Django's devices, WordPress's wp_usermeta); figure 16 does
   * without, the bounded-memory measurement (`./dry-run.ts`) with.
   */
  write(dir: string, n: number, options?: { readonly secondFactors?: boolean }): Promise<GeneratedExport>;
}
