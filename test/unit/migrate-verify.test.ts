import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BulkUserInput } from '../../lib/migrate/model';
import { compareUser, readsFor, type ServiceSide } from '../../lib/migrate/verify-compare';
import { lineOf, TERMINAL_LINES, VerifyReport } from '../../lib/migrate/verify-report';
import { scratchDir } from '../support/scratch';

/**
 * `migrate verify`'s comparison and report (SPEC §17c), without a service: a mapped user against
 * what the service would answer, field by field; the summary, the terminal lines and the report
 * file. The end-to-end runs are `test/integration/migrate-verify.test.ts`.
 */

const T = 1_600_000_000_000;
const HASH = '$2a$10$Yl2a5nPzqmdkgWvJ1yPfGu2pg1vJSZPWvGZ.cIP1G2l0wQFnWv0nG';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

/** A mapped user with a password, a Google identity, metadata, a role and a TOTP device. */
function mapped(): BulkUserInput {
  return {
    externalUserId: 'src-1',
    userMetadata: { plan: 'pro', profile: { city: 'Oslo', langs: ['nb', 'en'] } },
    userRoles: [{ role: 'editor', tenantIds: ['public'] }],
    loginMethods: [
      {
        recipeId: 'emailpassword',
        tenantIds: ['public'],
        isVerified: true,
        isPrimary: true,
        timeJoinedInMSSinceEpoch: T,
        email: 'Ada@X.example',
        passwordHash: HASH,
        hashingAlgorithm: 'bcrypt',
      },
      {
        recipeId: 'thirdparty',
        tenantIds: ['public'],
        isVerified: false,
        timeJoinedInMSSinceEpoch: T,
        email: 'ada@mail.example',
        thirdPartyId: 'google',
        thirdPartyUserId: 'g-42',
      },
    ],
    totpDevices: [{ secretKey: TOTP_SECRET, deviceName: 'iPhone', period: 30, skew: 1 }],
  };
}

/** What the service answers for the user above, right after its import. */
function held(): ServiceSide {
  return {
    user: {
      id: 'src-1',
      timeJoined: T,
      loginMethods: [
        { recipeId: 'emailpassword', tenantIds: ['public'], verified: true, timeJoined: T, recipeUserId: 'src-1', email: 'ada@x.example' },
        {
          recipeId: 'thirdparty',
          tenantIds: ['public'],
          verified: false,
          timeJoined: T,
          recipeUserId: 'r-2',
          email: 'ada@mail.example',
          thirdParty: { id: 'google', userId: 'g-42' },
        },
      ],
    },
    metadata: { plan: 'pro', profile: { langs: ['nb', 'en'], city: 'Oslo' } },
    roles: ['editor'],
    devices: [{ name: 'iPhone', period: 30, skew: 1, verified: true }],
  };
}

/** `held()` with one part changed. */
const heldWith = (change: (h: { -readonly [K in keyof ServiceSide]: any }) => void): ServiceSide => {
  const h = structuredClone(held()) as any;
  change(h);
  return h;
};
const EP = 'loginMethods[emailpassword:ada@x.example]';
const GOOGLE = 'loginMethods[thirdparty:google:g-42]';

