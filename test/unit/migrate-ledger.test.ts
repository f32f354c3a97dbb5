import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ledger, sentOf } from '../../lib/migrate/ledger';
import { DiskExportIds } from '../../lib/migrate/verify-report';
import type { BulkUserInput } from '../../lib/migrate/model';
import { scratchDir } from '../support/scratch';

/**
 * The ledger (SPEC §17c): what was sent per user, secrets as digests only; found by source,
 * service and tenant, never by the export's content; later lines win, a removed user is forgotten.
 */
const dir = scratchDir('migrate-ledger-');
const HASH = '$2b$10$AXGRFKO63u.HcWaQSN01WevP9SWx2B6zl9j/lFQvqeGB4HC9DPdvG';
const TOTP = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

const user = (over: Partial<BulkUserInput> = {}): BulkUserInput => ({
  externalUserId: 'u-1',
  userMetadata: { plan: 'pro' },
  userRoles: [{ role: 'editor', tenantIds: ['public'] }],
  loginMethods: [
    { recipeId: 'emailpassword', tenantIds: ['public'], isVerified: true, email: 'ada@x.example', passwordHash: HASH, hashingAlgorithm: 'bcrypt' },
  ],
  totpDevices: [{ secretKey: TOTP, deviceName: 'phone', period: 30, skew: 1 }],
  ...over,
});

describe('sentOf', () => {
  it('keeps the mapped fields and a digest of each secret, never the secret', () => {
    const sent = sentOf(user());
    expect(sent).not.toContain(HASH);
    expect(sent).not.toContain(TOTP);
    const parsed = JSON.parse(sent);
    expect(parsed.loginMethods[0]).toEqual({
      email: 'ada@x.example',
      hashingAlgorithm: 'bcrypt',
      isVerified: true,
      passwordHashDigest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      recipeId: 'emailpassword',
      tenantIds: ['public'],
    });
    expect(parsed.totpDevices[0]).toEqual({ deviceName: 'phone', period: 30, secretKeyDigest: expect.stringMatching(/^sha256:/), skew: 1 });
    expect(parsed.userMetadata).toEqual({ plan: 'pro' });
  });

  it('is the same text for the same user whatever the key order, and another for another hash', () => {
    const reordered = JSON.parse(JSON.stringify(user()), (_k, v) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    );
    expect(sentOf(reordered)).toBe(sentOf(user()));
    const other = user();
    other.loginMethods[0].passwordHash = '$2b$10$jWSyoc5X31A/lU5dTCy5yOcMBSBI5lZzC9zZC3lf4.0icab1St856';
    expect(sentOf(other)).not.toBe(sentOf(user()));
  });
});

