import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as keys from '../../lib/storage/keys';

/**
 * `keys.ts` builds every key; `lib/storage/README.md` lists every shape in its items table. Each
 * builder is called here, and each key it builds must match a shape in that table: a builder added
 * without its row (or a row dropped) fails.
 */
const README = readFileSync(join(__dirname, '..', '..', 'lib', 'storage', 'README.md'), 'utf8');

/** The key shapes of the items table (every backticked text in its rows with a `<…>` part or a `#`). */
function shapes(): RegExp[] {
  const table = README.slice(README.indexOf('## Items'), README.indexOf('## ', README.indexOf('## Items') + 3));
  const rows = table.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| item'));
  const texts = rows.flatMap((row) => [...row.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\\\|/g, '|')));
  // A timestamp part (`<ts15>`, `<createdAt ts15>`…) is 15 digits; any other part is text without
  // `#`. A shape that starts with such text (a token's hash as a sort key) names no key builder.
  return texts
    .filter((text) => !/^<(?![^>]*ts15>)/.test(text))
    .map((text) => {
      const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return new RegExp(`^${escaped.replace(/<[^>]*ts15>/g, '\\d{15}').replace(/<[^>]+>/g, '[^#]+')}$`);
    });
}

const e = 'a@b.c';
/** What `keys.ts` exports besides the builders: attribute and index names, shard counts, helpers. */
const NOT_BUILDERS = [
  'ATTR',
  'INDEX',
  'keyId',
  'timeSortKey',
  'USER_LIST_SHARDS',
  'shardOf',
  'userListShard',
  'BULK_LANES',
  'BULK_SHARDS',
  'bulkLaneOf',
] as const;
/** Builders that read a key instead of making one. */
const READERS = ['userIdOfPartition', 'parseUserListPosition'] as const;
const samples: Record<Exclude<keyof typeof keys, (typeof NOT_BUILDERS)[number] | (typeof READERS)[number]>, () => (string | { pk: string; sk: string })[]> = {
  userPartition: () => [keys.userPartition('u1')],
  loginMethod: () => [keys.loginMethod('u1', 'r1')],
  listEntry: () => [keys.listEntry('u1', 't1')],
  emailEntry: () => [keys.emailEntry('u1', 't1', 'r1')],
  phoneEntry: () => [keys.phoneEntry('u1', 't1', 'r1')],
  passwordMigrationEntry: () => [keys.passwordMigrationEntry('u1', 't1', 'r1')],
  usersWaitingForPassword: () => [keys.usersWaitingForPassword('t1', 3)],
  link: () => [keys.link('r1')],
  claim: () => [
    keys.claim('t1', { kind: 'email', email: e }),
    keys.claim('t1', { kind: 'phone', phoneNumber: '+1650' }),
    keys.claim('t1', { kind: 'thirdParty', thirdPartyId: 'google', thirdPartyUserId: 'g1' }),
  ],
  emailGuard: () => [keys.emailGuard('t1', 'emailpassword', e), keys.emailGuard('t1', 'passwordless', e), keys.emailGuard('t1', 'webauthn', e)],
  phoneGuard: () => [keys.phoneGuard('t1', '+1650')],
  thirdPartyGuard: () => [keys.thirdPartyGuard('t1', 'google', 'g1')],
  externalIdGuard: () => [keys.externalIdGuard('auth0|1')],
  webauthnCredential: () => [keys.webauthnCredential('AAECAw')],
  webauthnCredentialKey: () => [keys.webauthnCredentialKey('AAECAw')],
  webauthnOptions: () => [keys.webauthnOptions('0b1c5e0a-5d1e-4b55-9a0e-6f1f4e3c2b1a')],
  webauthnRecoveryToken: () => [keys.webauthnRecoveryToken('t1', 'sha1')],
  webauthnRecoveryTokensOf: () => [keys.webauthnRecoveryTokensOf('t1', e)],
  device: () => [keys.device('dev1')],
  code: () => [keys.code('dev1', 'hash1')],
  codePrefix: () => [`${keys.codePrefix}hash1`],
  codeById: () => [keys.codeById('c1')],
  tenant: () => [keys.tenant('t1')],
  tenantProvider: () => [keys.tenantProvider('t1', 'google'), keys.tenantProvider('t1', 'boxy-saml#1')],
  // The end of a Query's range, not an item's key.
  tenantItemsEnd: () => [],
  verificationToken: () => [keys.verificationToken('sha1')],
  verificationTokensOf: () => [keys.verificationTokensOf('t1', 'r1', e)],
  session: () => [keys.session('0b1c5e0a-5d1e-4b55-9a0e-6f1f4e3c2b1a_t1')],
  sessionsOfUser: () => [keys.sessionsOfUser('u1')],
  sessionInUserList: () => [],
  signingKeysPartition: () => [keys.signingKeysPartition],
  dynamicSigningKey: () => [keys.dynamicSigningKey(3)],
  staticSigningKey: () => [keys.staticSigningKey],
  refreshTokenKey: () => [keys.refreshTokenKey],
  resetToken: () => [keys.resetToken('sha1')],
  exchangedToken: () => [keys.exchangedToken('sha1')],
  resetTokensOf: () => [keys.resetTokensOf('u1')],
  role: () => [keys.role('admin')],
  rolePermission: () => [keys.rolePermission('admin', 'read')],
  rolePermissionPrefix: () => [`${keys.rolePermissionPrefix}read`],
  allRoles: () => [keys.allRoles],
  rolesWithPermission: () => [keys.rolesWithPermission('read')],
  userRole: () => [keys.userRole('u1', 't1', 'admin')],
  userRolesPartition: () => [keys.userRolesPartition('u1')],
  userRolesVersion: () => [keys.userRolesVersion('u1')],
  userRolesOfTenantPrefix: () => [`${keys.userRolesOfTenantPrefix('t1')}admin`],
  roleLane: () => [keys.roleLane('admin', 7)],
  usersWithRole: () => [keys.usersWithRole('admin', 3)],
  metadata: () => [keys.metadata('u1')],
  totpPartition: () => [keys.totpPartition('auth0|u1')],
  totpDevice: () => [keys.totpDevice('u1', 'TOTP Device 0'), keys.totpDevice('u1', 'a#b')],
  totpDevicePrefix: () => [`${keys.totpDevicePrefix}phone`],
  totpAttempts: () => [keys.totpAttempts('u1', 't1')],
  tenantsPartition: () => [keys.tenantsPartition],
  usersOfTenant: () => [keys.usersOfTenant('t1', 3)],
  userListPosition: () => [keys.userListPosition(5, 'u1')],
  bulkRow: () => [keys.bulkRow(7, 'row1')],
  bulkStaged: () => [keys.bulkStaged('row1')],
  bulkCounter: () => [keys.bulkCounter('STAGE', 3), keys.bulkCounter('LANE', 200)],
  bulkRowsWithStatus: () => [keys.bulkRowsWithStatus('NEW', 3)],
  bulkRowPosition: () => [keys.bulkRowPosition(5, 'row1')],
  usersWithEmail: () => [keys.usersWithEmail('t1', e)],
  usersWithPhone: () => [keys.usersWithPhone('t1', '+1650')],
  devicesOfIdentity: () => [keys.devicesOfIdentity('t1', { email: e }), keys.devicesOfIdentity('t1', { phoneNumber: '+1650' })],
};

describe('the storage README lists every key keys.ts builds', () => {
  const known = shapes();
  it.each(Object.entries(samples))('%s', (_, build) => {
    for (const key of build()) {
      for (const part of typeof key === 'string' ? [key] : [key.pk, key.sk]) {
        expect([part, known.some((shape) => shape.test(part))]).toEqual([part, true]);
      }
    }
  });

  it('and the samples cover every builder', () => {
    expect(Object.keys(samples).sort()).toEqual(
      Object.keys(keys)
        .filter((k) => !([...NOT_BUILDERS, ...READERS] as string[]).includes(k))
        .sort(),
    );
  });

  it('finds a key the table does not list', () => {
    expect(known.some((shape) => shape.test('NOSUCH#u1'))).toBe(false);
    expect(known.some((shape) => shape.test('USER#u1'))).toBe(true);
  });
});
