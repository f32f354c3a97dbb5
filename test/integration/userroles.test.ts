import { DeleteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoContext } from '../../lib/storage/dynamo';
import { DynamoRoleStore, userRoleItem } from '../../lib/storage/dynamo/dynamo-role-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import * as keys from '../../lib/storage/keys';
import { startApi, tableProblems, type TestApi } from '../support/api';
import { tenantPath } from '../support/flows';
import { linkingClient } from '../support/linking';
import { testDocClient, testDynamoClient } from '../support/table';
import { getUsersThatHaveRole } from '../../lib/recipes/userroles/get-users-that-have-role';
import { MAX_ANSWER_BODY_BYTES } from '../../lib/recipes/answer-size';
import { InvalidInputError } from '../../lib/recipes/errors';
import { createOrUpdateRole } from '../../lib/recipes/userroles/create-or-update-role';
import { MAX_PERMISSIONS_PER_ROLE } from '../../lib/recipes/userroles/limits';
import { randomUUID } from 'node:crypto';

/** Roles and permissions (SPEC §14): definitions app-wide, assignments per tenant, as the core. */
let api: TestApi;
let al: ReturnType<typeof linkingClient>;
const T1 = 'roles-one';
beforeAll(async () => {
  api = await startApi();
  al = linkingClient(api);
  await api.put('/recipe/multitenancy/tenant/v2', { tenantId: T1 });
});
afterAll(() => api.stop());

let n = 0;
const roleName = (label = 'role') => `${label}-${Date.now().toString(36)}-${n++}`;
const createRole = (role: string, permissions?: string[]) => api.put('/recipe/role', { role, ...(permissions ? { permissions } : {}) });
const permissions = async (role: string) => (await api.get(`/recipe/role/permissions?role=${encodeURIComponent(role)}`)).json;
const assign = (userId: string, role: string, tenantId?: string) => api.put(tenantPath(tenantId, '/recipe/user/role'), { userId, role });
const unassign = (userId: string, role: string, tenantId?: string) => api.post(tenantPath(tenantId, '/recipe/user/role/remove'), { userId, role });
const rolesOf = async (userId: string, tenantId?: string) =>
  (await api.get(`${tenantPath(tenantId, '/recipe/user/roles')}?userId=${encodeURIComponent(userId)}`)).json.roles as string[];
const usersOf = async (role: string, tenantId?: string) =>
  (await api.get(`${tenantPath(tenantId, '/recipe/role/users')}?role=${encodeURIComponent(role)}`)).json;