describe('compareUser', () => {
  it('finds nothing for a user the service holds as mapped (emails normalised, object keys in any order)', () => {
    expect(compareUser(mapped(), 'src-1', held(), 'public')).toEqual([]);
  });

  it('ignores what the app added beside the mapping: another metadata key, role or device', () => {
    const more = heldWith((h) => {
      h.metadata.lastSeen = 'yesterday';
      h.roles.push('admin');
      h.devices.push({ name: 'Laptop', period: 30, skew: 0, verified: true });
    });
    expect(compareUser(mapped(), 'src-1', more, 'public')).toEqual([]);
  });

  it("names each differing field of a login method by the method's recipe and identity, with both values", () => {
    const changed = heldWith((h) => {
      h.user.loginMethods[0].verified = false;
      h.user.loginMethods[0].tenantIds = ['public', 'shop'];
      h.user.loginMethods[1].timeJoined = T + 5;
      h.user.loginMethods[1].email = 'ada@other.example';
    });
    expect(compareUser(mapped(), 'src-1', changed, 'public')).toEqual([
      { field: `${EP}.verified`, export: true, service: false },
      { field: `${EP}.tenantIds`, export: ['public'], service: ['public', 'shop'] },
      { field: `${GOOGLE}.timeJoined`, export: T, service: T + 5 },
      { field: `${GOOGLE}.email`, export: 'ada@mail.example', service: 'ada@other.example' },
    ]);
  });

  it("the user's timeJoined and id", () => {
    const changed = heldWith((h) => {
      h.user.timeJoined = T - 1;
      h.user.id = 'another';
    });
    expect(compareUser(mapped(), 'src-1', changed, 'public')).toEqual([
      { field: 'userId', export: 'src-1', service: 'another' },
      { field: 'timeJoined', export: T, service: T - 1 },
    ]);
  });

  it('a method on one side only is one loginMethods difference listing both sides, whatever its recipe', () => {
    const fewer = heldWith((h) => h.user.loginMethods.pop());
    expect(compareUser(mapped(), 'src-1', fewer, 'public')).toEqual([
      { field: 'loginMethods', export: ['emailpassword:ada@x.example', 'thirdparty:google:g-42'], service: ['emailpassword:ada@x.example'] },
    ]);
    const passkey = heldWith((h) =>
      h.user.loginMethods.push({ recipeId: 'webauthn', tenantIds: ['public'], verified: true, timeJoined: T, recipeUserId: 'wa-1', email: 'ada@x.example' }),
    );
    expect(compareUser(mapped(), 'src-1', passkey, 'public')).toEqual([
      {
        field: 'loginMethods',
        export: ['emailpassword:ada@x.example', 'thirdparty:google:g-42'],
        service: ['emailpassword:ada@x.example', 'thirdparty:google:g-42', 'webauthn:ada@x.example'],
      },
    ]);
  });

  it('a carried passkey by its credential id under the webauthn login method; one the app added is no difference', () => {
    const user = mapped();
    const credential = (credentialId: string) => ({ credentialId, publicKey: 'pQECAyYgASFY', rpId: 'x.example', counter: 3 });
    user.loginMethods.push({
      recipeId: 'webauthn',
      tenantIds: ['public'],
      isVerified: true,
      timeJoinedInMSSinceEpoch: T,
      email: 'ada@x.example',
      credentials: [credential('cred-b'), credential('cred-a')],
    });
    const withPasskeys = (...credentialIds: string[]) =>
      heldWith((h) =>
        h.user.loginMethods.push({
          recipeId: 'webauthn',
          tenantIds: ['public'],
          verified: true,
          timeJoined: T,
          recipeUserId: 'wa-1',
          email: 'ada@x.example',
          webauthn: { credentialIds },
        }),
      );
    expect(compareUser(user, 'src-1', withPasskeys('cred-a', 'cred-b', 'cred-new'), 'public')).toEqual([]);
    expect(compareUser(user, 'src-1', withPasskeys('cred-b'), 'public')).toEqual([
      { field: 'loginMethods[webauthn:ada@x.example].credentials', export: ['cred-a', 'cred-b'], service: ['cred-b'] },
    ]);
  });

  it('a metadata key changed or gone, roles taken away', () => {
    const changed = heldWith((h) => {
      h.metadata = { plan: 'free' };
      h.roles = ['viewer'];
    });
    expect(compareUser(mapped(), 'src-1', changed, 'public')).toEqual([
      { field: 'metadata.plan', export: 'pro', service: 'free' },
      { field: 'metadata.profile', export: { city: 'Oslo', langs: ['nb', 'en'] }, service: null },
      { field: 'roles', export: ['editor'], service: ['viewer'] },
    ]);
  });

  it('TOTP devices by name, period, skew and verified; a device of another name is the device list', () => {
    const changed = heldWith((h) => {
      h.devices[0].skew = 0;
      h.devices[0].verified = false;
    });
    expect(compareUser(mapped(), 'src-1', changed, 'public')).toEqual([
      { field: 'totpDevices[iPhone].skew', export: 1, service: 0 },
      { field: 'totpDevices[iPhone].verified', export: true, service: false },
    ]);
    const renamed = heldWith((h) => (h.devices[0].name = 'Old iPhone'));
    expect(compareUser(mapped(), 'src-1', renamed, 'public')).toEqual([{ field: 'totpDevices', export: ['iPhone'], service: ['Old iPhone'] }]);
    // A device imported without a name gets the service's `TOTP Device <n>`: that is the same device.
    const unnamed = { ...mapped(), totpDevices: [{ secretKey: TOTP_SECRET, period: 30, skew: 1 }] };
    expect(
      compareUser(
        unnamed,
        'src-1',
        heldWith((h) => (h.devices[0].name = 'TOTP Device 0')),
        'public',
      ),
    ).toEqual([]);
  });

  it('never compares or shows a password hash or a TOTP secret', () => {
    const all = heldWith((h) => {
      h.user.loginMethods = [];
      h.metadata = {};
      h.roles = [];
      h.devices = [];
    });
    const text = JSON.stringify(compareUser(mapped(), 'src-1', all, 'public'));
    expect(text).not.toContain(HASH);
    expect(text).not.toContain(TOTP_SECRET);
    expect(text).not.toMatch(/passwordHash|secret/i);
  });

  it('reads metadata, roles and devices only where the mapping has them', () => {
    expect(readsFor(mapped(), 'public')).toEqual({ metadata: true, roles: true, devices: true });
    const bare: BulkUserInput = { loginMethods: mapped().loginMethods, userRoles: [{ role: 'editor', tenantIds: ['shop'] }] };
    expect(readsFor(bare, 'public')).toEqual({ metadata: false, roles: false, devices: false });
    expect(readsFor(bare, 'shop')).toEqual({ metadata: false, roles: true, devices: false });
  });
});

