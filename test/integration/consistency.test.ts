import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as keys from '../../lib/storage/keys';
import { CURRENT_FORMAT } from '../../lib/storage/dynamo/user-items';
import { startApi, tableProblems, UNCALLED_MIGRATION_SOURCE, type TestApi } from '../support/api';
import { createCode, passwordlessSignIn, uniqueEmail } from '../support/flows';
import { linkingClient } from '../support/linking';
import { testDocClient } from '../support/table';

let api: TestApi;
beforeAll(async () => {
  api = await startApi(UNCALLED_MIGRATION_SOURCE);
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
      const idLess = await createCode(api, { email: uniqueEmail('id-less') });
      await doc.send(new DeleteCommand({ TableName: T, Key: keys.codeById(idLess.codeId) }));
      await doc.send(
        new PutCommand({
          TableName: T,
          Item: {
            ...keys.codeById('00000000-0000-4000-8000-000000000000'),
            type: 'code id',
            codeId: '00000000-0000-4000-8000-000000000000',
            preAuthSessionId: 'gone',
          },
        }),
      );
      const ep = (
        await api.post('/recipe/user/passwordhash/import', { email: 'stale@x.y', passwordHash: '$2a$10$S6bOFset3wCUcgNGSBgFxOHBIopaiPEK53YFNalvmiPcOodCK2Ehq' })
      ).json.user;
      await doc.send(
        new PutCommand({
          TableName: T,
          Item: { pk: 'T#public#EP#EMAIL#stale%40x.y', sk: 'GUARD', type: 'guard', fmt: CURRENT_FORMAT, userId: ep.id, passwordHash: '$2a$10$old' },
        }),
      );
    } finally {
      doc.destroy();
    }
    const kinds = (await tableProblems(api.tableName)).map((p) => p.kind).sort();
    expect(kinds).toEqual([
      'code-id-without-code',
      'code-without-device',
      'code-without-id',
      'device-without-code',
      'guard-not-held',
      'guard-stale-hash',
      'guard-without-user',
      'user-missing-guard',
    ]);
  });

  it('reports a login method waiting for password migration without its entry, and an entry nobody waits for', async () => {
    const before = new Set((await tableProblems(api.tableName)).map((p) => `${p.kind} ${p.key}`));
    const emails = [uniqueEmail('pwmig'), uniqueEmail('pwmig')];
    const waiting = async (email: string) =>
      (await api.post('/recipe/user/passwordhash/import', { email, migratePasswordOnSignIn: true })).json.user.id as string;
    const [lost, done] = [await waiting(emails[0]), await waiting(emails[1])];
    expect((await api.get('/recipe/user/passwordmigration/count')).json.count).toBe(2);
    expect((await tableProblems(api.tableName)).length).toBe(before.size);
    const doc = testDocClient();
    try {
      await doc.send(new DeleteCommand({ TableName: api.tableName, Key: keys.passwordMigrationEntry(lost, 'public', lost) }));
      await doc.send(new UpdateCommand({ TableName: api.tableName, Key: keys.loginMethod(done, done), UpdateExpression: 'REMOVE passwordMigration' }));
    } finally {
      doc.destroy();
    }
    const found = (await tableProblems(api.tableName)).filter((p) => !before.has(`${p.kind} ${p.key}`));
    expect(found.map((p) => [p.kind, p.key]).sort()).toEqual([
      ['entry-not-held', keys.userPartition(done)],
      // The snapshot of the login method on its email guard still waits.
      ['guard-stale-snapshot', keys.emailGuard('public', 'emailpassword', emails[1]).pk],
      ['user-missing-entry', keys.userPartition(lost)],
    ]);
  });

  it('reports an email or phone entry whose snapshot of its passwordless login method differs from it', async () => {
    const before = new Set((await tableProblems(api.tableName)).map((p) => `${p.kind} ${p.key}`));
    const email = uniqueEmail('entry-copy');
    const { user } = await passwordlessSignIn(api, { email });
    expect((await api.put('/recipe/user', { userId: user.id, email, phoneNumber: '+14155552699' }, { rid: 'passwordless' })).json.status).toBe('OK');
    expect((await tableProblems(api.tableName)).length).toBe(before.size);
    const doc = testDocClient();
    try {
      // The login method changed behind the service's back: its phone entry's snapshot is now behind.
      await doc.send(
        new UpdateCommand({
          TableName: api.tableName,
          Key: keys.loginMethod(user.id, user.id),
          UpdateExpression: 'SET version = version + :one',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
    } finally {
      doc.destroy();
    }
    const found = (await tableProblems(api.tableName)).filter((p) => !before.has(`${p.kind} ${p.key}`));
    expect(found.map((p) => [p.kind, p.key, p.detail])).toEqual([
      ['entry-stale-snapshot', keys.userPartition(user.id), `the entry PHONE#public#${user.id}'s snapshot of login method ${user.id} differs from it`],
    ]);
  });

  it('reports metadata it cannot read back', async () => {
    const before = (await tableProblems(api.tableName)).length;
    const doc = testDocClient();
    try {
      await doc.send(
        new PutCommand({
          TableName: api.tableName,
          Item: { ...keys.metadata('broken-meta'), type: 'metadata', userId: 'broken-meta', metadata: '[1,', version: 1 },
        }),
      );
      await doc.send(
        new PutCommand({
          TableName: api.tableName,
          Item: { ...keys.metadata('fine-meta'), type: 'metadata', userId: 'fine-meta', metadata: '{"a":1}', version: 3 },
        }),
      );
    } finally {
      doc.destroy();
    }
    const problems = await tableProblems(api.tableName);
    expect(problems.length - before).toBe(1);
    expect(problems).toContainEqual({
      kind: 'metadata-unreadable',
      key: keys.metadata('broken-meta').pk,
      detail: 'metadata is not the JSON text of an object with a version',
    });
  });

  it('reports an email verification token without its entry, and an entry without its token', async () => {
    const before = new Set((await tableProblems(api.tableName)).map((p) => `${p.kind} ${p.key}`));
    const al = linkingClient(api);
    const email = uniqueEmail('ev-broken');
    const id = await al.emailPassword(email);
    const [a, b] = [
      (await api.post('/recipe/user/email/verify/token', { userId: id, email })).json.token,
      (await api.post('/recipe/user/email/verify/token', { userId: id, email })).json.token,
    ];
    const hash = (t: string) => createHash('sha256').update(t).digest('hex');
    const doc = testDocClient();
    try {
      await doc.send(new DeleteCommand({ TableName: api.tableName, Key: { pk: keys.verificationTokensOf('public', id, email), sk: hash(a) } }));
      await doc.send(new DeleteCommand({ TableName: api.tableName, Key: keys.verificationToken(hash(b)) }));
    } finally {
      doc.destroy();
    }
    const problems = (await tableProblems(api.tableName)).filter((p) => !before.has(`${p.kind} ${p.key}`));
    expect(problems.map((p) => p.kind).sort()).toEqual(['entry-without-token', 'token-without-entry']);
    expect(JSON.stringify(problems)).not.toContain(a);
  });

  it('reports every kind of broken account-linking invariant, naming attributes but never their values', async () => {
    const before = new Set((await tableProblems(api.tableName)).map((p) => `${p.kind} ${p.key}`));
    const al = linkingClient(api);
    const email = uniqueEmail('al-broken');
    const primary = await al.emailPassword(email);
    const memberIdentity = { thirdPartyId: 'google', thirdPartyUserId: `member-${Date.now()}` };
    const member = await al.thirdParty(uniqueEmail('al-member'), undefined, memberIdentity);
    await al.group(primary, member);
    const loner = await al.emailPassword();
    const other = await al.thirdParty();
    await al.group(other);
    const doc = testDocClient();
    try {
      const T = api.tableName;
      // The member's guard forgot which user holds it; its link is gone; a link of the loner
      // points at a user not holding it.
      const guard = keys.thirdPartyGuard('public', memberIdentity.thirdPartyId, memberIdentity.thirdPartyUserId);
      await doc.send(new UpdateCommand({ TableName: T, Key: guard, UpdateExpression: 'REMOVE linkedTo' }));
      await doc.send(new DeleteCommand({ TableName: T, Key: keys.link(member) }));
      await doc.send(new PutCommand({ TableName: T, Item: { ...keys.link(loner), type: 'link', fmt: CURRENT_FORMAT, userId: loner, primaryUserId: primary } }));
      // The primary user's claim of its email is gone; a non-primary holds a claim.
      await doc.send(new DeleteCommand({ TableName: T, Key: keys.claim('public', { kind: 'email', email }) }));
      await doc.send(
        new PutCommand({
          TableName: T,
          Item: { ...keys.claim('public', { kind: 'email', email: 'nobody@x.y' }), type: 'claim', fmt: CURRENT_FORMAT, primaryUserId: loner },
        }),
      );
      // A login method with a wrong list entry; a second login method in a non-primary user's partition.
      await doc.send(
        new UpdateCommand({
          TableName: T,
          Key: keys.loginMethod(other, other),
          UpdateExpression: 'SET listRecipeIds = :r',
          ExpressionAttributeValues: { ':r': ['passwordless'] },
        }),
      );
      await doc.send(
        new PutCommand({
          TableName: T,
          Item: {
            ...keys.loginMethod(loner, 'stray'),
            type: 'loginMethod',
            fmt: CURRENT_FORMAT,
            userId: 'stray',
            recipeId: 'passwordless',
            tenantIds: ['public'],
            timeJoined: 1,
            verifiedEmails: [],
            phoneVerified: false,
            version: 1,
            phoneNumber: '+14155552671',
          },
        }),
      );
    } finally {
      doc.destroy();
    }
    const problems = (await tableProblems(api.tableName)).filter((p) => !before.has(`${p.kind} ${p.key}`));
    expect([...new Set(problems.map((p) => p.kind))].sort()).toEqual(
      [
        'claim-not-held',
        'guard-stale-link',
        'link-not-held',
        'login-method-differs',
        'user-missing-claim',
        'user-missing-guard',
        'user-missing-link',
        'user-not-one-user',
      ].sort(),
    );
    expect(problems.find((p) => p.kind === 'login-method-differs' && p.key === keys.userPartition(other))?.detail).toBe(
      `login method ${other} differs in listRecipeIds`,
    );
    expect(JSON.stringify(problems)).not.toContain('passwordless');
  });

  it("reports a permission of a removed role, and an external id guard missing, held by nobody, or not its login method's", async () => {
    const before = new Set((await tableProblems(api.tableName)).map((p) => `${p.kind} ${p.key}`));
    const al = linkingClient(api);
    const [mapped, loner] = [await al.emailPassword(), await al.emailPassword()];
    const externalUserId = `auth0|broken-${Date.now()}`;
    expect((await api.post('/recipe/userid/map', { superTokensUserId: mapped, externalUserId })).json).toEqual({ status: 'OK' });
    const role = `broken-role-${Date.now()}`;
    expect((await api.put('/recipe/role', { role, permissions: ['read'] })).json).toEqual({ status: 'OK', createdNewRole: true });
    expect((await tableProblems(api.tableName)).filter((p) => !before.has(`${p.kind} ${p.key}`))).toEqual([]);
    const doc = testDocClient();
    try {
      const T = api.tableName;
      await doc.send(new DeleteCommand({ TableName: T, Key: keys.externalIdGuard(externalUserId) }));
      await doc.send(new PutCommand({ TableName: T, Item: { ...keys.externalIdGuard('auth0|orphan'), type: 'guard', userId: 'no-such-login-method' } }));
      await doc.send(new PutCommand({ TableName: T, Item: { ...keys.externalIdGuard('auth0|not-mapped'), type: 'guard', userId: loner } }));
      await doc.send(new DeleteCommand({ TableName: T, Key: keys.role(role) }));
    } finally {
      doc.destroy();
    }
    const problems = (await tableProblems(api.tableName)).filter((p) => !before.has(`${p.kind} ${p.key}`));
    expect(problems.map((p) => [p.kind, p.key]).sort()).toEqual([
      ['guard-not-held', keys.externalIdGuard('auth0|not-mapped').pk],
      ['guard-without-user', keys.externalIdGuard('auth0|orphan').pk],
      ['permission-without-role', keys.role(role).pk],
      ['user-missing-guard', keys.externalIdGuard(externalUserId).pk],
    ]);
  });

  it('reports bulk rows it cannot read back, and counters that differ from the rows', async () => {
    const before = new Set((await tableProblems(api.tableName)).map((p) => `${p.kind} ${p.key}`));
    const staged = await api.post('/bulk-import/users', {
      users: [1, 2, 3].map((i) => ({ loginMethods: [{ recipeId: 'passwordless', email: `bulk-${i}@x.y` }] })),
    });
    const [a, b] = staged.json.users.map((u: { userId: string }) => u.userId);
    expect((await tableProblems(api.tableName)).filter((p) => !before.has(`${p.kind} ${p.key}`))).toEqual([]);
    const doc = testDocClient();
    try {
      // One row vanishes without its count; another no longer parses.
      await doc.send(new DeleteCommand({ TableName: api.tableName, Key: keys.bulkRow(parseInt(a.slice(0, 2), 16), a) }));
      await doc.send(
        new UpdateCommand({
          TableName: api.tableName,
          Key: keys.bulkRow(parseInt(b.slice(0, 2), 16), b),
          UpdateExpression: 'SET #u = :u',
          ExpressionAttributeNames: { '#u': 'user' },
          ExpressionAttributeValues: { ':u': '{' },
        }),
      );
    } finally {
      doc.destroy();
    }
    const problems = (await tableProblems(api.tableName)).filter((p) => !before.has(`${p.kind} ${p.key}`));
    expect(problems.map((p) => [p.kind, p.key])).toEqual([
      ['bulk-row-unreadable', `BULK#${parseInt(b.slice(0, 2), 16)}`],
      ['bulk-count-differs', 'NEW'],
    ]);
    expect(problems[1].detail).toBe('1 bulk rows are NEW, the counters say 3');
  });
});
