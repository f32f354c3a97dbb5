import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskJoin } from '../../lib/migrate/disk-join';
import type { SecondFactor } from '../../lib/migrate/mfa';
import type { MapOptions } from '../../lib/migrate/model';
import { cognitoSource, GroupIndex } from '../../lib/migrate/sources/cognito';
import { DumpIndex } from '../../lib/migrate/sources/django';
import { deviceUserKey, djangoFactor } from '../../lib/migrate/sources/django-otp';
import { phpStringArray, UsermetaIndex } from '../../lib/migrate/sources/wordpress-usermeta';
import { random } from '../support/random';

/**
 * The sources' per-user indexes on disk (SPEC §17c, bounded memory): Cognito's `--groups`, Django's devices, WordPress's `--usermeta`. With runs
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

describe('Django devices', () => {
  it("joins 2,000 users' devices (by pk and by username) across many runs, in dump order", async () => {
    const next = random(11);
    const users = Array.from({ length: 2000 }, (_, i) => ({
      model: 'auth.user',
      pk: i + 1,
      fields: { username: `user${i + 1}`, password: '', email: `u${i + 1}@x.example`, is_active: true, date_joined: '2024-01-01T00:00:00Z', groups: [] },
    }));
    const hex = () =>
      Array.from({ length: 20 }, () =>
        Math.floor(next() * 256)
          .toString(16)
          .padStart(2, '0'),
      ).join('');
    const devices: { model: string; pk: number; fields: Record<string, unknown> }[] = [];
    for (let n = 0; n < 3000; n++) {
      const i = Math.floor(next() * 2100) + 1; // some devices name no user of the dump
      const user = next() < 0.2 ? [`user${i}`] : i;
      const kind = next();
      const fields: Record<string, unknown> =
        kind < 0.5
          ? { user, name: `phone ${n}`, confirmed: next() < 0.9, key: hex(), step: 30, t0: 0, digits: 6, tolerance: 1 }
          : kind < 0.8
            ? { user, name: 'sms', confirmed: true, method: 'sms', number: `+4479460${String(n).padStart(5, '0')}` }
            : { user, name: 'backup', confirmed: true };
      devices.push({ model: kind < 0.5 ? 'otp_totp.totpdevice' : kind < 0.8 ? 'two_factor.phonedevice' : 'otp_static.staticdevice', pk: n + 1, fields });
    }
    const dump = written('auth.json', JSON.stringify([{ model: 'auth.group', pk: 1, fields: { name: 'member' } }, ...users, ...devices]));
    // The old index: each user key's factors, in dump order.
    const expected = new Map<string, SecondFactor[]>();
    for (const d of devices) {
      const key = deviceUserKey(d.fields.user);
      const factor = djangoFactor(d.model, d.fields);
      if (key !== undefined && factor !== undefined) expected.set(key, [...(expected.get(key) ?? []), factor]);
    }

    const index = await DumpIndex.read(dump);
    expect(joins.map((j) => j.runs > 10)).toEqual([true]);
    const got = users.map((u) => index.factorsOf(u.pk, u.fields.username));
    expect(got).toEqual(users.map((u) => [...(expected.get(`pk:${u.pk}`) ?? []), ...(expected.get(`username:${u.fields.username}`) ?? [])]));
    expect(got.filter((f) => f.length > 2).length).toBeGreaterThan(50);
    expect([index.users, index.factorsOf(9999, 'nobody')]).toEqual([2000, []]);
  });
});

describe('WordPress --usermeta', () => {
  it("joins 3,000 users' Two Factor meta across many runs, a later row winning as before", async () => {
    const next = random(13);
    const PROVIDERS = ['a:1:{i:0;s:15:"Two_Factor_Totp";}', 'a:2:{i:0;s:15:"Two_Factor_Totp";i:1;s:16:"Two_Factor_Email";}', 'a:1:{i:0;s:3:"cut', ''];
    const rows: [string, string, string][] = [];
    for (let n = 0; n < 9000; n++) {
      const id = Math.floor(next() * 3000) + 1;
      const r = next();
      const key = r < 0.4 ? '_two_factor_totp_key' : r < 0.75 ? '_two_factor_enabled_providers' : 'nickname';
      const value =
        key === '_two_factor_totp_key' ? (next() < 0.1 ? '' : `KEY${n}ABCDEFGHIJ`) : key === 'nickname' ? `nick ${n}` : PROVIDERS[Math.floor(next() * 4)];
      // A user id with leading zeros, and some that are not numbers.
      rows.push([n % 500 === 7 ? 'x' : n % 97 === 3 ? `00${id}` : String(id), key, value]);
    }
    const csv = (v: string) => `"${v.replace(/"/g, '""')}"`;
    const file = written('wp_usermeta.csv', `umeta_id,user_id,meta_key,meta_value\n${rows.map((r, n) => `${n + 1},${r.map(csv).join(',')}`).join('\n')}\n`);
    // The old index: one object per user, its keys set row by row.
    const expected = new Map<string, { totpKey?: string; providers?: string[] | null }>();
    for (const [rawId, key, value] of rows) {
      if (key === 'nickname' || !/^\d+$/.test(rawId)) continue;
      const id = String(BigInt(rawId));
      const meta = expected.get(id) ?? {};
      if (key === '_two_factor_totp_key' && value !== '') meta.totpKey = value;
      if (key === '_two_factor_enabled_providers') meta.providers = value === '' ? [] : (phpStringArray(value) ?? null);
      expected.set(id, meta);
    }

    const index = await UsermetaIndex.read(file);
    expect(joins.map((j) => j.runs > 10)).toEqual([true]);
    const ids = Array.from({ length: 3010 }, (_, i) => String(i));
    expect(ids.map((id) => index.of(id))).toEqual(ids.map((id) => expected.get(id)));
    expect(ids.filter((id) => index.of(id)?.providers === null).length).toBeGreaterThan(100);
    expect(index.unreadable.map((u) => u.reason)).toEqual(
      rows.flatMap(([id, key], n) => (id === 'x' && key !== 'nickname' ? [`row ${n + 2}: user_id is not a number`] : [])),
    );
  });
});