describe('VerifyReport', () => {
  const dir = scratchDir('verify-report-');

  it('counts every outcome (extra beside the total), keeps the first lines that need a look, writes the report', async () => {
    const file = join(dir, 'verify.json');
    const report = new VerifyReport(file);
    report.add({ sourceId: 'a', outcome: 'match', userId: 'a' });
    report.add({ sourceId: 'b', outcome: 'absent-as-planned', reasonCode: 'disabled', reason: 'disabled at the source' });
    report.add({ sourceId: 'c', outcome: 'different', userId: 'c', differences: [{ field: 'metadata.plan', export: 'pro', service: null }] });
    report.add({ sourceId: 'd', outcome: 'missing' });
    report.add({ sourceId: 'e', outcome: 'unexpected', userId: 'e', reasonCode: 'anonymous', reason: 'anonymous' });
    report.add({ userId: 'f', outcome: 'extra', loginMethods: ['passwordless:+14155550100'] });
    expect(report.summary).toEqual({ total: 5, match: 1, different: 1, missing: 1, absentAsPlanned: 1, unexpected: 1, extra: 1 });
    expect(report.toLookAt).toBe(4);
    expect(report.lines).toEqual([
      `different   ${'c'.padEnd(28)}  metadata.plan: export "pro", service (none)`,
      `missing     ${'d'.padEnd(28)}  not in the service`,
      `unexpected  ${'e'.padEnd(28)}  in the service as e, but the import skips it: anonymous`,
      `extra       ${'f'.padEnd(28)}  in the service, not in the export (passwordless:+14155550100)`,
    ]);
    await report.finish({ verify: true, source: 'auth0' });
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(written)).toEqual(['summary', 'verify', 'source', 'users']);
    expect(written.summary).toEqual(report.summary);
    expect(written.users.map((u: any) => u.outcome)).toEqual(['match', 'absent-as-planned', 'different', 'missing', 'unexpected', 'extra']);
  });

  it(`shows the first ${TERMINAL_LINES} users that need a look, and cuts a long value`, () => {
    const report = new VerifyReport(join(dir, 'many.json'));
    for (let i = 0; i < 25; i++) report.add({ sourceId: `u${i}`, outcome: 'missing' });
    expect([report.lines.length, report.lines[19], report.toLookAt]).toEqual([TERMINAL_LINES, `missing     ${'u19'.padEnd(28)}  not in the service`, 25]);
    const line = lineOf({ sourceId: 'x', outcome: 'different', differences: [{ field: 'metadata.bio', export: 'y'.repeat(200), service: 'z' }] });
    expect(line).toBe(`different   ${'x'.padEnd(28)}  metadata.bio: export "${'y'.repeat(78)}…, service "z"`);
  });
});
