import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { startApi, tableProblems, type TestApi } from '../support/api';
import { createCode, passwordlessSignIn, uniqueEmail } from '../support/flows';
import { testDocClient } from '../support/table';

let api: TestApi;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await expect(api.stop()).rejects.toThrow(/is inconsistent/);
});

describe('the consistency checker', () => {
  it('finds nothing in a table the service wrote', async () => {
    await passwordlessSignIn(api, { email: uniqueEmail() });
    await createCode(api, { phoneNumber: '+14155552671' });
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('reports every kind of broken invariant it is given', async () => {
    const { user } = await passwordlessSignIn(api, { email: uniqueEmail('broken') });
    const code = await createCode(api, { email: uniqueEmail('orphan') });
    const doc = testDocClient();
    try {
      const T = api.tableName;
      await doc.send(new DeleteCommand({ TableName: T, Key: { pk: `T#public#PL#EMAIL#${encodeURIComponent(user.emails[0])}`, sk: 'GUARD' } }));
      await doc.send(new PutCommand({ TableName: T, Item: { pk: 'T#public#PL#EMAIL#ghost%40x.y', sk: 'GUARD', type: 'guard', userId: 'no-such-user' } }));
      await doc.send(new PutCommand({ TableName: T, Item: { pk: 'T#public#PL#EMAIL#stolen%40x.y', sk: 'GUARD', type: 'guard', userId: user.id } }));
      await doc.send(new DeleteCommand({ TableName: T, Key: { pk: `PLDEV#${code.preAuthSessionId}`, sk: 'DEVICE' } }));
      await doc.send(new PutCommand({ TableName: T, Item: { pk: 'PLDEV#lonely', sk: 'DEVICE', type: 'device', preAuthSessionId: 'lonely' } }));
      const ep = (await api.post('/recipe/user/passwordhash/import', { email: 'stale@x.y', passwordHash: '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq' })).json.user;
      await doc.send(new PutCommand({ TableName: T, Item: { pk: 'T#public#EP#EMAIL#stale%40x.y', sk: 'GUARD', type: 'guard', userId: ep.id, passwordHash: '$2a$10$old' } }));
    } finally {
      doc.destroy();
    }
    const kinds = (await tableProblems(api.tableName)).map((p) => p.kind).sort();
    expect(kinds).toEqual(['code-without-device', 'device-without-code', 'guard-not-held', 'guard-stale-hash', 'guard-without-user', 'user-missing-guard']);
  });
});
