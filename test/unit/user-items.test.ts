import { isDeviceSuperseded, standaloneUser, withCodesConsumed, withLoginMethod, withVerifiedEmail } from '../../lib/storage/auth-user';
import { TooManyItemsError } from '../../lib/storage/errors';
import { userListShard } from '../../lib/storage/keys';
import * as keys from '../../lib/storage/keys';
import type { AuthUser, UserRecord } from '../../lib/storage/model';
import { leavingIdWrites, vanishedIds } from '../../lib/storage/dynamo/leaving-ids';
import { decodeLogin, readSnapshot } from '../../lib/storage/dynamo/login-codec';
import { StoredItemError } from '../../lib/storage/dynamo/stored-fields';
import { loginMarkWrites } from '../../lib/storage/dynamo/mark-writes';
import { userChangeWrites } from '../../lib/storage/dynamo/user-diff';
import { claimsOf, CURRENT_FORMAT, itemsOfUser } from '../../lib/storage/dynamo/user-items';
import type { DerivedItem } from '../../lib/storage/dynamo/stored-user-items';
import type { DynamoContext } from '../../lib/storage/dynamo/transact';

/** The derivation of a user's items and the writes between two states (no DynamoDB needed). */
const ctx = { tableName: 'T' } as DynamoContext;

const ep: UserRecord = {
  userId: 'ep-1',
  recipeId: 'emailpassword',
  tenantIds: ['public'],
  timeJoined: 100,
  email: 'a@b.c',
  verifiedEmails: [],
  phoneVerified: false,
  passwordHash: '$2a$10$hash',
  version: 3,
};
const tp: UserRecord = {
  userId: 'tp-1',
  recipeId: 'thirdparty',
  tenantIds: ['t1'],
  timeJoined: 200,
  email: 'a@b.c',
  thirdParty: { id: 'google', userId: 'g1' },
  verifiedEmails: ['a@b.c'],
  phoneVerified: false,
  version: 1,
};
const pl: UserRecord = {
  userId: 'pl-1',
  recipeId: 'passwordless',
  tenantIds: ['public'],
  timeJoined: 50,
  phoneNumber: '+14155552671',
  verifiedEmails: [],
  phoneVerified: true,
  version: 7,
};
const primary: AuthUser = { id: 'ep-1', isPrimary: true, loginMethods: [ep, tp] };

const byRole = (user: AuthUser, role: string) => itemsOfUser(user).filter((d) => d.role === role);
/** A derived item's attributes, as DynamoDB stores them. */
const at = (d: Pick<DerivedItem, 'item'>): Record<string, unknown> => d.item as unknown as Record<string, unknown>;

