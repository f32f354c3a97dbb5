import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../local/create-table';
import { checkConsistency } from '../../lib/storage/dynamo/consistency';
import { DynamoTotpStore } from '../../lib/storage/dynamo/dynamo-totp-store';
import { createDynamoContext, type DynamoContext } from '../../lib/storage/dynamo/transact';
import * as keys from '../../lib/storage/keys';
import type { TotpAttempt, TotpDevice } from '../../lib/storage/ports/totp';
import { scanTable, testDynamoClient } from '../support/table';

/** The TOTP store on DynamoDB Local: what each write refuses, and what a code check reads. */
const tableName = `test-totp-${randomBytes(4).toString('hex')}`;
let client: DynamoDBClient;
let ctx: DynamoContext;
let store: DynamoTotpStore;
beforeAll(async () => {
  client = testDynamoClient();
  await ensureTable(client, tableName, { stream: false });
  ctx = createDynamoContext(tableName, client);
  store = new DynamoTotpStore(ctx);
});
afterAll(async () => {
  try {
    expect(await checkConsistency(ctx)).toEqual([]);
  } finally {
    client.destroy();
  }
});

let n = 0;
const userId = () => `totp-user-${++n}`;
const device = (name: string, over: Partial<TotpDevice> = {}): TotpDevice => ({
  name,
  secret: randomBytes(4).toString('hex').toUpperCase(),
  period: 30,
  skew: 1,
  verified: false,
  createdAt: 1000 + n,
  ...over,
});
const attempt = (at: number, valid: boolean): TotpAttempt => ({
  at,
  valid,
  expiresAt: at + 90_000,
  keepUntil: at + 900_000,
  ...(valid ? { code: '123456' } : {}),
});

