import { randomBytes, randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../local/create-table';
import { standaloneUser } from '../../lib/storage/auth-user';
import { checkConsistency } from '../../lib/storage/dynamo/consistency';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';
import { createDynamoContext, type DynamoContext } from '../../lib/storage/dynamo/transact';
import * as keys from '../../lib/storage/keys';
import type { AuthUser, UserRecord, WebauthnCredentialRecord, WebauthnOptionsRecord } from '../../lib/storage/model';
import { scanTable, testDynamoClient } from '../support/table';

/**
 * The WebAuthn store on DynamoDB Local (SPEC §21): a passkey is a guard derived from its login
 * method plus its key beside it; they come and go together, whatever writes the user.
 */
const tableName = `test-webauthn-${randomBytes(4).toString('hex')}`;
let client: DynamoDBClient;
let ctx: DynamoContext;
let store: DynamoWebauthnStore;
let users: DynamoUserStore;
beforeAll(async () => {
  client = testDynamoClient();
  await ensureTable(client, tableName, { stream: false });
  ctx = createDynamoContext(tableName, client);
  store = new DynamoWebauthnStore(ctx);
  users = new DynamoUserStore(ctx);
});
afterAll(async () => {
  try {
    expect(await checkConsistency(ctx)).toEqual([]);
  } finally {
    client.destroy();
  }
});

const credentialId = () => randomBytes(16).toString('base64url');
const lmWith = (ids: string[], email = `${randomUUID()}@example.com`): UserRecord => ({
  userId: randomUUID(),
  recipeId: 'webauthn',
  tenantIds: ['public'],
  timeJoined: 1000,
  email,
  verifiedEmails: [],
  phoneVerified: false,
  webauthnCredentialIds: ids,
  version: 1,
});
const key = (id: string, recipeUserId: string, over: Partial<WebauthnCredentialRecord> = {}): WebauthnCredentialRecord => ({
  credentialId: id,
  recipeUserId,
  publicKey: 'pQECAyYgASFYIA',
  counter: 0,
  rpId: 'example.com',
  transports: ['internal'],
  aaguid: '00000000-0000-0000-0000-000000000000',
  createdAt: 1000,
  updatedAt: 1000,
  ...over,
});

async function signedUp(): Promise<{ user: AuthUser; id: string }> {
  const id = credentialId();
  const lm = lmWith([id]);
  const user = standaloneUser(lm);
  expect(await store.writeUsersWithCredential([], [user], key(id, lm.userId))).toEqual({ status: 'OK' });
  return { user, id };
}

describe('passkeys beside their login method', () => {
  it('stores the guard (with a snapshot) and the key together, found by one Query', async () => {
    const { user, id } = await signedUp();
    const found = await store.getCredential(id);
    expect(found?.credential).toEqual(key(id, user.id));
    expect(found?.login).toEqual({ loginMethod: user.loginMethods[0] });
    expect(await store.getCredential(credentialId())).toBeUndefined();
    expect(await store.getCredentials([credentialId(), id])).toEqual([key(id, user.id)]);
  });

  it('refuses a credential id held by another login method, and an email held by another webauthn login method in the tenant', async () => {
    const { user, id } = await signedUp();
    const other = lmWith([id]);
    expect(await store.writeUsersWithCredential([], [standaloneUser(other)], key(id, other.userId))).toEqual({
      status: 'IDENTITY_TAKEN',
      identity: 'webauthnCredential',
    });
    const sameEmail = lmWith([credentialId()], user.loginMethods[0].email);
    const id2 = sameEmail.webauthnCredentialIds?.[0] as string;
    expect(await store.writeUsersWithCredential([], [standaloneUser(sameEmail)], key(id2, sameEmail.userId))).toEqual({
      status: 'IDENTITY_TAKEN',
      identity: 'email',
    });
    expect(await store.getCredential(id2)).toBeUndefined();
  });

  it('deletes the key with its guard when the credential leaves the login method, and every key when the user is removed', async () => {
    const { user, id } = await signedUp();
    const second = credentialId();
    const lm = user.loginMethods[0];
    const withTwo = standaloneUser({ ...lm, webauthnCredentialIds: [id, second], version: 2 });
    expect(await store.writeUsersWithCredential([user], [withTwo], key(second, lm.userId))).toEqual({ status: 'OK' });
    const readBack = await users.getUser(lm.userId);
    expect(readBack?.loginMethods[0].webauthnCredentialIds).toEqual([id, second]);
    const withOne = standaloneUser({ ...(readBack as AuthUser).loginMethods[0], webauthnCredentialIds: [second] });
    expect(await users.writeUsers([readBack as AuthUser], [withOne])).toEqual({ status: 'OK' });
    expect(await store.getCredential(id)).toBeUndefined();
    expect(await store.getCredential(second)).toBeDefined();
    expect(await users.writeUsers([(await users.getUser(lm.userId)) as AuthUser], [])).toEqual({ status: 'OK' });
    const left = (await scanTable(tableName)).filter(
      (i) => String(i.pk).startsWith('WACRED#') && [id, second].some((c) => i.pk === keys.webauthnCredential(c).pk),
    );
    expect(left).toEqual([]);
  });

  it('keeps the key when a link rewrites the guard, whose snapshot then names the primary user', async () => {
    const { user, id } = await signedUp();
    const lm = user.loginMethods[0];
    const primary: AuthUser = { id: lm.userId, isPrimary: true, loginMethods: [lm] };
    expect(await users.writeUsers([user], [primary])).toEqual({ status: 'OK' });
    const found = await store.getCredential(id);
    expect(found?.credential.publicKey).toBe('pQECAyYgASFYIA');
    expect(found?.login).toEqual({ loginMethod: { ...lm, version: 2 }, primaryUserId: lm.userId });
  });
});

describe('options and the sign-in write', () => {
  const options = (over: Partial<WebauthnOptionsRecord> = {}): WebauthnOptionsRecord => ({
    id: randomUUID(),
    tenantId: 'public',
    challenge: randomBytes(32).toString('base64url'),
    origin: 'https://example.com',
    rpId: 'example.com',
    rpName: 'Example',
    timeout: 60000,
    userVerification: 'preferred',
    userPresence: false,
    createdAt: 1000,
    expiresAt: 61000,
    ...over,
  });

  it('stores options once, reads them back, and removes them only in their tenant', async () => {
    const o = options({ email: 'a@b.c' });
    expect(await store.putOptions(o)).toBe(true);
    expect(await store.putOptions(o)).toBe(false);
    expect(await store.getOptions(o.id)).toEqual(o);
    const [item] = (await scanTable(tableName)).filter((i) => i.pk === keys.webauthnOptions(o.id).pk);
    expect(item.ttl).toBe(61);
    expect(await store.removeOptions(o.id, 't1')).toBe(false);
    expect(await store.removeOptions(o.id, 'public')).toBe(true);
    expect(await store.removeOptions(o.id, 'public')).toBe(false);
    expect(await store.getOptions(o.id)).toBeUndefined();
  });

  it('reads what a sign-in needs, options and passkey, in one BatchGetItem, each missing one left out', async () => {
    const { user, id } = await signedUp();
    const o = options();
    await store.putOptions(o);
    expect(await store.getSignInState(o.id, id)).toEqual({
      options: o,
      found: { credential: key(id, user.id), login: { loginMethod: user.loginMethods[0] } },
    });
    expect(await store.getSignInState(o.id, undefined)).toEqual({ options: o });
    expect(await store.getSignInState(randomUUID(), id)).toEqual({ found: await store.getCredential(id) });
    expect(await store.getSignInState(randomUUID(), credentialId())).toEqual({});
  });

  it('lets one of two racing first uses through, then exactly one repeat of its digest', async () => {
    const { user, id } = await signedUp();
    const o = options();
    await store.putOptions(o);
    const use = { optionsId: o.id, digest: 'd1', credentialId: id, recipeUserId: user.id, counterRead: 0, counter: 1, at: 2000 };
    const results = await Promise.all([store.recordSignIn(use), store.recordSignIn({ ...use, digest: 'd2' })]);
    expect(results.sort()).toEqual(['OK', 'STALE']);
    const spent = await store.getOptions(o.id);
    expect(spent?.uses).toBe(1);
    expect((await store.getCredential(id))?.credential).toEqual(expect.objectContaining({ counter: 1, updatedAt: 2000 }));
    expect(await store.recordRepeat(o.id, spent?.spentBy === 'd1' ? 'd2' : 'd1')).toBe('STALE');
    const repeats = await Promise.all([store.recordRepeat(o.id, spent?.spentBy as string), store.recordRepeat(o.id, spent?.spentBy as string)]);
    expect(repeats.sort()).toEqual(['OK', 'STALE']);
    expect(await store.recordRepeat(o.id, spent?.spentBy as string)).toBe('STALE');
  });

  it('refuses a counter write at a counter read before another sign-in moved it', async () => {
    const { user, id } = await signedUp();
    const [a, b] = [options(), options()];
    await Promise.all([store.putOptions(a), store.putOptions(b)]);
    const use = { digest: 'd', credentialId: id, recipeUserId: user.id, counterRead: 0, at: 2000 };
    expect(await store.recordSignIn({ ...use, optionsId: a.id, counter: 5 })).toBe('OK');
    expect(await store.recordSignIn({ ...use, optionsId: b.id, counter: 6 })).toBe('STALE');
    // The failed transaction spent nothing: the options are as they were.
    expect((await store.getOptions(b.id))?.spentBy).toBeUndefined();
  });
});