describe('itemsOfUser', () => {
  it('gives a login method on its own its item (listed in its tenant) and its guards, no link and no claim, each of the current format', () => {
    const items = itemsOfUser(standaloneUser(ep));
    expect(items.map((d) => [d.role, d.key.pk, d.key.sk, at(d).fmt])).toEqual([
      ['loginMethod', 'USER#ep-1', 'LM#ep-1', CURRENT_FORMAT],
      ['guard', 'T#public#EP#EMAIL#a%40b.c', 'GUARD', CURRENT_FORMAT],
    ]);
    expect(at(items[0])).toMatchObject({
      gsi1pk: keys.usersOfTenant('public', userListShard('ep-1')),
      gsi1sk: keys.userListPosition(100, 'ep-1'),
      listRecipeIds: ['emailpassword'],
      version: 3,
    });
    expect(at(items[0]).primaryUserId).toBeUndefined();
    // The email guard carries the hash and a snapshot of the login method: with the hash, the whole login method.
    expect(at(items[1])).toEqual({
      pk: 'T#public#EP#EMAIL#a%40b.c',
      sk: 'GUARD',
      type: 'guard',
      fmt: CURRENT_FORMAT,
      userId: 'ep-1',
      passwordHash: '$2a$10$hash',
      snapshot: {
        userId: 'ep-1',
        recipeId: 'emailpassword',
        tenantIds: ['public'],
        timeJoined: 100,
        email: 'a@b.c',
        verifiedEmails: [],
        phoneVerified: false,
        version: 3,
      },
    });
    expect(readSnapshot(at(items[1]))).toEqual({ loginMethod: ep });
  });

  it('snapshots every field of a login method, on the items SNAPSHOT_CARRIERS names, and only those', () => {
    const full: UserRecord = {
      ...ep,
      verifiedEmails: ['a@b.c'],
      externalUserId: 'ext-1',
      externalUserIdInfo: 'from firebase',
      passwordMigration: { markedAt: 5 },
      passwordHash: undefined,
      tenantIds: ['public', 't2'],
    };
    const guards = byRole(standaloneUser(full), 'guard');
    // Its external id guard and an email guard per tenant; the email guards carry the snapshot.
    expect(guards.map((d) => [d.key.pk, at(d).snapshot !== undefined])).toEqual([
      ['EXTID#ext-1', false],
      ['T#public#EP#EMAIL#a%40b.c', true],
      ['T#t2#EP#EMAIL#a%40b.c', true],
    ]);
    expect(readSnapshot(at(guards[1]))).toEqual({ loginMethod: full });
    // A third-party login method on its own: its identity guard carries the snapshot, its thirdParty included.
    const tpGuards = byRole(standaloneUser(tp), 'guard');
    expect(tpGuards.map((d) => d.key.pk)).toEqual(['T#t1#TP#google#g1']);
    expect(readSnapshot(at(tpGuards[0]))).toEqual({ loginMethod: tp });
    // A primary user's email guard, even of one login method, and a linked one's: no snapshot (sign-in
    // reads the partition beside the verify).
    expect(byRole({ id: 'ep-1', isPrimary: true, loginMethods: [ep] }, 'guard').map((d) => at(d).snapshot)).toEqual([undefined]);
    // A primary user's third-party identity guard, linked or its own: a snapshot naming the primary
    // user; the linked one's guard names it too, as `linkedTo`.
    const primaryGuards = byRole(primary, 'guard');
    expect(primaryGuards.map((d) => [d.key.pk, at(d).linkedTo, at(d).primaryUserId, at(d).snapshot !== undefined])).toEqual([
      ['T#public#EP#EMAIL#a%40b.c', undefined, undefined, false],
      ['T#t1#TP#google#g1', 'ep-1', undefined, true],
    ]);
    expect(readSnapshot(at(primaryGuards[1]))).toEqual({ primaryUserId: 'ep-1', loginMethod: tp });
    const ownGuard = at(byRole({ id: 'tp-1', isPrimary: true, loginMethods: [tp] }, 'guard')[0]);
    expect([ownGuard.linkedTo, readSnapshot(ownGuard)]).toEqual([undefined, { primaryUserId: 'tp-1', loginMethod: tp }]);
  });

  it('reads back every login method it stores, and refuses a stored item that is not one', () => {
    const item = at(byRole(standaloneUser({ ...tp, externalUserId: 'x', codesConsumedAt: { t1: { email: 4 } } }), 'loginMethod')[0]);
    expect(decodeLogin(item)).toEqual({ ...tp, externalUserId: 'x', codesConsumedAt: { t1: { email: 4 } } });
    expect(() => decodeLogin({ ...item, version: '3' })).toThrow(new StoredItemError('version', 'a number'));
    expect(() => decodeLogin({ ...item, recipeId: 'saml' })).toThrow("A stored item's recipeId is not a recipe id");
    expect(() => decodeLogin({ ...item, tenantIds: undefined })).toThrow(StoredItemError);
    expect(() => readSnapshot({ snapshot: 'ep-1' })).toThrow("A stored item's snapshot is not a login method");
  });

  it('gives a primary user its login methods in its partition, a link for each other one, and a claim per account info and tenant', () => {
    const lms = byRole(primary, 'loginMethod');
    expect(lms.map((d) => [d.key.pk, d.key.sk, at(d).primaryUserId])).toEqual([
      ['USER#ep-1', 'LM#ep-1', 'ep-1'],
      ['USER#ep-1', 'LM#tp-1', 'ep-1'],
    ]);
    // Each is the user's list entry in its own tenant, at the user's oldest time joined.
    expect(lms.map((d) => [at(d).gsi1pk, at(d).gsi1sk])).toEqual([
      [keys.usersOfTenant('public', userListShard('ep-1')), keys.userListPosition(100, 'ep-1')],
      [keys.usersOfTenant('t1', userListShard('ep-1')), keys.userListPosition(100, 'ep-1')],
    ]);
    expect(byRole(primary, 'link').map((d) => [d.key.pk, d.key.sk, at(d).primaryUserId])).toEqual([['USER#tp-1', 'LINK', 'ep-1']]);
    expect(byRole(primary, 'claim').map((d) => [at(d).type, at(d).primaryUserId])).toEqual(Array(4).fill(['claim', 'ep-1']));
    expect(
      byRole(primary, 'claim')
        .map((d) => d.key.pk)
        .sort(),
    ).toEqual(['T#public#PRIMARY#EMAIL#a%40b.c', 'T#public#PRIMARY#TP#google#g1', 'T#t1#PRIMARY#EMAIL#a%40b.c', 'T#t1#PRIMARY#TP#google#g1'].sort());
    expect(claimsOf({ ...primary, isPrimary: false })).toEqual([]);
  });

  it('lists a primary user once per tenant, on its oldest login method there, with every recipe it has there', () => {
    const user: AuthUser = { id: 'ep-1', isPrimary: true, loginMethods: [pl, ep] };
    const lms = byRole(user, 'loginMethod');
    const listed = lms.filter((d) => at(d).gsi1pk !== undefined);
    expect(listed.map((d) => [d.key.sk, at(d).gsi1sk, at(d).listRecipeIds])).toEqual([
      ['LM#pl-1', keys.userListPosition(50, 'ep-1'), ['emailpassword', 'passwordless']],
    ]);
  });

  it('marks one entry per user for counting the whole app, with every recipe of the user, whatever its tenants', () => {
    const lms = byRole(primary, 'loginMethod');
    expect(lms.map((d) => [d.key.sk, at(d).appRecipeIds])).toEqual([
      ['LM#ep-1', ['emailpassword', 'thirdparty']],
      ['LM#tp-1', undefined],
    ]);
  });
});

