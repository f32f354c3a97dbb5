import { randomBytes, randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../local/create-table';
import { startApi, tableProblems, type TestApi } from '../support/api';
import { passwordlessSignIn } from '../support/flows';
import { BCRYPT } from '../support/linking';
import { dumpTable, testDocClient } from '../support/table';
import { standaloneUser } from '../../lib/storage/auth-user';
import { keys } from '../../lib/storage/keys';
import { itemsOfUser, loginMethodOfCopy, loginMethodOfEntry, primaryLoginOfGuard, type DerivedItem } from '../../lib/storage/dynamo/user-items';
import type { AuthUser, UserRecord } from '../../lib/storage/model';

/**
 * A table written by the build before account linking (storage format 1: a user item at
 * `USER#<id>` / `USER`) keeps its users: the server upgrades it at start, and they sign in as before.
 * So does one written before phone numbers were indexed (format 2: a passwordless login method
 * without an email had no gsi2 key, and no phone entries existed), before guards carried a copy of
 * their login method (format 3), before email and phone entries did (format 4), before a primary
 * user's entries did (format 5), before guards' copies held the version (format 6), and before a
 * primary user's third-party guards held a copy (format 7).
 */
let api: TestApi;
const tableName = `test-upgrade-${randomBytes(4).toString('hex')}`;
const ids = { ep: randomUUID(), tp: randomUUID(), pl: randomUUID() };
/** A format-2 passwordless user with a phone only, in two tenants. */
const phoneUser: UserRecord = {
  userId: randomUUID(), recipeId: 'passwordless', tenantIds: ['public', 'old-t'], timeJoined: 1_700_000_000_003,
  phoneNumber: '+14155550111', verifiedEmails: [], phoneVerified: true, version: 4,
};

/**
 * The items a user implies today as an older format stored them: `older` turns each into what that
 * format wrote (`undefined`: none), as DynamoDB would hold it.
 */
function storedAs(user: AuthUser, older: (d: DerivedItem) => Record<string, unknown> | undefined): Record<string, unknown>[] {
  return itemsOfUser(user).flatMap((d) => {
    const item = older(d);
    return item === undefined ? [] : [JSON.parse(JSON.stringify(item)) as Record<string, unknown>];
  });
}

/** Its items as format 2 wrote them: those of today without anything phone numbers are indexed by. */
const format2 = (lm: UserRecord) =>
  storedAs(standaloneUser(lm), (d) => (d.item.type === 'phoneEntry' ? undefined : d.role === 'loginMethod' ? { ...d.item, gsi2pk: undefined, gsi2sk: undefined } : d.item));
const enc = encodeURIComponent;

/** A format-3 email-password user in two tenants, and a primary one: their guards had no copy of the login method. */
const guardUser: UserRecord = {
  userId: randomUUID(), recipeId: 'emailpassword', tenantIds: ['public', 'old-t'], timeJoined: 1_700_000_000_004,
  email: 'old-guard@example.com', verifiedEmails: ['old-guard@example.com'], phoneVerified: false, passwordHash: BCRYPT.hash, externalUserId: 'old-ext-1', version: 6,
};
const primaryGuardUser: UserRecord = { ...guardUser, userId: randomUUID(), email: 'old-primary@example.com', verifiedEmails: [], externalUserId: undefined, tenantIds: ['public'], timeJoined: 1_700_000_000_005, version: 2 };
const format3 = (user: AuthUser) => storedAs(user, (d) => (d.role === 'guard' ? { ...d.item, loginMethod: undefined } : d.item));

/** A format-4 passwordless user with an email and a phone in two tenants: its email and phone entries had no copy of it. */
const entryUser: UserRecord = {
  userId: randomUUID(), recipeId: 'passwordless', tenantIds: ['public', 'old-t'], timeJoined: 1_700_000_000_006, email: 'old-entry@example.com',
  phoneNumber: '+14155550122', verifiedEmails: ['old-entry@example.com'], phoneVerified: true, version: 3,
};
/**
 * A format-5 primary user of one passwordless login method with an email and a phone in two
 * tenants: its entries had no copy (format 5 copied only a login method on its own's).
 */
const primaryEntryUser: UserRecord = {
  ...entryUser, userId: randomUUID(), email: 'old-primary-entry@example.com', phoneNumber: '+14155550133', verifiedEmails: [], timeJoined: 1_700_000_000_007, version: 4,
};
/** A format-6 third-party user on its own: its guard's copy had no version. */
const versionUser: UserRecord = {
  userId: randomUUID(), recipeId: 'thirdparty', tenantIds: ['public'], timeJoined: 1_700_000_000_008, email: 'old-version@example.com',
  thirdParty: { id: 'google', userId: 'old-version-g' }, verifiedEmails: [], phoneVerified: false, version: 5,
};
/**
 * A format-7 primary user of two third-party login methods, its own and a linked one: their
 * identity guards had no copy (format 8 copies a primary user's too, naming that user).
 */
const primaryTpOwn: UserRecord = {
  userId: randomUUID(), recipeId: 'thirdparty', tenantIds: ['public'], timeJoined: 1_700_000_000_009, email: 'old-primary-tp@example.com',
  thirdParty: { id: 'google', userId: 'old-primary-g' }, verifiedEmails: ['old-primary-tp@example.com'], phoneVerified: false, version: 3,
};
const primaryTpLinked: UserRecord = {
  ...primaryTpOwn, userId: randomUUID(), timeJoined: 1_700_000_000_010, email: 'old-linked-tp@example.com', thirdParty: { id: 'github', userId: 'old-linked-g' }, verifiedEmails: [], version: 2,
};
const primaryTpUser: AuthUser = { id: primaryTpOwn.userId, isPrimary: true, loginMethods: [primaryTpOwn, primaryTpLinked] };
const format4 = (user: AuthUser) => storedAs(user, (d) => (d.role === 'entry' ? { ...d.item, loginMethod: undefined } : d.item));
const format6 = (user: AuthUser) =>
  storedAs(user, (d) => (d.role === 'guard' && d.item.loginMethod ? { ...d.item, loginMethod: { ...(d.item.loginMethod as object), version: undefined } } : d.item));

/** A user item exactly as format 1 wrote it (the previous `userItem`), and its guards. */
function format1(user: Record<string, unknown> & { userId: string; timeJoined: number; email?: string }, guards: Record<string, unknown>[]) {
  const ts = String(user.timeJoined).padStart(15, '0');
  return [
    {
      pk: `USER#${user.userId}`, sk: 'USER', type: 'user', tenantIds: ['public'], version: 2, ...user,
      gsi1pk: 'T#public#USERS', gsi1sk: `${ts}#${user.userId}`,
      ...(user.email ? { gsi2pk: `T#public#EMAIL#${enc(user.email)}`, gsi2sk: `${ts}#${user.userId}` } : {}),
    },
    ...guards.map((g) => ({ sk: 'GUARD', type: 'guard', userId: user.userId, ...g })),
  ];
}

beforeAll(async () => {
  const client = new DynamoDBClient({ endpoint: process.env.TEST_DYNAMODB_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  await ensureTable(client, tableName);
  client.destroy();
  const items = [
    ...format1(
      { userId: ids.ep, recipeId: 'emailpassword', timeJoined: 1_700_000_000_000, email: 'old-ep@example.com', emailVerified: false, phoneVerified: false, passwordHash: BCRYPT.hash },
      [{ pk: `T#public#EP#EMAIL#${enc('old-ep@example.com')}`, passwordHash: BCRYPT.hash }],
    ),
    ...format1(
      { userId: ids.tp, recipeId: 'thirdparty', timeJoined: 1_700_000_000_001, email: 'old-tp@example.com', thirdParty: { id: 'google', userId: 'old-g' }, emailVerified: true, phoneVerified: false },
      [{ pk: 'T#public#TP#google#old-g' }],
    ),
    ...format1(
      { userId: ids.pl, recipeId: 'passwordless', timeJoined: 1_700_000_000_002, email: 'old-pl@example.com', phoneNumber: '+14155550100', emailVerified: true, phoneVerified: false },
      [{ pk: `T#public#PL#EMAIL#${enc('old-pl@example.com')}` }, { pk: `T#public#PL#PHONE#${enc('+14155550100')}` }],
    ),
  ];
  const all: Record<string, unknown>[] = [
    ...items,
    ...format2(phoneUser),
    ...format3(standaloneUser(guardUser)),
    ...format3({ id: primaryGuardUser.userId, isPrimary: true, loginMethods: [primaryGuardUser] }),
    ...format4(standaloneUser(entryUser)),
    ...format4({ id: primaryEntryUser.userId, isPrimary: true, loginMethods: [primaryEntryUser] }),
    ...format6(standaloneUser(versionUser)),
    ...format3(primaryTpUser),
  ];
  const doc = testDocClient();
  try {
    for (const Item of all) await doc.send(new PutCommand({ TableName: tableName, Item }));
  } finally {
    doc.destroy();
  }
  api = await startApi({ TABLE_NAME: tableName });
});
afterAll(() => api.stop());

describe('upgrading a table of the build before account linking', () => {
  it('says so at start and leaves no format-1 item', async () => {
    expect(api.logs).toContain('upgraded 3 users to storage format 2 (account linking)');
    expect(await dumpTable(tableName)).not.toContain('"sk":"USER"');
  });

  it('keeps every user: by id, listed and counted, with the same ids and times', async () => {
    for (const id of Object.values(ids)) expect((await api.get(`/user/id?userId=${id}`)).json.user.id).toBe(id);
    // (and the format-2 phone user, then the format-3 email-password ones, the format-4 passwordless one, the format-5 primary one, the format-6 third-party one and the format-7 primary one, joined last)
    expect((await api.get('/users')).json.users.map((u: { id: string }) => u.id)).toEqual([
      ids.ep, ids.tp, ids.pl, phoneUser.userId, 'old-ext-1', primaryGuardUser.userId, entryUser.userId, primaryEntryUser.userId, versionUser.userId, primaryTpUser.id,
    ]);
    expect((await api.get('/users/count')).json.count).toBe(10);
    expect((await api.get(`/user/id?userId=${ids.pl}`)).json.user.phoneNumbers).toEqual(['+14155550100']);
  });

  it('signs each user in as before', async () => {
    const ep = await api.post('/recipe/signin', { email: 'old-ep@example.com', password: BCRYPT.password });
    expect([ep.json.status, ep.json.user.id]).toEqual(['OK', ids.ep]);
    const tp = await api.post('/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId: 'old-g', email: { id: 'old-tp@example.com', isVerified: true } });
    expect([tp.json.createdNewUser, tp.json.user.id]).toEqual([false, ids.tp]);
    const pl = await passwordlessSignIn(api, { phoneNumber: '+14155550100' });
    expect([pl.createdNewUser, pl.user.id]).toEqual([false, ids.pl]);
  });
});

describe('upgrading a table written before phone numbers were indexed', () => {
  it('says so at start, and indexes the phone in every tenant: on the item in the first, by an entry in the other', async () => {
    // The format-1 passwordless user has an email and a phone: its phone entry is added too.
    expect(api.logs).toContain('upgraded 2 users to storage format 3 (phone numbers indexed)');
    // The table's items as DynamoDB JSON ({"S": …}), read back as plain strings.
    const raw = JSON.parse(await dumpTable(tableName)) as Record<string, { S?: string; N?: string }>[];
    const items = raw.map((i) => Object.fromEntries(Object.entries(i).map(([k, v]) => [k, v.S ?? v.N])));
    const partition = items.filter((i) => i.pk === `USER#${phoneUser.userId}`);
    expect(partition.find((i) => i.type === 'loginMethod')).toMatchObject({ gsi2pk: `T#public#PHONE#${enc('+14155550111')}`, version: '4' });
    expect(partition.filter((i) => i.type === 'phoneEntry').map((i) => i.gsi2pk)).toEqual([`T#old-t#PHONE#${enc('+14155550111')}`]);
    expect(items.filter((i) => i.pk === `USER#${ids.pl}` && i.type === 'phoneEntry').map((i) => i.gsi2pk)).toEqual([
      `T#public#PHONE#${enc('+14155550100')}`,
    ]);
  });

  it('signs the phone user in as before', async () => {
    const pl = await passwordlessSignIn(api, { phoneNumber: '+14155550111' });
    expect([pl.createdNewUser, pl.user.id]).toEqual([false, phoneUser.userId]);
  });
});

describe('upgrading a table written before email guards carried their login method', () => {
  it('says so at start, and copies a login method on its own onto its email guard in every tenant, a primary user\'s not; and a primary user\'s third-party login methods onto their guards, naming it', async () => {
    // The format-1 email-password and third-party users (a guard each), the format-3 one (two),
    // the format-6 third-party one (its copy without the version), and the format-7 primary user's
    // two third-party identities.
    expect(api.logs).toContain('upgraded 7 guards to storage format 8 (sign-in answers and writes from the guard)');
    const doc = testDocClient();
    try {
      for (const tenantId of guardUser.tenantIds) {
        const guard = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.emailGuard(tenantId, 'emailpassword', guardUser.email!) }))).Item!;
        expect([tenantId, loginMethodOfCopy(guard)]).toEqual([tenantId, guardUser]);
      }
      // The format-6 guard's copy now holds the version (format 7): the whole login method.
      const versionGuard = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.thirdPartyGuard('public', 'google', 'old-version-g') }))).Item!;
      expect(loginMethodOfCopy(versionGuard)).toEqual(versionUser);
      const primaryGuard = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.emailGuard('public', 'emailpassword', primaryGuardUser.email!) }))).Item!;
      expect(primaryGuard.loginMethod).toBeUndefined();
      for (const lm of primaryTpUser.loginMethods) {
        const guard = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.thirdPartyGuard('public', lm.thirdParty!.id, lm.thirdParty!.userId) }))).Item!;
        expect([lm.userId, primaryLoginOfGuard(guard)]).toEqual([lm.userId, { primaryUserId: primaryTpUser.id, loginMethod: lm }]);
      }
    } finally {
      doc.destroy();
    }
  });

  it('signs them in as before, under the external id, and the table is consistent', async () => {
    const res = await api.post('/recipe/signin', { email: guardUser.email, password: BCRYPT.password });
    expect([res.json.status, res.json.user.id, res.json.user.loginMethods[0].verified]).toEqual(['OK', 'old-ext-1', true]);
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'old-t' })).status).toBe(200);
    const inOther = await api.post('/old-t/recipe/signin', { email: guardUser.email, password: BCRYPT.password });
    expect([inOther.json.status, inOther.json.user.id]).toEqual(['OK', 'old-ext-1']);
    const primary = await api.post('/recipe/signin', { email: primaryGuardUser.email, password: BCRYPT.password });
    expect([primary.json.status, primary.json.user.id, primary.json.user.isPrimaryUser]).toEqual(['OK', primaryGuardUser.userId, true]);
    // The format-6 third-party user, its email now verified by the provider: written from the copy.
    const tp = await api.post('/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId: 'old-version-g', email: { id: versionUser.email, isVerified: true } });
    expect([tp.json.status, tp.json.createdNewUser, tp.json.user.id, tp.json.user.loginMethods[0].verified]).toEqual(['OK', false, versionUser.userId, true]);
    // The format-7 primary user's linked third-party login method, its email now verified by the
    // provider: written from its guard's copy, answered as the primary user.
    const linked = await api.post('/recipe/signinup', { thirdPartyId: 'github', thirdPartyUserId: 'old-linked-g', email: { id: primaryTpLinked.email, isVerified: true } });
    expect([linked.json.status, linked.json.recipeUserId, linked.json.user]).toEqual(['OK', primaryTpLinked.userId, (await api.get(`/user/id?userId=${primaryTpUser.id}`)).json.user]);
    expect(linked.json.user.loginMethods.map((lm: { verified: boolean }) => lm.verified)).toEqual([true, true]);
    expect(await tableProblems(tableName)).toEqual([]);
  });
});