describe('role definitions', () => {
  it('creates a role (createdNewRole), adds permissions without taking any away, and lists it', async () => {
    const role = roleName();
    expect((await createRole(` ${role} `, ['read', ' write '])).json).toEqual({ status: 'OK', createdNewRole: true });
    expect((await createRole(role, ['write', 'delete'])).json).toEqual({ status: 'OK', createdNewRole: false });
    expect((await createRole(role)).json).toEqual({ status: 'OK', createdNewRole: false });
    expect((await permissions(role)).permissions.sort()).toEqual(['delete', 'read', 'write']);
    expect((await api.get('/recipe/roles')).json.roles).toContain(role);
    expect((await api.get('/recipe/permission/roles?permission=delete')).json.roles).toContain(role);
  });

  it('removes permissions: the given ones (unknown ones ignored), none for [], all when absent', async () => {
    const role = roleName();
    await createRole(role, ['a', 'b', 'c']);
    expect((await api.post('/recipe/role/permissions/remove', { role, permissions: ['a', 'zzz'] })).json).toEqual({ status: 'OK' });
    expect((await permissions(role)).permissions.sort()).toEqual(['b', 'c']);
    await api.post('/recipe/role/permissions/remove', { role, permissions: [] });
    expect((await permissions(role)).permissions.sort()).toEqual(['b', 'c']);
    await api.post('/recipe/role/permissions/remove', { role });
    expect(await permissions(role)).toEqual({ status: 'OK', permissions: [] });
    expect((await api.get(`/recipe/permission/roles?permission=b`)).json.roles).not.toContain(role);
  });

  it('answers UNKNOWN_ROLE_ERROR for an unknown role, and didRoleExist false when removing one', async () => {
    const role = roleName('unknown');
    expect(await permissions(role)).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect((await api.post('/recipe/role/permissions/remove', { role })).json).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect((await api.post('/recipe/role/remove', { role })).json).toEqual({ status: 'OK', didRoleExist: false });
    expect((await assign('u1', role)).json).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect((await unassign('u1', role)).json).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
    expect(await usersOf(role)).toEqual({ status: 'UNKNOWN_ROLE_ERROR' });
  });

  it('removes a role with its permissions and from every user in every tenant; created again, it is a new role', async () => {
    const role = roleName('gone');
    await createRole(role, ['p']);
    await assign('user-a', role);
    await assign('user-b', role, T1);
    expect((await api.post('/recipe/role/remove', { role })).json).toEqual({ status: 'OK', didRoleExist: true });
    expect((await api.get('/recipe/roles')).json.roles).not.toContain(role);
    expect([await rolesOf('user-a'), await rolesOf('user-b', T1)]).toEqual([[], []]);
    await createRole(role);
    expect([await rolesOf('user-a'), await permissions(role)]).toEqual([[], { status: 'OK', permissions: [] }]);
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('holds at most 2,000 permissions a role (400 beyond, nothing written), and its removal takes them all', async () => {
    const role = roleName('wide');
    const batch = (k: number) => Array.from({ length: 500 }, (_, i) => `perm-${k}-${i}`);
    for (let k = 0; k < 4; k++) expect((await createRole(role, batch(k))).json.status).toBe('OK');
    // Permissions it holds already count once: adding them again is fine at the bound.
    expect((await createRole(role, [...batch(0).slice(0, 100), ...batch(3).slice(0, 100)])).status).toBe(200);
    const over = await createRole(role, ['perm-0-0', 'one-more']);
    expect([over.status, over.text]).toEqual([400, "Field name 'permissions' would give the role 2001 permissions: the maximum is 2000"]);
    const held = (await permissions(role)).permissions as string[];
    expect([held.length, held.includes('one-more')]).toEqual([2000, false]);
    expect((await api.post('/recipe/role/remove', { role })).json).toEqual({ status: 'OK', didRoleExist: true });
    await createRole(role);
    expect(await permissions(role)).toEqual({ status: 'OK', permissions: [] });
    expect((await api.get('/recipe/permission/roles?permission=perm-3-499')).json.roles).not.toContain(role);
  });

  it('holds at most MAX_ROLES roles in the app (400 for a new one beyond, nothing written; an existing one is still updated)', async () => {
    const client = testDynamoClient();
    try {
      const roles = new DynamoRoleStore(createDynamoContext(api.tableName, client));
      const existing = roleName('kept');
      await createRole(existing);
      // The recipe on the real store, its bound at the roles there now (the suite's others too).
      const count = await roles.countRoles();
      expect(count).toBe(((await api.get('/recipe/roles')).json.roles as string[]).length);
      const deps = { roles, random: { uuid: () => randomUUID() } } as unknown as Parameters<typeof createOrUpdateRole>[0];
      const bounds = { roles: count, permissions: MAX_PERMISSIONS_PER_ROLE };
      const late = roleName('late');
      await expect(createOrUpdateRole(deps, late, [], bounds)).rejects.toThrow(
        new InvalidInputError(`Field name 'role' names a new role, and the app already has ${count} roles: the maximum`),
      );
      expect(await roles.getRole(late)).toBeUndefined();
      expect(await createOrUpdateRole(deps, existing, ['still'], bounds)).toEqual({ status: 'OK', createdNewRole: false });
      expect(await createOrUpdateRole(deps, late, [], { ...bounds, roles: count + 1 })).toEqual({ status: 'OK', createdNewRole: true });
      expect(await roles.countRoles()).toBe(count + 1);
    } finally {
      client.destroy();
    }
  });
});

describe('roles of users, per tenant', () => {
  it('assigns (didUserAlreadyHaveRole), reads and takes a role per tenant; the user id is taken as given', async () => {
    const [admin, viewer] = [roleName('admin'), roleName('viewer')];
    await createRole(admin);
    await createRole(viewer);
    const userId = 'not-even-a-user';
    expect((await assign(userId, admin)).json).toEqual({ status: 'OK', didUserAlreadyHaveRole: false });
    expect((await assign(userId, admin)).json).toEqual({ status: 'OK', didUserAlreadyHaveRole: true });
    await assign(userId, viewer);
    await assign(userId, viewer, T1);
    expect((await rolesOf(userId)).sort()).toEqual([admin, viewer].sort());
    expect(await rolesOf(userId, T1)).toEqual([viewer]);
    expect((await usersOf(viewer)).users).toEqual([userId]);
    expect((await usersOf(viewer, T1)).users).toEqual([userId]);
    expect((await unassign(userId, viewer)).json).toEqual({ status: 'OK', didUserHaveRole: true });
    expect((await unassign(userId, viewer)).json).toEqual({ status: 'OK', didUserHaveRole: false });
    expect(await rolesOf(userId)).toEqual([admin]);
    expect(await rolesOf(userId, T1)).toEqual([viewer]);
    expect((await usersOf(viewer)).users).toEqual([]);
  });

  it('lists the users of a role across its index shards', async () => {
    const role = roleName('many');
    await createRole(role);
    const users = Array.from({ length: 40 }, (_, i) => `shard-user-${i}`);
    await Promise.all(users.map((u) => assign(u, role)));
    expect((await usersOf(role)).users.sort()).toEqual([...users].sort());
  });

  it('stops reading the users of a role past what one answer carries, and answers 400 naming the field', async () => {
    const role = roleName('crowd');
    await createRole(role);
    const users = Array.from({ length: 30 }, (_, i) => `crowd-user-${i}`);
    await Promise.all(users.map((u) => assign(u, role)));
    const bytes = users.reduce((sum, u) => sum + Buffer.byteLength(u) + 5, 0);
    const client = testDynamoClient();
    try {
      const ctx = createDynamoContext(api.tableName, client);
      const roles = new DynamoRoleStore(ctx);
      const current = (await roles.getRole(role))!;
      expect((await roles.usersWithRole('public', current, bytes))?.sort()).toEqual([...users].sort());
      expect(await roles.usersWithRole('public', current, bytes - 1)).toBeUndefined();
      // The recipe with the real store, its bound shrunk to these ids less one byte.
      const small = Object.assign(Object.create(roles) as DynamoRoleStore, {
        usersWithRole: (t: string, r: typeof current) => roles.usersWithRole(t, r, bytes - 1),
      });
      await expect(getUsersThatHaveRole({ roles: small }, 'public', role)).rejects.toThrow(
        new InvalidInputError(
          `Field name 'role' names a role held by more users in this tenant than one answer can carry (${MAX_ANSWER_BODY_BYTES} bytes of user ids, about 120,000 users)`,
        ),
      );
      expect(await getUsersThatHaveRole({ roles }, 'public', role)).toEqual({ status: 'OK', users: expect.arrayContaining(users) });
    } finally {
      client.destroy();
    }
  });

  it('makes one assignment of concurrent ones, and none survives a role removed meanwhile', async () => {
    const role = roleName('race');
    await createRole(role);
    const answers = (await Promise.all(Array.from({ length: 5 }, () => assign('racer', role)))).map((r) => r.json.didUserAlreadyHaveRole);
    expect(answers.filter((a) => a === false)).toHaveLength(1);
    const doomed = roleName('doomed');
    await createRole(doomed);
    await Promise.all([api.post('/recipe/role/remove', { role: doomed }), ...Array.from({ length: 5 }, (_, i) => assign(`late-${i}`, doomed))]);
    await createRole(doomed);
    for (let i = 0; i < 5; i++) expect(await rolesOf(`late-${i}`)).toEqual([]);
  });

  it('holds at most 50 roles per user id (400 beyond)', async () => {
    const userId = 'collector';
    const roles = Array.from({ length: 51 }, (_, i) => roleName(`r${i}`));
    for (const role of roles) await createRole(role);
    for (const role of roles.slice(0, 50)) expect((await assign(userId, role)).status).toBe(200);
    const res = await assign(userId, roles[50]);
    expect([res.status, res.text]).toEqual([400, "Field name 'userId' already holds 50 roles in all tenants together: the maximum"]);
  });

  it('goes with the user: removing it removes its roles, also those kept under its external id', async () => {
    const role = roleName('member');
    await createRole(role);
    const id = await al.emailPassword();
    await assign(id, role);
    await assign(id, role, T1);
    await al.remove(id);
    expect([await rolesOf(id), await rolesOf(id, T1)]).toEqual([[], []]);

    const mapped = await al.emailPassword();
    const externalUserId = `auth0|roles-${Date.now()}`;
    await api.post('/recipe/userid/map', { superTokensUserId: mapped, externalUserId });
    await assign(externalUserId, role);
    const refused = await api.post('/recipe/userid/map/remove', { userId: externalUserId });
    expect([refused.status, refused.text]).toEqual([400, 'UserId is already in use in UserRoles recipe']);
    await al.remove(externalUserId);
    expect(await rolesOf(externalUserId)).toEqual([]);
    expect(await tableProblems(api.tableName)).toEqual([]);
  });

  it('refuses to map a user id that holds roles, unless forced', async () => {
    const role = roleName('premap');
    await createRole(role);
    const id = await al.emailPassword();
    await assign(id, role);
    const externalUserId = `ext-${Date.now()}`;
    const res = await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId });
    expect([res.status, res.text]).toEqual([400, 'UserId is already in use in UserRoles recipe']);
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId, force: true })).json).toEqual({ status: 'OK' });
    expect((await api.get(`/recipe/userid/map?userId=${id}`)).json).toEqual({ status: 'OK', superTokensUserId: id, externalUserId });
    // As the core, forcing re-keys nothing: the roles stay under the SuperTokens id.
    expect([await rolesOf(id), await rolesOf(externalUserId)]).toEqual([[role], []]);
  });

  it("counts only assignments of roles that exist when mapping: a removed role's leftover does not block it", async () => {
    const id = await al.emailPassword();
    const leftover = userRoleItem('public', id, { role: roleName('removed'), roleUid: 'an-old-incarnation' });
    const doc = testDocClient();
    try {
      await doc.send(new PutCommand({ TableName: api.tableName, Item: leftover }));
      expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: `ext-left-${Date.now()}` })).json).toEqual({ status: 'OK' });
    } finally {
      await doc.send(new DeleteCommand({ TableName: api.tableName, Key: { pk: leftover.pk, sk: leftover.sk } }));
      doc.destroy();
    }
  });

  it('fails a user removal that read the roles before an assignment landed: the assignment never outlives the user', async () => {
    const role = roleName('late');
    await createRole(role);
    const id = await al.emailPassword();
    const client = testDynamoClient();
    try {
      const ctx = createDynamoContext(api.tableName, client);
      const roles = new DynamoRoleStore(ctx);
      const current = await roles.getRole(role);
      let assigned = false;
      // A document client that assigns the role right after the removal has read the user's roles.
      const send = (async (command: unknown) => {
        const out = await ctx.doc.send(command as QueryCommand);
        const pk = command instanceof QueryCommand ? String(command.input.ExpressionAttributeValues?.[':pk']) : '';
        if (!assigned && pk === keys.userRolesPartition(id)) {
          assigned = true;
          expect(await roles.assignRole('public', id, current!)).toBe('OK');
        }
        return out;
      }) as DynamoDBDocumentClient['send'];
      const users = new DynamoUserStore({ ...ctx, doc: { send } as DynamoDBDocumentClient });
      expect(await users.writeUsers([(await users.getUser(id))!], [])).toEqual({ status: 'STALE' });
      expect([assigned, (await al.user(id))?.id, await rolesOf(id)]).toEqual([true, id, [role]]);
      // Read again, the removal takes the late assignment with the user.
      expect(await users.writeUsers([(await users.getUser(id))!], [])).toEqual({ status: 'OK' });
      expect([await al.user(id), await rolesOf(id)]).toEqual([undefined, []]);
    } finally {
      client.destroy();
    }
    expect(await tableProblems(api.tableName)).toEqual([]);
  });
});

