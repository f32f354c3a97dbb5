import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENERATORS } from '../../bench/migrate';
import { measureMapping } from '../../bench/migrate/measure';
import type { Mix } from '../../bench/migrate/people';
import type { MappedUser } from '../../lib/migrate/model';
import { SOURCES } from '../../lib/migrate/sources';
import { verifyPassword } from '../../lib/password';

/**
 * The export generators of the mapping figure (bench/README.md, figure 16) cannot rot: each one's
 * small export is read by its source with every user there and none failed, holds the mix it
 * declares, and its probe user's imported hash verifies with the known password (so the hashes are
 * real ones in the source's form, not strings that merely pass a pattern); a generator without a
 * probe writes a source that exports no hash (Cognito), and none may come out of it.
 */
const N = 50;
const dir = mkdtempSync(join(tmpdir(), 'bench-generators-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Whether the mapped users hold one of a kind. */
const HAS: Record<Mix, (users: readonly MappedUser[]) => boolean> = {
  password: (users) => users.some((u) => u.user?.loginMethods.some((lm) => lm.recipeId === 'emailpassword' && lm.passwordHash !== undefined)),
  'migrate-on-signin': (users) => users.some((u) => u.user?.loginMethods.some((lm) => lm.recipeId === 'emailpassword' && lm.migratePasswordOnSignIn === true)),
  social: (users) => users.some((u) => u.user?.loginMethods.some((lm) => lm.recipeId === 'thirdparty')),
  linked: (users) => users.some((u) => (u.user?.loginMethods.length ?? 0) > 1),
  phone: (users) => users.some((u) => u.user?.loginMethods.some((lm) => lm.recipeId === 'passwordless' && lm.phoneNumber !== undefined)),
  metadata: (users) => users.some((u) => Object.keys(u.user?.userMetadata ?? {}).length > 0),
  roles: (users) => users.some((u) => (u.user?.userRoles?.length ?? 0) > 0),
  disabled: (users) => users.some((u) => u.notImported?.outcome === 'skipped' && u.notImported.code === 'disabled'),
};

it('every generator names a source of the command', () => {
  const names = SOURCES.map((s) => s.name);
  for (const g of GENERATORS) expect([g.format, names.includes(g.source)]).toEqual([g.format, true]);
});

describe.each(GENERATORS.map((g) => [`${g.source} (${g.format})`, g] as const))('%s', (_, generator) => {
  it(`${N} users: all read, none failed, the declared mix, a known password where there are hashes`, async () => {
    const written = await generator.write(mkdtempSync(join(dir, `${generator.source}-`)), N);
    const definition = SOURCES.find((s) => s.name === generator.source)!;
    const source = await definition.open(
      written.file,
      { tenant: 'public', noHash: definition.noHash ?? 'passwordless', includeDisabled: false },
      written.companions,
    );
    const users: MappedUser[] = [];
    for await (const m of source.users()) users.push(m);

    expect(users).toHaveLength(N);
    expect(users.filter((u) => u.notImported?.outcome === 'failed').map((u) => [u.sourceId, u.notImported?.code])).toEqual([]);
    expect(new Set(users.map((u) => u.sourceId)).size).toBe(N);
    for (const kind of generator.mix) expect([kind, HAS[kind](users)]).toEqual([kind, true]);

    if (written.probe === undefined) {
      expect(users.filter((u) => u.user?.loginMethods.some((lm) => lm.passwordHash !== undefined)).map((u) => u.sourceId)).toEqual([]);
      return;
    }
    const { sourceId, password, signerKey } = written.probe;
    const hashed = users.find((u) => u.sourceId === sourceId)?.user?.loginMethods.find((lm) => lm.passwordHash !== undefined);
    expect(hashed).toBeDefined();
    expect(await verifyPassword(password, hashed!.passwordHash!, { signerKey })).toBe(true);
    expect(await verifyPassword(`${password}x`, hashed!.passwordHash!, { signerKey })).toBe(false);
  });
});

it("the figure's measurement counts what the source reads, and the plan finds the generated collision", async () => {
  const generator = GENERATORS.find((g) => g.source === 'auth0')!;
  const written = await generator.write(mkdtempSync(join(dir, 'measure-')), 1000);
  const job = { source: generator.source, file: written.file, companions: written.companions };
  const read = await measureMapping({ ...job, pass: 'read' });
  const plan = await measureMapping({ ...job, pass: 'plan' });
  // One blocked user in 50 is skipped; users 998 and 999 share an email, which only the plan sees.
  expect([read.users, read.skipped, read.failed]).toEqual([1000, 20, 0]);
  expect([plan.users, plan.skipped, plan.failed, plan.imported]).toEqual([1000, 20, 2, 978]);
  expect(read.ms).toBeGreaterThan(0);
});