describe('userChangeWrites', () => {
  const kinds = (writes: ReturnType<typeof userChangeWrites>) =>
    writes.map((w) => [w.item.Put ? 'Put' : 'Delete', (w.item.Put?.Item ?? w.item.Delete?.Key)?.pk, (w.item.Put?.Item ?? w.item.Delete?.Key)?.sk]);

  it('rewrites the email guard of a login method on its own with it when its copy changes (a verified email): one item more, still ours only', () => {
    const writes = userChangeWrites(ctx, [standaloneUser(ep)], [standaloneUser({ ...ep, verifiedEmails: ['a@b.c'] })]);
    expect(kinds(writes)).toEqual([
      ['Put', 'USER#ep-1', 'LM#ep-1'],
      ['Put', 'T#public#EP#EMAIL#a%40b.c', 'GUARD'],
    ]);
    expect(writes[1].item.Put?.ConditionExpression).toBe('#owner = :owner');
    // The snapshot at the version the login method is written at, not the one it was read at.
    expect([writes[0].item.Put?.Item?.version, writes[1].item.Put?.Item?.snapshot]).toEqual([
      4,
      expect.objectContaining({ verifiedEmails: ['a@b.c'], version: 4 }),
    ]);
    // The same change in a primary user's login method leaves its guard alone (it holds no copy).
    expect(kinds(userChangeWrites(ctx, [primary], [withLoginMethod(primary, { ...ep, verifiedEmails: ['a@b.c'] })]))).toEqual([
      ['Put', 'USER#ep-1', 'LM#ep-1'],
    ]);
  });

  it("writes only the login method (at its version) and its guard's hash copy for a new hash", () => {
    const writes = userChangeWrites(ctx, [primary], [withLoginMethod(primary, { ...ep, passwordHash: '$argon2id$new' })]);
    expect(kinds(writes)).toEqual([
      ['Put', 'USER#ep-1', 'LM#ep-1'],
      ['Put', 'T#public#EP#EMAIL#a%40b.c', 'GUARD'],
    ]);
    expect(writes[0].item.Put).toMatchObject({ ConditionExpression: '#version = :version', ExpressionAttributeValues: { ':version': 3 } });
    expect(writes[0].item.Put?.Item).toMatchObject({ version: 4, passwordHash: '$argon2id$new' });
    expect(writes[1].item.Put?.ConditionExpression).toBe('#owner = :owner');
  });

  it('removes a user with its guards; the ids that leave are its own, a login method leaving a primary user takes only its own', () => {
    expect(kinds(userChangeWrites(ctx, [standaloneUser(ep)], [], []))).toEqual([
      ['Delete', 'USER#ep-1', 'LM#ep-1'],
      ['Delete', 'T#public#EP#EMAIL#a%40b.c', 'GUARD'],
    ]);
    expect(vanishedIds([standaloneUser(ep)], [])).toEqual(['ep-1']);
    expect(vanishedIds([primary], [{ ...primary, loginMethods: [ep] }])).toEqual(['tp-1']);
    // The primary user's own login method goes, its id stays the user's: its data stays.
    expect(vanishedIds([primary], [{ ...primary, loginMethods: [tp] }])).toEqual([]);
    // Without the reads of the data under them, a write in which ids leave is refused.
    expect(() => userChangeWrites(ctx, [standaloneUser(ep)], [])).toThrow(/their data needs the reads/);
  });

  it('guards an external user id app-wide; it leaves with its login method, not when only the mapping goes', () => {
    const mapped = standaloneUser({ ...ep, externalUserId: 'auth0|42' });
    expect(byRole(mapped, 'guard').map((d) => [d.key.pk, d.role === 'guard' && d.identity, at(d).userId])).toEqual([
      ['EXTID#auth0%7C42', 'externalUserId', 'ep-1'],
      ['T#public#EP#EMAIL#a%40b.c', 'email', 'ep-1'],
    ]);
    expect(vanishedIds([mapped], [])).toEqual(['ep-1', 'auth0|42']);
    expect(vanishedIds([mapped], [standaloneUser(ep)])).toEqual([]);
  });

  it('deletes the data of a gone id only while no assignment and no mapping came since, and keeps the data of an id another user holds', () => {
    const kind = (w: ReturnType<typeof leavingIdWrites>[number]) => {
      const [op, body] = Object.entries(w.item)[0] as unknown as [
        string,
        { Key: { pk: string; sk: string }; ConditionExpression?: string; ExpressionAttributeValues?: Record<string, unknown> },
      ];
      return [op, body.Key.pk, body.Key.sk, body.ConditionExpression, body.ExpressionAttributeValues?.[':version']];
    };
    const gone = leavingIdWrites(ctx, [
      {
        id: 'a',
        unclaimed: [keys.externalIdGuard('a')],
        assignments: [keys.userRole('a', 'public', 'r')],
        assignmentsVersion: 4,
        totpItems: [keys.totpDevice('a', 'phone'), keys.totpAttempts('a', 'public')],
      },
      { id: 'b', unclaimed: [], assignments: [], totpItems: [] },
    ]);
    expect(gone.map(kind)).toEqual([
      ['ConditionCheck', 'EXTID#a', 'GUARD', 'attribute_not_exists(pk)', undefined],
      ['Delete', 'META#a', 'METADATA', undefined, undefined],
      ['Delete', 'USERROLES#a', 'T#public#ROLE#r', undefined, undefined],
      ['Delete', 'TOTP#a', 'DEVICE#phone', undefined, undefined],
      ['Delete', 'TOTP#a', 'ATTEMPTS#public', undefined, undefined],
      ['Delete', 'USERROLES#a', 'VERSION', '#version = :version', 4],
      ['Delete', 'META#b', 'METADATA', undefined, undefined],
      ['ConditionCheck', 'USERROLES#b', 'VERSION', 'attribute_not_exists(pk)', undefined],
    ]);
    expect(
      leavingIdWrites(ctx, [
        {
          id: 'c',
          heldBy: keys.loginMethod('c', 'c'),
          unclaimed: [],
          assignments: [keys.userRole('c', 'public', 'r')],
          totpItems: [keys.totpDevice('c', 'd')],
        },
      ]).map(kind),
    ).toEqual([['ConditionCheck', 'USER#c', 'LM#c', 'attribute_exists(pk)', undefined]]);
  });

  it('writes nothing when nothing changed', () => {
    expect(userChangeWrites(ctx, [primary], [primary])).toEqual([]);
  });

  it('links by moving the login method and rewriting every login method at its version (stale reads fail first), then claims', () => {
    const target = standaloneUser({ ...ep });
    const member = standaloneUser(tp);
    const writes = userChangeWrites(ctx, [{ ...target, isPrimary: true }, member], [primary]);
    expect(kinds(writes)).toEqual([
      ['Put', 'USER#ep-1', 'LM#ep-1'],
      ['Put', 'USER#ep-1', 'LM#tp-1'],
      ['Put', 'USER#tp-1', 'LINK'],
      ['Delete', 'USER#tp-1', 'LM#tp-1'],
      ['Put', 'T#public#PRIMARY#TP#google#g1', 'PRIMARY'],
      ['Put', 'T#t1#PRIMARY#EMAIL#a%40b.c', 'PRIMARY'],
      ['Put', 'T#t1#PRIMARY#TP#google#g1', 'PRIMARY'],
      ['Put', 'T#t1#TP#google#g1', 'GUARD'],
    ]);
    expect(writes.map((w) => w.onConditionFailed.status)).toEqual([
      'STALE',
      'STALE',
      'STALE',
      'STALE',
      'ACCOUNT_INFO_TAKEN',
      'ACCOUNT_INFO_TAKEN',
      'ACCOUNT_INFO_TAKEN',
      'STALE',
    ]);
    // The moved login method's guard now names the user holding it, while it is still its own.
    expect(writes[7].item.Put).toMatchObject({
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeValues: { ':owner': 'tp-1' },
      Item: { userId: 'tp-1', linkedTo: 'ep-1' },
    });
    // The unchanged primary login method is rewritten at its version too: a concurrent change of the user fails one of the two.
    expect(writes[0].item.Put).toMatchObject({ ExpressionAttributeValues: { ':version': 3 }, Item: { version: 4 } });
    // The moved login method is new at its place (only if absent), with its version carried on.
    expect(writes[1].item.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(pk)', Item: { version: 2 } });
    expect(writes[3].item.Delete).toMatchObject({ ExpressionAttributeValues: { ':version': 1 } });
  });

  it('refuses a change beyond one transaction (100 items) before writing anything', () => {
    const many: UserRecord[] = Array.from({ length: 30 }, (_, i) => ({
      ...pl,
      userId: `pl-${i}`,
      tenantIds: [`t${i}`],
      phoneNumber: `+1415555${String(1000 + i)}`,
      email: `p${i}@x.y`,
      timeJoined: 1000 + i,
      version: 1,
    }));
    const user: AuthUser = { id: 'pl-0', isPrimary: true, loginMethods: many };
    expect(() => userChangeWrites(ctx, [], [user])).toThrow(TooManyItemsError);
  });
});

describe('a login method in several tenants', () => {
  const multi: UserRecord = { ...ep, tenantIds: ['public', 't1', 't2'] };
  const user = standaloneUser(multi);
  it('is listed in each tenant and found by its email in each, through entry items in its partition', () => {
    const entries = itemsOfUser(user).filter((d) => d.role === 'entry');
    expect(entries.map((d) => [d.key.sk, at(d).gsi1pk ?? at(d).gsi2pk, at(d).ownerUserId])).toEqual([
      ['LIST#t1', keys.usersOfTenant('t1', userListShard('ep-1')), 'ep-1'],
      ['EMAIL#t1#ep-1', keys.usersWithEmail('t1', 'a@b.c'), 'ep-1'],
      ['LIST#t2', keys.usersOfTenant('t2', userListShard('ep-1')), 'ep-1'],
      ['EMAIL#t2#ep-1', keys.usersWithEmail('t2', 'a@b.c'), 'ep-1'],
    ]);
    for (const d of entries) expect(d.key.pk).toBe(keys.userPartition('ep-1'));
    // Guards in every tenant; the list entry of the first tenant rides on the login method item.
    expect(
      itemsOfUser(user)
        .filter((d) => d.role === 'guard')
        .map((d) => d.key.pk),
    ).toHaveLength(3);
    expect(at(itemsOfUser(user).find((d) => d.role === 'loginMethod')!).gsi1pk).toBe(keys.usersOfTenant('public', userListShard('ep-1')));
  });

  it('gives a tenant one list entry per user: the oldest login method there has it', () => {
    const newer: UserRecord = { ...tp, userId: 'tp-9', timeJoined: 300, tenantIds: ['t1'] };
    const both: AuthUser = { id: 'ep-1', isPrimary: true, loginMethods: [multi, newer] };
    const listEntries = itemsOfUser(both)
      .filter((d) => at(d).gsi1pk !== undefined)
      .map((d) => [d.key.sk, at(d).listRecipeIds]);
    expect(listEntries).toEqual([
      ['LM#ep-1', ['emailpassword']],
      ['LIST#t1', ['emailpassword', 'thirdparty']],
      ['LIST#t2', ['emailpassword']],
    ]);
  });

  it('moves its entries with a change of tenants, conditioned on its user', () => {
    const writes = userChangeWrites(ctx, [user], [standaloneUser({ ...multi, tenantIds: ['public', 't1'] })]);
    const deletes = writes.flatMap((w) => (w.item.Delete ? [w.item.Delete.Key?.sk] : []));
    expect(deletes.sort()).toEqual(['EMAIL#t2#ep-1', 'GUARD', 'LIST#t2']);
  });
});

describe('the codes a consume ended (codesConsumedAt)', () => {
  const multi: UserRecord = { ...pl, email: 'p@l.c', tenantIds: ['public', 't1'] };

  it('marks the consumed identity in its tenant only, and keeps the marks of tenants the login method is still in', () => {
    const once = withCodesConsumed(multi, 'public', { phoneNumber: '+14155552671' }, 1_000);
    const twice = withCodesConsumed(once, 't1', { email: 'p@l.c' }, 2_000);
    expect(twice.codesConsumedAt).toEqual({ public: { phone: 1_000 }, t1: { email: 2_000 } });
    const left = withCodesConsumed({ ...twice, tenantIds: ['public'] }, 'public', { email: 'p@l.c' }, 3_000);
    expect(left.codesConsumedAt).toEqual({ public: { phone: 1_000, email: 3_000 } });
  });

  it('ends a device of that identity and tenant made at or before the consume, and no other', () => {
    const lm = withCodesConsumed(multi, 'public', { email: 'p@l.c' }, 1_000);
    expect(isDeviceSuperseded(lm, 'public', { email: 'p@l.c' }, 1_000)).toBe(true);
    expect(isDeviceSuperseded(lm, 'public', { email: 'p@l.c' }, 1_001)).toBe(false);
    expect(isDeviceSuperseded(lm, 'public', { phoneNumber: '+14155552671' }, 1)).toBe(false);
    expect(isDeviceSuperseded(lm, 't1', { email: 'p@l.c' }, 1)).toBe(false);
    expect(isDeviceSuperseded(undefined, 'public', { email: 'p@l.c' }, 1)).toBe(false);
  });

  it('is stored on the login method item and read back from it', () => {
    const lm = withCodesConsumed(pl, 'public', { phoneNumber: '+14155552671' }, 1_000);
    expect(decodeLogin(at(itemsOfUser(standaloneUser(lm)).find((d) => d.role === 'loginMethod')!))).toEqual(lm);
  });
});

describe('a passwordless login method with a phone number', () => {
  const gsi2 = (lm: UserRecord) =>
    itemsOfUser(standaloneUser(lm))
      .filter((d) => at(d).gsi2pk !== undefined)
      .map((d) => [at(d).type, d.key.sk, at(d).gsi2pk]);

  it('is found by its phone in each tenant: through its item where it has no email, else through entries', () => {
    expect(gsi2({ ...pl, tenantIds: ['public', 't1'] })).toEqual([
      ['loginMethod', 'LM#pl-1', 'T#public#PHONE#%2B14155552671'],
      ['phoneEntry', 'PHONE#t1#pl-1', 'T#t1#PHONE#%2B14155552671'],
    ]);
    expect(gsi2({ ...pl, email: 'p@l.c' })).toEqual([
      ['loginMethod', 'LM#pl-1', 'T#public#EMAIL#p%40l.c'],
      ['phoneEntry', 'PHONE#public#pl-1', 'T#public#PHONE#%2B14155552671'],
    ]);
  });
});

describe('the snapshot of a passwordless login method on its entries', () => {
  const both = withCodesConsumed(
    { ...pl, email: 'p@l.c', tenantIds: ['public', 't1'], verifiedEmails: ['p@l.c'], externalUserId: 'ext-pl' },
    'public',
    { email: 'p@l.c' },
    1_000,
  );
  const entries = (user: AuthUser) => itemsOfUser(user).filter((d) => at(d).type === 'emailEntry' || at(d).type === 'phoneEntry');

  it("is the whole login method, its version and its consumes' marks included, on each email and phone entry", () => {
    const found = entries(standaloneUser(both));
    expect(found.map((d) => d.key.sk)).toEqual(['EMAIL#t1#pl-1', 'PHONE#public#pl-1', 'PHONE#t1#pl-1']);
    for (const d of found) {
      expect(readSnapshot(at(d))).toEqual({ loginMethod: both });
      expect(d.role === 'entry' && d.snapshotOf).toBe('pl-1');
    }
  });

  it("names the primary user on the entries of a primary or linked user's login method; none on another recipe's", () => {
    for (const user of [
      { id: 'pl-1', isPrimary: true, loginMethods: [both] },
      { id: 'ep-1', isPrimary: true, loginMethods: [ep, both] },
    ]) {
      expect(entries(user).map((d) => [d.key.pk, readSnapshot(at(d))])).toEqual([
        [`USER#${user.id}`, { loginMethod: both, primaryUserId: user.id }],
        [`USER#${user.id}`, { loginMethod: both, primaryUserId: user.id }],
        [`USER#${user.id}`, { loginMethod: both, primaryUserId: user.id }],
      ]);
    }
    const multi = entries(standaloneUser({ ...ep, tenantIds: ['public', 't1'] }));
    expect(multi.map((d) => [d.key.sk, at(d).snapshot])).toEqual([['EMAIL#t1#ep-1', undefined]]);
    expect(readSnapshot(at(multi[0]))).toBeUndefined();
  });

  it('is rewritten when its login method becomes primary (it then names its user), in the same transaction', () => {
    const writes = userChangeWrites(ctx, [standaloneUser(both)], [{ id: 'pl-1', isPrimary: true, loginMethods: [both] }]);
    const entryPuts = writes.filter((w) => ['emailEntry', 'phoneEntry'].includes(w.item.Put?.Item?.type as string));
    expect(entryPuts.map((w) => readSnapshot(w.item.Put!.Item!)?.primaryUserId)).toEqual(['pl-1', 'pl-1', 'pl-1']);
  });

  it("is written with the login method at the version written (a consume's mark), and not written when the login method is not", () => {
    const after = withCodesConsumed(both, 't1', { email: 'p@l.c' }, 2_000);
    const writes = userChangeWrites(ctx, [standaloneUser(both)], [standaloneUser(after)]);
    const put = (sk: string) => writes.find((w) => w.item.Put?.Item?.sk === sk)?.item.Put;
    expect(writes.map((w) => w.item.Put?.Item?.sk)).toEqual(['LM#pl-1', 'EMAIL#t1#pl-1', 'PHONE#public#pl-1', 'PHONE#t1#pl-1']);
    expect(put('LM#pl-1')).toMatchObject({ ConditionExpression: '#version = :version', ExpressionAttributeValues: { ':version': 7 }, Item: { version: 8 } });
    for (const sk of ['EMAIL#t1#pl-1', 'PHONE#public#pl-1', 'PHONE#t1#pl-1']) {
      expect(put(sk)?.ConditionExpression).toBe('#owner = :owner');
      expect(readSnapshot(put(sk)!.Item!)).toEqual({ loginMethod: { ...after, version: 8 } });
    }
    // Stored as written, the user read back derives the same entries: the checker finds them equal.
    const stored = standaloneUser({ ...after, version: 8 });
    for (const d of entries(stored)) expect(d.item).toEqual(put(d.key.sk)!.Item);
    // Nothing changed: nothing written, the snapshots included.
    expect(userChangeWrites(ctx, [standaloneUser(both)], [standaloneUser(both)])).toEqual([]);
    // A new login method: its entries' snapshots at its first version.
    const created = userChangeWrites(ctx, [], [standaloneUser({ ...both, version: 1 })]);
    expect(created.filter((w) => w.item.Put?.Item?.type === 'phoneEntry').map((w) => readSnapshot(w.item.Put!.Item!)?.loginMethod.version)).toEqual([1, 1]);
  });
});

describe("a mark on a login method of a primary user, written from its snapshot alone (loginMarkWrites): a consume, a provider's verification", () => {
  type Update = NonNullable<ReturnType<typeof loginMarkWrites>[number]['item']['Update']>;
  /** The item an update leaves: its SET attributes taken from its values, its REMOVE ones gone. */
  function applied(item: Record<string, unknown>, update: Update): Record<string, unknown> {
    const names = update.ExpressionAttributeNames!;
    const values = update.ExpressionAttributeValues!;
    const [setPart, removePart = ''] = update.UpdateExpression!.replace(/^SET /, '').split(' REMOVE ');
    const out: Record<string, unknown> = { ...item };
    for (const assignment of setPart.split(', ')) {
      const [name, value] = assignment.split(' = ');
      out[names[name]] = values[value];
    }
    for (const name of removePart.split(', ').filter(Boolean)) delete out[names[name]];
    return out;
  }
  const emailAndPhone: UserRecord = {
    ...pl,
    email: 'p@l.c',
    tenantIds: ['public', 't1'],
    timeJoined: 300,
    verifiedEmails: [],
    phoneVerified: false,
    externalUserId: 'ext-pl',
  };

  it.each([
    [
      'a linked login method, by its email in its first tenant',
      { id: 'ep-1', isPrimary: true, loginMethods: [ep, emailAndPhone] },
      'public',
      { email: 'p@l.c' },
    ],
    [
      'a linked login method, by its phone in its second tenant',
      { id: 'ep-1', isPrimary: true, loginMethods: [ep, emailAndPhone] },
      't1',
      { phoneNumber: '+14155552671' },
    ],
    ["the primary user's own login method", { id: 'pl-1', isPrimary: true, loginMethods: [emailAndPhone, tp] }, 'public', { email: 'p@l.c' }],
    [
      'a linked login method in one tenant, without an entry',
      { id: 'ep-1', isPrimary: true, loginMethods: [ep, { ...pl, tenantIds: ['public'] }] },
      'public',
      { phoneNumber: '+14155552671' },
    ],
  ] as const)("writes what the whole user's change writes: the login method item and its entries, %s", (_, user: AuthUser, tenantId, identity) => {
    const before = user.loginMethods.find((lm) => lm.userId === 'pl-1')!;
    const marked = withCodesConsumed(
      'email' in identity ? { ...before, verifiedEmails: [identity.email] } : { ...before, phoneVerified: true },
      tenantId,
      identity,
      5_000,
    );
    const whole = userChangeWrites(ctx, [user], [withLoginMethod(user, marked)]);
    const writes = loginMarkWrites(ctx, user.id, before, marked);
    // The same items, in the same order: the login method first, then its entries (puts, as the whole user's).
    expect(writes.map((w) => w.item.Update?.Key ?? { pk: w.item.Put?.Item?.pk, sk: w.item.Put?.Item?.sk })).toEqual(
      whole.map((w) => ({ pk: w.item.Put?.Item?.pk, sk: w.item.Put?.Item?.sk })),
    );
    expect(whole[0].item.Put?.Item?.sk).toBe('LM#pl-1');
    expect(writes.slice(1)).toEqual(whole.slice(1));
    const update = writes[0].item.Update!;
    expect([update.Key, update.ConditionExpression, update.ExpressionAttributeValues?.[':version'], writes[0].onConditionFailed]).toEqual([
      { pk: `USER#${user.id}`, sk: 'LM#pl-1' },
      '#version = :version',
      7,
      { status: 'STALE' },
    ]);
    const stored = at(itemsOfUser(user).find((d) => d.key.sk === 'LM#pl-1')!);
    expect(applied(stored, update)).toEqual(whole[0].item.Put!.Item);
    // A mark taken away again (no consume does; the update removes what the login method lacks).
    const { codesConsumedAt: _c, ...unmarked } = marked;
    expect(applied(whole[0].item.Put!.Item!, loginMarkWrites(ctx, user.id, marked, unmarked)[0].item.Update!)).not.toHaveProperty('codesConsumedAt');
  });

  it.each([
    ['linked, in two tenants', { id: 'ep-1', isPrimary: true, loginMethods: [ep, { ...tp, verifiedEmails: [], tenantIds: ['t1', 't2'] }] }],
    ["the primary user's own", { id: 'tp-1', isPrimary: true, loginMethods: [{ ...tp, verifiedEmails: ['old@b.c'] }, ep] }],
  ] as const)(
    "writes what the whole user's change writes for a third-party login method whose email the provider verifies, %s: its item and its guards' snapshots",
    (_, user: AuthUser) => {
      const before = user.loginMethods.find((lm) => lm.userId === 'tp-1')!;
      const verified = withVerifiedEmail(before, 'a@b.c');
      const whole = userChangeWrites(ctx, [user], [withLoginMethod(user, verified)]);
      const writes = loginMarkWrites(ctx, user.id, before, verified);
      // The login method, then a guard per tenant with its snapshot at the version written.
      expect(whole.map((w) => w.item.Put?.Item?.pk)).toEqual([`USER#${user.id}`, ...before.tenantIds.map((t) => `T#${t}#TP#google#g1`)]);
      expect(writes.slice(1)).toEqual(whole.slice(1));
      expect(writes.slice(1).map((w) => readSnapshot(w.item.Put!.Item!)?.loginMethod.version)).toEqual(before.tenantIds.map(() => 2));
      const stored = at(itemsOfUser(user).find((d) => d.key.sk === 'LM#tp-1')!);
      expect(applied(stored, writes[0].item.Update!)).toEqual(whole[0].item.Put!.Item);
    },
  );

  it('refuses any other change (it would need the user): an email, a tenant, a hash', () => {
    for (const other of [{ email: 'new@l.c' }, { tenantIds: ['public'] }, { passwordHash: '$2a$10$x' }, { userId: 'pl-2' }]) {
      expect(() => loginMarkWrites(ctx, 'ep-1', emailAndPhone, { ...emailAndPhone, ...other, phoneVerified: true })).toThrow(
        "only verifications and a consume's marks",
      );
    }
    expect(() => loginMarkWrites(ctx, 'ep-1', emailAndPhone, { ...emailAndPhone, phoneVerified: true, version: 99 })).not.toThrow();
  });
});
