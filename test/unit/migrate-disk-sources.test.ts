import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskJoin } from '../../lib/migrate/disk-join';
import type { MapOptions } from '../../lib/migrate/model';
import { cognitoSource, GroupIndex } from '../../lib/migrate/sources/cognito';

/**
 * The sources' per-user indexes on disk (SPEC §17c, bounded memory): Cognito's `--groups`. With runs
 * and blocks so small that a few thousand rows take many of each, every user gets what the
 * in-memory index it replaced gave (computed here as that index did), the members of no user are
 * still counted, and no scratch file is left.
 */

const files = mkdtempSync(join(tmpdir(), 'migrate-disk-sources-'));
const scratch = mkdtempSync(join(tmpdir(), 'migrate-disk-sources-tmp-'));
const savedTmp = process.env.TMPDIR;
const build = DiskJoin.build.bind(DiskJoin);
/** The joins built in the test, each from runs of about 16,000 characters in blocks of 256 bytes. */
let joins: DiskJoin<unknown>[] = [];

beforeAll(() => {
  process.env.TMPDIR = scratch;
});
beforeEach(() => {
  joins = [];
  jest.spyOn(DiskJoin, 'build').mockImplementation((async (rows: AsyncIterable<{ key: string; item: unknown }>) => {
    const join = await build(rows, { runChars: 16_000, blockBytes: 256 });
    joins.push(join);
    return join;
  }) as typeof DiskJoin.build);
});
afterEach(() => {
  jest.restoreAllMocks();
  expect(readdirSync(scratch)).toEqual([]);
});
afterAll(() => {
  process.env.TMPDIR = savedTmp;
  rmSync(files, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** A deterministic pseudo-random sequence (xorshift32). */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const written = (name: string, body: string): string => {
  const file = join(files, name);
  writeFileSync(file, body);
  return file;
};

describe('Cognito --groups', () => {
  it("joins 3,000 users' groups across many runs, each group once in file order, and counts the members of no user", async () => {
    const next = random(7);
    // Usernames that sort in no order of the file: multi-byte, quotes, federated ones.
    const usernames = Array.from({ length: 3000 }, (_, i) => [`user-${i}`, `Google_${Math.floor(next() * 1e12)}`, `ü${i}"q"`][i % 3]);
    const ghosts = Array.from({ length: 150 }, (_, i) => `ghost-${i}`);
    const groupNames = ['staff', 'ops.team', 'élèves', 'admins', 'x'];
    // The old index: each member's groups in a Set, in the order the file names them.
    const expected = new Map<string, Set<string>>();
    const groups: Record<string, { Users: { Username: string }[] }> = {};
    for (const group of groupNames) {
      const members = [...usernames, ...ghosts].filter(() => next() < 0.35);
      // Some members twice in one group (a page read twice).
      members.push(...members.filter(() => next() < 0.05));
      groups[group] = { Users: members.map((Username) => ({ Username })) };
      for (const m of members) expected.set(m, (expected.get(m) ?? new Set()).add(group));
    }
    const users = usernames.map((Username, i) => ({
      Username,
      Attributes: [
        { Name: 'sub', Value: `sub-${i}` },
        { Name: 'email', Value: `u${i}@x.example` },
      ],
      UserStatus: 'CONFIRMED',
      Enabled: true,
    }));
    const opts: MapOptions = { tenant: 'public', noHash: 'migrate-on-signin', includeDisabled: false };
    const source = cognitoSource(written('users.json', JSON.stringify({ Users: users })), {
      opts,
      groups: await GroupIndex.read(written('groups.json', JSON.stringify(groups))),
    });

    const got: string[][] = [];
    for await (const m of source.users()) got.push(m.user?.userRoles?.map((r) => r.role) ?? []);
    expect(joins.map((j) => j.runs > 10)).toEqual([true]);
    expect(got).toEqual(usernames.map((u) => [...(expected.get(u) ?? [])]));
    expect(got.filter((roles) => roles.length > 1).length).toBeGreaterThan(500);
    const orphans = ghosts.filter((g) => expected.has(g)).length;
    expect(orphans).toBeGreaterThan(100);
    expect(source.notes()).toEqual({ groupMembersWithoutUser: orphans, mfa: expect.any(String) });
  });
});