describe('upgrading a table written before email and phone entries carried their login method', () => {
  const entryKeysOf = (lm: UserRecord) => [keys.emailEntry(lm.userId, 'old-t', lm.userId), ...lm.tenantIds.map((t) => keys.phoneEntry(lm.userId, t, lm.userId))];

  it('says so at start, and copies a passwordless login method onto each of its entries, naming its user when that is primary', async () => {
    // The format-4 user's email entry in its other tenant and its phone entry in each, and the
    // format-5 primary user's three; the entries format 3's upgrade added above already carry
    // theirs, and an email-password one never does.
    expect(api.logs).toContain('upgraded 6 entries to storage format 6 (consume answers from the index)');
    const doc = testDocClient();
    try {
      for (const Key of entryKeysOf(entryUser)) {
        const entry = (await doc.send(new GetCommand({ TableName: tableName, Key }))).Item!;
        expect([Key.sk, loginMethodOfEntry(entry)]).toEqual([Key.sk, { loginMethod: entryUser }]);
      }
      for (const Key of entryKeysOf(primaryEntryUser)) {
        const entry = (await doc.send(new GetCommand({ TableName: tableName, Key }))).Item!;
        expect([Key.sk, loginMethodOfEntry(entry)]).toEqual([Key.sk, { loginMethod: primaryEntryUser, primaryUserId: primaryEntryUser.userId }]);
      }
      const epEntry = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.emailEntry(guardUser.userId, 'old-t', guardUser.userId) }))).Item!;
      expect([epEntry.type, epEntry.loginMethod]).toEqual(['emailEntry', undefined]);
    } finally {
      doc.destroy();
    }
  });

  it('signs the users in by their phones as before, the primary one as its primary user, and the table is consistent', async () => {
    const pl = await passwordlessSignIn(api, { phoneNumber: entryUser.phoneNumber! });
    expect([pl.createdNewUser, pl.user.id, pl.user.emails]).toEqual([false, entryUser.userId, [entryUser.email]]);
    const primary = await passwordlessSignIn(api, { phoneNumber: primaryEntryUser.phoneNumber! });
    expect([primary.createdNewUser, primary.user.id, primary.user.isPrimaryUser, primary.user.emails]).toEqual([false, primaryEntryUser.userId, true, [primaryEntryUser.email]]);
    expect(await tableProblems(tableName)).toEqual([]);
  });
});
