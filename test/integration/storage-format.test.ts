import { CURRENT_FORMAT } from '../../lib/storage/dynamo/user-items';
import { ITEM_TYPE } from '../../lib/storage/dynamo/stored-user-items';
import { startApi, tableProblems, UNCALLED_MIGRATION_SOURCE, type TestApi } from '../support/api';
import { uniqueEmail, uniquePhone } from '../support/flows';
import { BCRYPT, linkingClient } from '../support/linking';
import { scanTable } from '../support/table';

/**
 * What the table holds after users of every kind are made through the API: every item derived
 * from a user carries the current storage format (`fmt`) and the names of `lib/storage/README.md`
 * (one meaning per stored name), and the consistency checker finds nothing.
 */
let api: TestApi;
beforeAll(async () => {
  api = await startApi(UNCALLED_MIGRATION_SOURCE);
  expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: 'fmt-t1' })).json.status).toBe('OK');
});
afterAll(() => api.stop());

describe('the stored format of users of every kind', () => {
  it('gives every item derived from a user the current fmt and one name per meaning', async () => {
    const al = linkingClient(api);
    // On their own: email-password, third party, passwordless by email and by phone, mapped to an external id.
    const ep = await al.emailPassword();
    await al.thirdParty();
    await al.passwordless({ email: uniqueEmail('fmt-pl') });
    const byPhone = await al.passwordless({ phoneNumber: uniquePhone() });
    expect((await api.post('/recipe/userid/map', { superTokensUserId: byPhone, externalUserId: `ext-${byPhone}` })).json.status).toBe('OK');
    // A primary user with a linked third-party and a linked passwordless login method (email and phone).
    const primary = await al.emailPassword();
    const linkedTp = await al.thirdParty();
    const plEmail = uniqueEmail('fmt-linked');
    const linkedPl = await al.passwordless({ email: plEmail });
    expect((await api.put('/recipe/user', { userId: linkedPl, email: plEmail, phoneNumber: uniquePhone() }, { rid: 'passwordless' })).json.status).toBe('OK');
    await al.group(primary, linkedTp, linkedPl);
    // Waiting for password migration; and a bulk-imported user in two tenants.
    expect((await api.post('/recipe/user/passwordhash/import', { email: uniqueEmail('fmt-wait'), migratePasswordOnSignIn: true })).json.status).toBe('OK');
    const bulk = await api.post('/bulk-import/import', {
      externalUserId: `bulk-${Date.now()}`,
      loginMethods: [
        { recipeId: 'emailpassword', email: uniqueEmail('fmt-bulk'), passwordHash: BCRYPT.hash, hashingAlgorithm: 'BCRYPT', tenantIds: ['public', 'fmt-t1'] },
      ],
    });
    expect(bulk.status).toBe(200);

    const items = await scanTable(api.tableName);
    const derived = items.filter((i) => (Object.values(ITEM_TYPE) as unknown[]).includes(i.type));
    const types = new Set(derived.map((i) => i.type));
    // Users of every kind made every kind of item.
    expect([...types].sort()).toEqual(Object.values(ITEM_TYPE).sort());
    expect(derived.filter((i) => i.fmt !== CURRENT_FORMAT).map((i) => [i.pk, i.sk])).toEqual([]);
    // No old names: no `primaryInfo` items, no guard naming its primary user as `primaryUserId`,
    // no entry naming its owner as `userId`, no `loginMethod` copy.
    expect(items.filter((i) => i.type === 'primaryInfo')).toEqual([]);
    expect(derived.filter((i) => i.loginMethod !== undefined)).toEqual([]);
    const guards = derived.filter((i) => i.type === ITEM_TYPE.guard);
    expect(guards.filter((i) => i.primaryUserId !== undefined)).toEqual([]);
    expect(
      guards
        .filter((i) => i.linkedTo !== undefined)
        .map((i) => [i.userId, i.linkedTo])
        .sort(),
    ).toEqual(
      [
        [linkedTp, primary],
        [linkedPl, primary],
        [linkedPl, primary],
      ].sort(),
    );
    for (const type of [ITEM_TYPE.listEntry, ITEM_TYPE.emailEntry, ITEM_TYPE.phoneEntry]) {
      const entries = derived.filter((i) => i.type === type);
      expect([type, entries.length > 0, entries.every((i) => typeof i.ownerUserId === 'string' && i.userId === undefined)]).toEqual([type, true, true]);
    }
    const waiting = derived.filter((i) => i.type === ITEM_TYPE.passwordMigrationEntry);
    expect([waiting.length, waiting.every((i) => typeof i.recipeUserId === 'string' && i.userId === undefined)]).toEqual([1, true]);
    expect(derived.filter((i) => i.type === ITEM_TYPE.claim).every((i) => i.primaryUserId === primary)).toBe(true);
    // The snapshot of a login method on its own on its email guard; none on the primary user's.
    expect(guards.find((i) => i.userId === ep && String(i.pk).includes('#EP#EMAIL#'))?.snapshot).toMatchObject({ userId: ep, version: expect.any(Number) });
    expect(guards.find((i) => i.userId === primary && String(i.pk).includes('#EP#EMAIL#'))?.snapshot).toBeUndefined();
    expect(await tableProblems(api.tableName)).toEqual([]);
  });
});