describe('Ledger', () => {
  it('is found by source, service and tenant only', () => {
    const report = join(dir, 'r.json');
    const key = { source: 'auth0', url: 'http://localhost:3567', tenant: 'public' };
    expect(Ledger.pathFor(join(dir, 'other.json'), key)).toBe(Ledger.pathFor(report, key));
    expect(Ledger.pathFor(report, { ...key, tenant: 'shop' })).not.toBe(Ledger.pathFor(report, key));
    expect(Ledger.pathFor(report, { ...key, url: 'http://127.0.0.1:3567' })).not.toBe(Ledger.pathFor(report, key));
    expect(Ledger.pathFor(report, { ...key, source: 'firebase' })).not.toBe(Ledger.pathFor(report, key));
  });

  it('reads back what it recorded: the later line wins, a removed user is forgotten, a cut line is skipped', async () => {
    const file = join(dir, 'ledger-1.ndjson');
    const first = new Ledger(file);
    first.record('a', 'a', sentOf(user()));
    first.record('b', 'b', sentOf(user({ externalUserId: 'b' })));
    const newer = sentOf(user({ userMetadata: { plan: 'team' } }));
    first.record('a', 'a', newer);
    first.forget('b');
    first.flush();
    const text = readFileSync(file, 'utf8');
    expect([text.includes(HASH), text.includes(TOTP)]).toEqual([false, false]);
    appendFileSync(file, '{"sourceId":"c","userId":"c","sent":{"extern');
    const again = new Ledger(file);
    await again.load();
    expect([again.loaded, again.get('a')?.userId, again.get('a')?.sent(), again.get('b'), again.get('c')]).toEqual([3, 'a', newer, undefined, undefined]);
    expect([again.holds('a', newer), again.holds('a', sentOf(user()))]).toEqual([true, false]);
    again.close();
  });

  it('stays on disk: 2,000 users over many sorted runs answer as recorded, and the users not met are the gone ones', async () => {
    const file = join(dir, 'ledger-2.ndjson');
    const first = new Ledger(file);
    const sent = (i: number) => sentOf(user({ externalUserId: `u-${i}`, userMetadata: { n: i } }));
    // Recorded in no order of their ids, some twice (the later wins), every 100th removed.
    for (let i = 0; i < 2000; i++) first.record(`s-${(i * 7919) % 2000}`, `u-${(i * 7919) % 2000}`, sent((i * 7919) % 2000));
    for (let i = 0; i < 2000; i += 3) first.record(`s-${i}`, `v-${i}`, sent(i + 1));
    for (let i = 0; i < 2000; i += 100) first.forget(`s-${i}`);
    first.flush();

    const again = new Ledger(file);
    // Runs of 16 KB and blocks of 512 bytes: the join is sorted from dozens of runs.
    await again.load({ runChars: 16 << 10, blockBytes: 512 });
    for (let i = 0; i < 2000; i++) {
      const entry = again.get(`s-${i}`);
      if (i % 100 === 0) expect(entry).toBeUndefined();
      else if (i % 3 === 0) expect([entry?.userId, entry?.sent()]).toEqual([`v-${i}`, sent(i + 1)]);
      else expect([entry?.userId, entry?.sent(), again.holds(`s-${i}`, sent(i))]).toEqual([`u-${i}`, sent(i), true]);
    }
    expect(again.get('s-2000')).toBeUndefined();
    // The export holds every user but those whose number ends in 7: those are gone (the removed ones are not).
    for (let i = 0; i < 2000; i++) {
      if (i % 10 === 7) continue;
      // Marked met, answering what `get` answers.
      const entry = again.met(`s-${i}`);
      expect([entry?.userId, entry?.digest]).toEqual([again.get(`s-${i}`)?.userId, again.get(`s-${i}`)?.digest]);
    }
    const gone = [...again.notMet()];
    const expected = Array.from({ length: 2000 }, (_, i) => i)
      .filter((i) => i % 10 === 7)
      .map((i) => ({ sourceId: `s-${i}`, userId: i % 3 === 0 ? `v-${i}` : `u-${i}` }))
      .sort((a, b) => (JSON.stringify(a.sourceId) < JSON.stringify(b.sourceId) ? -1 : 1));
    expect(gone).toEqual(expected);
    again.close();
  });
});

describe('DiskExportIds (verify --extra)', () => {
  it('answers which ids the export had, sorted on disk from many runs', async () => {
    const ids = new DiskExportIds({ runChars: 4 << 10, blockBytes: 256 });
    for (let i = 0; i < 3000; i += 2) ids.add(`user-${(i * 7919) % 3000}`);
    const answers = await Promise.all(Array.from({ length: 3000 }, (_, i) => ids.has(`user-${i}`)));
    const held = new Set(Array.from({ length: 1500 }, (_, k) => (k * 2 * 7919) % 3000));
    expect(answers).toEqual(Array.from({ length: 3000 }, (_, i) => held.has(i)));
    expect(() => ids.add('late')).toThrow('after the first look-up');
  });

  it('answers no for every id when the export had none', async () => {
    const ids = new DiskExportIds();
    expect([await ids.has('a'), await ids.has('')]).toEqual([false, false]);
  });

  it("remembers the service's latest answer about passkey RP ids, also for a reader of that line alone", async () => {
    const file = join(dir, 'ledger-rp.ndjson');
    expect(await Ledger.readPasskeyRpIds(file)).toBeUndefined();
    const first = new Ledger(file);
    first.record('a', 'a', sentOf(user()));
    first.recordPasskeyRpIds({ accepted: { 'x.example': true, 'old.x.example': false }, serviceRpIds: ['x.example'] });
    const latest = { accepted: { 'x.example': true, 'old.x.example': true }, serviceRpIds: ['x.example', 'old.x.example'] };
    first.recordPasskeyRpIds(latest);
    first.flush();
    appendFileSync(file, '{"passkeyRpIds":{"accepted":{"x.example":"yes"},"serviceRpIds":[]}}\n');
    const again = new Ledger(file);
    await again.load();
    expect([again.loaded, again.passkeyRpIds, await Ledger.readPasskeyRpIds(file)]).toEqual([1, latest, latest]);
  });
});
