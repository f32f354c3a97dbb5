import { randomBytes, randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../local/create-table';
import { startApi, type TestApi } from '../support/api';
import { passwordlessSignIn } from '../support/flows';
import { BCRYPT } from '../support/linking';
import { dumpTable, testDocClient } from '../support/table';

/**
 * A table written by the build before account linking (storage format 1: a user item at
 * `USER#<id>` / `USER`) keeps its users: the server upgrades it at start, and they sign in as before.
 */
let api: TestApi;
const tableName = `test-upgrade-${randomBytes(4).toString('hex')}`;
const ids = { ep: randomUUID(), tp: randomUUID(), pl: randomUUID() };
const enc = encodeURIComponent;

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
  const doc = testDocClient();
  try {
    for (const Item of items) await doc.send(new PutCommand({ TableName: tableName, Item }));
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
    expect((await api.get('/users')).json.users.map((u: { id: string }) => u.id)).toEqual([ids.ep, ids.tp, ids.pl]);
    expect((await api.get('/users/count')).json.count).toBe(3);
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