describe('bad input and scopes', () => {
  it.each([
    ['PUT', '/recipe/role', "Field name 'role' cannot be an empty String", { role: '  ' }],
    ['PUT', '/recipe/role', "Field name 'role' is invalid in JSON input", {}],
    ['PUT', '/recipe/role', "Field name 'permissions' is invalid in JSON input", { role: 'r', permissions: 'read' }],
    ['PUT', '/recipe/role', "Field name 'permissions' is invalid in JSON input", { role: 'r', permissions: ['ok', 5] }],
    ['PUT', '/recipe/role', "Field name 'permissions' cannot contain an empty string", { role: 'r', permissions: ['ok', ' '] }],
    ['PUT', '/recipe/role', "Field name 'role' is too long: the maximum is 255 characters", { role: 'r'.repeat(256) }],
    ['PUT', '/recipe/role', "Field name 'permissions' holds a permission longer than 255 characters", { role: 'r', permissions: ['p'.repeat(256)] }],
    [
      'PUT',
      '/recipe/role',
      "Field name 'permissions' holds 501 permissions: the maximum is 500",
      { role: 'r', permissions: Array.from({ length: 501 }, (_, i) => `p${i}`) },
    ],
    ['PUT', '/recipe/role', "Field name 'permissions' is not valid Unicode: it holds a lone surrogate", { role: 'r', permissions: ['x\ud800'] }],
    ['PUT', '/recipe/user/role', "Field name 'userId' is invalid in JSON input", { role: 'r' }],
    ['POST', '/recipe/role/remove', "Field name 'role' cannot be an empty String", { role: '' }],
    ['POST', '/recipe/role/remove', "Field name 'role' is invalid in JSON input", { role: 5 }],
    ['POST', '/recipe/role/remove', "Field name 'role' is too long: the maximum is 255 characters", { role: 'r'.repeat(256) }],
    ['POST', '/recipe/role/permissions/remove', "Field name 'role' is invalid in JSON input", { permissions: ['p'] }],
    ['POST', '/recipe/role/permissions/remove', "Field name 'role' cannot be an empty String", { role: ' ' }],
    ['POST', '/recipe/role/permissions/remove', "Field name 'permissions' is invalid in JSON input", { role: 'r', permissions: 'p' }],
    ['POST', '/recipe/role/permissions/remove', "Field name 'permissions' cannot contain an empty string", { role: 'r', permissions: ['p', ''] }],
    [
      'POST',
      '/recipe/role/permissions/remove',
      "Field name 'permissions' holds 501 permissions: the maximum is 500",
      { role: 'r', permissions: Array.from({ length: 501 }, (_, i) => `p${i}`) },
    ],
    [
      'POST',
      '/recipe/role/permissions/remove',
      "Field name 'permissions' holds a permission longer than 255 characters",
      { role: 'r', permissions: ['p'.repeat(256)] },
    ],
    ['PUT', '/recipe/user/role', "Field name 'role' cannot be an empty String", { userId: 'u', role: ' ' }],
    ['PUT', '/recipe/user/role', "Field name 'role' is invalid in JSON input", { userId: 'u' }],
    ['POST', '/recipe/user/role/remove', "Field name 'role' cannot be an empty String", { userId: 'u', role: '' }],
    ['POST', '/recipe/user/role/remove', "Field name 'role' is invalid in JSON input", { userId: 'u' }],
    ['POST', '/recipe/user/role/remove', "Field name 'userId' is invalid in JSON input", { role: 'r' }],
  ])('%s %s answers 400: %s', async (method, path, text, body) => {
    const res = await api.request(method, path, { body });
    expect([res.status, res.text]).toEqual([400, text]);
  });

  it('answers 400 for missing or empty query parameters', async () => {
    for (const [path, text] of [
      ['/recipe/role/permissions', "Field name 'role' is missing in GET request"],
      ['/recipe/role/permissions?role=%20', "Field name 'role' cannot be an empty String"],
      ['/recipe/permission/roles', "Field name 'permission' is missing in GET request"],
      ['/recipe/user/roles', "Field name 'userId' is missing in GET request"],
      ['/recipe/role/users', "Field name 'role' is missing in GET request"],
      ['/recipe/permission/roles?permission=%20', "Field name 'permission' cannot be an empty String"],
      ['/recipe/role/users?role=', "Field name 'role' cannot be an empty String"],
    ]) {
      const res = await api.get(path);
      expect([res.status, res.text]).toEqual([400, text]);
    }
  });

  it('keeps role definitions app-wide (403 under a tenant) and assignments in their tenant', async () => {
    for (const res of [
      await api.put(`/${T1}/recipe/role`, { role: 'x' }),
      await api.get(`/${T1}/recipe/roles`),
      await api.post(`/${T1}/recipe/role/remove`, { role: 'x' }),
      await api.get(`/${T1}/recipe/role/permissions?role=x`),
      await api.post(`/${T1}/recipe/role/permissions/remove`, { role: 'x' }),
      await api.get(`/${T1}/recipe/permission/roles?permission=x`),
    ]) {
      expect([res.status, res.text]).toEqual([403, 'Only public tenantId can call this app specific API']);
    }
  });

  it.each([
    ['POST', '/recipe/user/email/verify/token', { userId: 'u', email: 'a@b.c' }],
    ['POST', '/recipe/user/email/verify', { method: 'token', token: 't' }],
    ['POST', '/recipe/user/email/verify/token/remove', { userId: 'u', email: 'a@b.c' }],
    ['PUT', '/recipe/user/role', { userId: 'u', role: 'r' }],
    ['POST', '/recipe/user/role/remove', { userId: 'u', role: 'r' }],
    ['GET', '/recipe/user/roles?userId=u', undefined],
    ['GET', '/recipe/role/users?role=r', undefined],
  ])('answers 400 for a tenant that does not exist: %s /no-such-tenant%s', async (method, path, body) => {
    const res = await api.request(method, `/no-such-tenant${path}`, body === undefined ? {} : { body });
    expect([res.status, res.text]).toEqual([400, 'AppId or tenantId not found']);
  });

  it('lets the checker find an assignment of a removed role', async () => {
    const doc = testDocClient();
    try {
      await doc.send(new PutCommand({ TableName: api.tableName, Item: userRoleItem('public', 'ghost-user', { role: 'never-created', roleUid: 'x' }) }));
    } finally {
      doc.destroy();
    }
    expect((await tableProblems(api.tableName)).map((p) => p.kind)).toEqual(['assignment-of-removed-role']);
    // It never counts for the user.
    expect(await rolesOf('ghost-user')).toEqual([]);
    await api.put('/recipe/role', { role: 'never-created' });
    expect(await rolesOf('ghost-user')).toEqual([]);
    const doc2 = testDocClient();
    try {
      await doc2.send(new DeleteCommand({ TableName: api.tableName, Key: keys.userRole('ghost-user', 'public', 'never-created') }));
    } finally {
      doc2.destroy();
    }
  });
});
