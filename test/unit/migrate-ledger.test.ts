import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ledger, sentOf } from '../../lib/migrate/ledger';
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
    expect([again.loaded, again.get('a'), again.get('b'), again.get('c')]).toEqual([1, { userId: 'a', sent: newer }, undefined, undefined]);
  });
});