describe('the TOTP store', () => {
  it('puts a device over an unverified one of its name, not over a verified one', async () => {
    const u = userId();
    expect(await store.putDevice(u, device('phone'))).toBe('OK');
    const replacing = device('phone', { secret: 'REPLACED' });
    expect(await store.putDevice(u, replacing)).toBe('OK');
    expect(await store.getDevice(u, 'phone')).toEqual(replacing);
    await store.putDevice(u, device('phone', { verified: true, secret: 'VERIFIED' }));
    expect(await store.putDevice(u, device('phone', { secret: 'THIRD' }))).toBe('EXISTS');
    expect((await store.getDevice(u, 'phone'))?.secret).toBe('VERIFIED');
  });

  it('lists devices oldest first, and none for an unknown user id', async () => {
    const u = userId();
    await store.putDevice(u, device('b', { createdAt: 2 }));
    await store.putDevice(u, device('a', { createdAt: 3 }));
    await store.putDevice(u, device('c', { createdAt: 1 }));
    expect((await store.listDevices(u)).map((d) => d.name)).toEqual(['c', 'b', 'a']);
    expect(await store.listDevices('nobody')).toEqual([]);
  });

  it('renames a device still as read onto a free name only', async () => {
    const u = userId();
    const phone = device('phone', { verified: true });
    await store.putDevice(u, phone);
    await store.putDevice(u, device('tablet'));
    expect(await store.renameDevice(u, phone, 'tablet')).toBe('EXISTS');
    expect(await store.renameDevice(u, { ...phone, secret: 'OTHER' }, 'laptop')).toBe('STALE');
    expect(await store.renameDevice(u, phone, 'laptop')).toBe('OK');
    expect((await store.listDevices(u)).map((d) => [d.name, d.secret])).toEqual([
      ['laptop', phone.secret],
      ['tablet', expect.any(String)],
    ]);
  });

  it('reads the devices and the attempts of one tenant in one Query, and writes attempts only at the version read', async () => {
    const u = userId();
    await store.putDevice(u, device('phone'));
    expect(await store.readCheckState(u, 'public')).toEqual({ devices: [expect.objectContaining({ name: 'phone' })] });
    expect(await store.recordAttempts(u, 'public', [attempt(10, false)], undefined)).toBe('OK');
    expect(await store.recordAttempts(u, 'public', [attempt(11, false)], undefined)).toBe('STALE');
    expect(await store.recordAttempts(u, 'other', [attempt(12, true)], undefined)).toBe('OK');
    const state = await store.readCheckState(u, 'public');
    expect(state.attempts).toEqual({ attempts: [attempt(10, false)], version: 1 });
    expect(await store.recordAttempts(u, 'public', [attempt(13, true), attempt(10, false)], 1)).toBe('OK');
    expect(await store.recordAttempts(u, 'public', [attempt(14, false)], 1)).toBe('STALE');
    expect((await store.readCheckState(u, 'public')).attempts).toEqual({ attempts: [attempt(13, true), attempt(10, false)], version: 2 });
    expect((await store.readCheckState(u, 'other')).attempts?.attempts).toEqual([attempt(12, true)]);
  });

  it('marks a device verified with the attempt, only while it is the device read', async () => {
    const u = userId();
    const phone = device('phone');
    await store.putDevice(u, phone);
    expect(await store.recordAttempts(u, 'public', [attempt(1, true)], undefined, { ...phone, secret: 'REPLACED' })).toBe('STALE');
    expect((await store.readCheckState(u, 'public')).attempts).toBeUndefined();
    expect(await store.recordAttempts(u, 'public', [attempt(1, true)], undefined, phone)).toBe('OK');
    expect((await store.getDevice(u, 'phone'))?.verified).toBe(true);
  });

  it('stores a TTL at the latest keepUntil, in epoch seconds rounded up', async () => {
    const u = userId();
    await store.recordAttempts(
      u,
      'public',
      [
        { at: 1, valid: false, expiresAt: 1, keepUntil: 5_001 },
        { at: 0, valid: false, expiresAt: 0, keepUntil: 3_000 },
      ],
      undefined,
    );
    const item = (await scanTable(tableName)).find((i) => i.pk === keys.totpPartition(u));
    expect(item?.ttl).toBe(6);
  });

  it('removes a device; the last one takes the attempts of every tenant with it', async () => {
    const u = userId();
    await store.putDevice(u, device('a'));
    await store.putDevice(u, device('b'));
    await store.recordAttempts(u, 'public', [attempt(1, false)], undefined);
    await store.recordAttempts(u, 'other', [attempt(1, false)], undefined);
    expect(await store.removeDevice(u, 'nope')).toBe(false);
    expect(await store.removeDevice(u, 'a')).toBe(true);
    expect(await store.hasData(u)).toBe(true);
    expect((await store.readCheckState(u, 'public')).attempts).toBeDefined();
    expect(await store.removeDevice(u, 'b')).toBe(true);
    expect(await store.removeDevice(u, 'b')).toBe(false);
    expect(await store.hasData(u)).toBe(false);
    expect((await scanTable(tableName)).filter((i) => i.pk === keys.totpPartition(u))).toEqual([]);
  });

  it('keeps user ids apart, whatever characters they hold', async () => {
    await store.putDevice('a#b', device('x'));
    expect(await store.listDevices('a')).toEqual([]);
    expect((await store.listDevices('a#b')).map((d) => d.name)).toEqual(['x']);
    expect(await store.hasData('a')).toBe(false);
  });
});

describe('the consistency checker on TOTP items', () => {
  it('reports an item not as written, without its secret', async () => {
    const checker = createDynamoContext(`test-totp-bad-${randomBytes(4).toString('hex')}`, client);
    await ensureTable(client, checker.tableName, { stream: false });
    const bad = new DynamoTotpStore(checker);
    await bad.putDevice('u', device('phone', { secret: 'SECRETSECRET' }));
    await bad.recordAttempts('u', 'public', [attempt(1, false)], undefined);
    expect(await checkConsistency(checker)).toEqual([]);
    await checker.doc.send(
      new UpdateCommand({
        TableName: checker.tableName,
        Key: keys.totpDevice('u', 'phone'),
        UpdateExpression: 'SET verified = :s',
        ExpressionAttributeValues: { ':s': 'yes' },
      }),
    );
    await checker.doc.send(
      new PutCommand({
        TableName: checker.tableName,
        Item: {
          ...keys.totpAttempts('u', 'elsewhere'),
          type: 'totpAttempts',
          userId: 'u',
          tenantId: 'public',
          attempts: [attempt(1, false)],
          version: 1,
          ttl: 1,
        },
      }),
    );
    const problems = await checkConsistency(checker);
    expect(problems.map((p) => [p.kind, p.key])).toEqual([
      ['totp-item-unreadable', 'TOTP#u'],
      ['totp-item-unreadable', 'TOTP#u'],
    ]);
    expect(JSON.stringify(problems)).not.toContain('SECRETSECRET');
  });
});
