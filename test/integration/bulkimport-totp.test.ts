import { randomBytes } from 'node:crypto';
import { base32Encode } from '../../lib/recipes/totp/base32';
import { BULK_ROW_TYPE } from '../../lib/storage/dynamo/dynamo-bulk-import-store';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local';
import { startApi, type TestApi } from '../support/api';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { testDocClient } from '../support/table';
import { totpCode } from '../support/totp';
import { bulkRowsDrained } from '../support/bulk-users';

/**
 * `totpDevices` in bulk import (SPEC §20): validated at the user's index with the core's texts,
 * imported verified under the id the app knows the user by (in the transaction of the user, by
 * `POST /bulk-import/import` and by the worker), replaced by a re-run, and never shown: not in a
 * row, an error text or a log line.
 */
let n = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${n++}`;
/** A secret of its own per device, as the core makes them (codes of one secret are refused again for their window). */
const newSecret = () => base32Encode(randomBytes(20));
const pl = (email = `${unique('totp')}@example.com`) => ({ recipeId: 'passwordless', email });
const verify = (api: TestApi, userId: string, totp: string) => api.post('/recipe/totp/verify', { userId, totp });
const listDevices = async (api: TestApi, userId: string) =>
  (await api.get(`/recipe/totp/device/list?userId=${encodeURIComponent(userId)}`)).json.devices as {
    name: string;
    period: number;
    skew: number;
    verified: boolean;
  }[];

describe('bulk import of TOTP devices, one user at once (POST /bulk-import/import)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.stop());

  it('imports them verified under the external id, with the core defaults: a code of each secret verifies as the mapped user', async () => {
    const externalUserId = unique('clerk');
    const [a, b] = [newSecret(), newSecret()];
    const userMetadata = { _supertokens: { requiredSecondaryFactors: ['totp'] } };
    const res = await api.post('/bulk-import/import', {
      externalUserId,
      userMetadata,
      totpDevices: [{ secretKey: a.toLowerCase().replace(/(.{4})/g, '$1 ') }, { secretKey: b, deviceName: ' Work phone ', period: 60, skew: 0 }],
      loginMethods: [pl()],
    });
    expect([res.status, res.json.user?.id]).toEqual([200, externalUserId]);
    expect(await listDevices(api, externalUserId)).toEqual([
      { name: 'TOTP Device 0', period: 30, skew: 1, verified: true },
      { name: 'Work phone', period: 60, skew: 0, verified: true },
    ]);
    expect((await verify(api, externalUserId, totpCode(a))).json).toEqual({ status: 'OK' });
    expect((await verify(api, externalUserId, totpCode(b, 0, 60))).json).toEqual({ status: 'OK' });
    // The required second factor the SDK's MultiFactorAuth reads.
    expect((await api.get(`/recipe/user/metadata?userId=${externalUserId}`)).json.metadata).toEqual(userMetadata);
  });

  it("imports them under the primary login method's user id when there is no external id", async () => {
    const secret = newSecret();
    const res = await api.post('/bulk-import/import', {
      totpDevices: [{ secretKey: secret, deviceName: 'Phone' }],
      loginMethods: [
        { ...pl(), timeJoinedInMSSinceEpoch: 2_000 },
        { ...pl(), isPrimary: true, timeJoinedInMSSinceEpoch: 3_000 },
      ],
    });
    expect([res.status, res.json.user.isPrimaryUser]).toEqual([200, true]);
    expect((await listDevices(api, res.json.user.id)).map((d) => [d.name, d.verified])).toEqual([['Phone', true]]);
    expect((await verify(api, res.json.user.id, totpCode(secret))).json).toEqual({ status: 'OK' });
  });

  it('replaces a device of the same name when the same user is imported again, and adds the new ones', async () => {
    const externalUserId = unique('rerun');
    const email = `${unique('rerun')}@example.com`;
    const [old, replaced, added] = [newSecret(), newSecret(), newSecret()];
    const body = (totpDevices: unknown[]) => ({ externalUserId, totpDevices, loginMethods: [pl(email)] });
    expect((await api.post('/bulk-import/import', body([{ secretKey: old, deviceName: 'Phone' }]))).status).toBe(200);
    const again = await api.post('/bulk-import/import', body([{ secretKey: replaced, deviceName: 'Phone', period: 60 }, { secretKey: added }]));
    expect([again.status, again.json.user.id]).toEqual([200, externalUserId]);
    expect((await listDevices(api, externalUserId)).map((d) => [d.name, d.period, d.verified]).sort()).toEqual([
      ['Phone', 60, true],
      ['TOTP Device 1', 30, true],
    ]);
    expect((await verify(api, externalUserId, totpCode(old))).json.status).toBe('INVALID_TOTP_ERROR');
    expect((await verify(api, externalUserId, totpCode(replaced, 0, 60))).json.status).toBe('OK');
    expect((await verify(api, externalUserId, totpCode(added))).json.status).toBe('OK');
  });

  it('answers each invalid device with the core texts and writes nothing: no user, no device', async () => {
    const externalUserId = unique('bad');
    const secret = `${newSecret()}1`;
    const count = (await api.get('/users/count')).json.count;
    const res = await api.post('/bulk-import/import', {
      externalUserId,
      totpDevices: [{ secretKey: newSecret() }, { secretKey: secret, period: 0, skew: -1 }, { deviceName: 'x' }],
      loginMethods: [pl()],
    });
    expect([res.status, res.json]).toEqual([
      400,
      {
        errors: [
          'secretKey is not valid base32 for a totp device.',
          'period should be > 0 for a totp device.',
          'skew should be >= 0 for a totp device.',
          'secretKey is required for a totp device.',
        ],
      },
    ]);
    expect(res.text).not.toContain(secret.slice(0, 16));
    expect((await api.post('/bulk-import/import', { totpDevices: {}, loginMethods: [pl()] })).json).toEqual({
      errors: ['totpDevices should be of type array of object.'],
    });
    expect((await api.get('/users/count')).json.count).toBe(count);
    expect(await listDevices(api, externalUserId)).toEqual([]);
  });
});

describe('bulk import of TOTP devices, staged (POST /bulk-import/users)', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.stop());

  it("refuses a request with an invalid device at that user's index, staging nothing, and never echoes a secret", async () => {
    const long = `${newSecret()}${'A'.repeat(240)}`;
    const res = await api.post('/bulk-import/users', {
      users: [
        { totpDevices: [{ secretKey: newSecret() }], loginMethods: [pl()] },
        {
          totpDevices: [
            { secretKey: long, deviceName: 'n'.repeat(257) },
            { secretKey: newSecret(), skew: 101 },
          ],
          loginMethods: [pl()],
        },
        {
          totpDevices: [
            { secretKey: newSecret(), deviceName: 'A' },
            { secretKey: newSecret(), deviceName: 'A ' },
          ],
          loginMethods: [pl()],
        },
      ],
    });
    expect([res.status, res.json]).toEqual([
      400,
      {
        error: 'Data has missing or invalid fields. Please check the users field for more details.',
        users: [
          {
            index: 1,
            errors: [
              'TOTP secretKey is too long. Max length is 256.',
              `TOTP deviceName ${'n'.repeat(257)} is too long. Max length is 256.`,
              'skew should be <= 100 for a totp device.',
            ],
          },
          { index: 2, errors: ['TOTP deviceName A is not unique. It is already used by another totp device.'] },
        ],
      },
    ]);
    expect(res.text).not.toContain(long.slice(0, 16));
    expect((await api.get('/bulk-import/users/count')).json.count).toBe(0);
  });

  it('stages the devices in the row; GET /bulk-import/users shows their names, periods and skews, never a secret', async () => {
    const secrets = [newSecret(), newSecret()];
    const externalUserId = unique('staged');
    const staged = await api.post('/bulk-import/users', {
      users: [
        {
          externalUserId,
          totpDevices: [{ secretKey: secrets[0] }, { secretKey: secrets[1], deviceName: 'Tablet', period: 60, skew: 2 }],
          loginMethods: [pl()],
        },
      ],
    });
    expect(staged.status).toBe(200);
    const list = await api.get('/bulk-import/users');
    const row = list.json.users.find((r: { externalUserId?: string }) => r.externalUserId === externalUserId);
    expect(row.totpDevices).toEqual([
      { deviceName: 'TOTP Device 0', period: 30, skew: 1 },
      { deviceName: 'Tablet', period: 60, skew: 2 },
    ]);
    for (const secret of secrets) {
      expect(staged.text).not.toContain(secret);
      expect(list.text).not.toContain(secret);
    }
  });
});

describe('bulk import of TOTP devices by the worker', () => {
  let dynamo: DynamoDbLocal;
  let api: TestApi;
  beforeAll(async () => {
    // A DynamoDB Local of its own, as the worker's suite: its stream serves this suite alone.
    dynamo = await startDynamoDbLocal();
    api = await startApi({ BULK_WORKER: 'on', AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint });
  });
  afterAll(async () => {
    await api.stop();
    await dynamo.stop();
  });

  it('imports the devices of staged users verified, in the transaction of each user; a failed row keeps no secret; no log line shows one', async () => {
    const email = `${unique('taken')}@example.com`;
    expect((await api.post('/bulk-import/import', { loginMethods: [pl(email)] })).status).toBe(200);
    const [mapped, unmapped, failing] = [newSecret(), newSecret(), newSecret()];
    const externalUserId = unique('worker');
    const staged = await api.post('/bulk-import/users', {
      users: [
        { externalUserId, totpDevices: [{ secretKey: mapped, deviceName: 'Phone' }], loginMethods: [pl()] },
        { totpDevices: [{ secretKey: unmapped }], loginMethods: [pl()] },
        { externalUserId: unique('conflict'), totpDevices: [{ secretKey: failing, deviceName: 'Lost' }], loginMethods: [pl(email)] },
      ],
    });
    expect(staged.status).toBe(200);
    await bulkRowsDrained(api);

    expect((await verify(api, externalUserId, totpCode(mapped))).json).toEqual({ status: 'OK' });
    const unmappedId = staged.json.users[1].userId;
    expect(await listDevices(api, unmappedId)).toEqual([{ name: 'TOTP Device 0', period: 30, skew: 1, verified: true }]);
    expect((await verify(api, unmappedId, totpCode(unmapped))).json).toEqual({ status: 'OK' });

    // The conflicting user failed (E006) with nothing of it written: its device neither.
    const failed = await api.get('/bulk-import/users?status=FAILED');
    expect(failed.json.users.map((r: { errorMessage: string; totpDevices: unknown }) => [r.errorMessage, r.totpDevices])).toEqual([
      [`E006: A user with email ${email} already exists in passwordless loginMethod.`, [{ deviceName: 'Lost', period: 30, skew: 1 }]],
    ]);
    expect(await listDevices(api, staged.json.users[2].userId)).toEqual([]);
    const doc = testDocClient(dynamo.endpoint);
    const rows = (await doc.send(new ScanCommand({ TableName: api.tableName, ConsistentRead: true }))).Items?.filter((i) => i.type === BULK_ROW_TYPE) ?? [];
    doc.destroy();
    expect(rows.map((r) => r.status)).toEqual(['FAILED']);
    expect(JSON.stringify(rows)).not.toContain(failing);

    for (const secret of [mapped, unmapped, failing]) expect(api.logs.filter((line) => line.includes(secret))).toEqual([]);
  }, 120_000);
});
