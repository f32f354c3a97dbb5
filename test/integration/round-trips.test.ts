import bcrypt from 'bcryptjs';
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { startCountingProxy, type CountingProxy } from '../support/dynamo-proxy';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import supertokens from 'supertokens-node';
import { errorHandler, middleware } from 'supertokens-node/framework/express';
import Multitenancy from 'supertokens-node/recipe/multitenancy';
import Session from 'supertokens-node/recipe/session';
import ThirdParty from 'supertokens-node/recipe/thirdparty';
import { startApi, tableProblems, TEST_API_KEY, type TestApi } from '../support/api';
import { startOAuthStandIn, type OAuthStandIn } from '../support/oauth-stand-in';
import { GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { sweepFormats } from '../../lib/storage/dynamo/format-sweep';
import * as keys from '../../lib/storage/keys';
import { CURRENT_FORMAT } from '../../lib/storage/dynamo/user-items';
import { consumeLink, createCode, passwordlessSignIn, uniqueEmail, uniquePhone } from '../support/flows';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { testDocClient, testDynamoClient } from '../support/table';
import type { Deps } from '../../lib/recipes/deps';
import { createOrUpdateTenant, getTenantConfig, removeTenant } from '../../lib/recipes/multitenancy/tenants';
import { TENANT_CACHE_MAX, TENANT_CACHE_MAX_BYTES, TENANT_CACHE_MS } from '../../lib/recipes/multitenancy/tenant-cache';
import { createOrUpdateThirdPartyConfig } from '../../lib/recipes/multitenancy/create-or-update-third-party-config';
import { removeThirdPartyConfig } from '../../lib/recipes/multitenancy/remove-third-party-config';
import type { ThirdPartyProvider } from '../../lib/storage/model';
import { DynamoTenantConfigStore } from '../../lib/storage/dynamo/dynamo-tenant-config-store';
import { DynamoTenantStore } from '../../lib/storage/dynamo/dynamo-tenant-store';
import { createDynamoContext } from '../../lib/storage/dynamo/transact';
import { pastTenantCache } from '../support/tenant-cache';
import { totpCode, wrongCode } from '../support/totp';
import { SoftAuthenticator, webauthnClient } from '../support/webauthn';

/**
 * DynamoDB calls per operation, counted on the wire by a proxy between the server and DynamoDB
 * Local (issue #15: in AWS every call is a network round trip). Counts are stable where times are
 * not, so they are tests; `lib/storage/README.md` has the table. A change that adds a call fails
 * here and must say why there.
 */
const OLD_ISSUER = 'https://old.example.test';
const OLD_SECRET = 'the old provider secret, 32 characters or more';
let proxy: CountingProxy;
let api: TestApi;
beforeAll(async () => {
  proxy = await startCountingProxy(process.env.TEST_DYNAMODB_ENDPOINT!);
  api = await startApi({
    AWS_ENDPOINT_URL_DYNAMODB: proxy.endpoint,
    ARGON2_MEMORY_KIB: '1024',
    ARGON2_ITERATIONS: '1',
    // Passkeys of this RP id may be imported (SPEC §21).
    WEBAUTHN_RP_ID: 'example.com',
    // An old provider signing with an inline secret: the exchange fetches no key.
    SESSION_EXCHANGE_ISSUERS: JSON.stringify([{ id: 'old', preset: 'oidc', issuer: OLD_ISSUER, audiences: ['app'], secret: OLD_SECRET }]),
  });
});
afterAll(async () => {
  try {
    await api.stop();
  } finally {
    await proxy.close();
  }
});

/** An OIDC provider of a tenant (SPEC §22), its secret named after it. */
const oidcProvider = (id: string): ThirdPartyProvider => ({
  thirdPartyId: id,
  clients: [{ clientId: `${id}-client`, clientSecret: `${id}-secret` }],
  oidcDiscoveryEndpoint: `https://${id}.example.test`,
  userInfoMap: { fromIdTokenPayload: {}, fromUserInfoAPI: {} },
});

/** The calls one request makes, by operation. */
async function callsOf(request: () => Promise<unknown>): Promise<Record<string, number>> {
  proxy.reset();
  await request();
  return Object.fromEntries([...proxy.counts].sort());
}

describe('DynamoDB calls per operation', () => {
  it('passwordless: create-code 1, resend 3, consume 3 for a new or existing email user', async () => {
    const email = uniqueEmail('rt');
    let first: Awaited<ReturnType<typeof createCode>> | undefined;
    expect(await callsOf(async () => (first = await createCode(api, { email })))).toEqual({ TransactWriteItems: 1 });
    // A resend: the device with its codes, the identity's guard (a consume may have ended the device), the transaction.
    expect(await callsOf(() => api.post('/recipe/signinup/code', { deviceId: first!.deviceId }))).toEqual({ GetItem: 1, Query: 1, TransactWriteItems: 1 });
    // The device with its codes (one Query), the email's login methods in the tenant (one Query of
    // gsi2: none), the transaction: the identity's other devices are ended by the transaction's
    // mark on the login method, not read and deleted.
    expect(await callsOf(() => consumeLink(api, first!))).toEqual({ Query: 2, TransactWriteItems: 1 });
    const again = await createCode(api, { email });
    const pending = await createCode(api, { email });
    // The same for an existing user: its login method, on its own, is whole in its index entry.
    expect(await callsOf(() => consumeLink(api, again))).toEqual({ Query: 2, TransactWriteItems: 1 });
    // A device the consume ended: its device and the login method; nothing written.
    expect(await callsOf(async () => expect((await consumeLink(api, pending)).json).toEqual({ status: 'RESTART_FLOW_ERROR' }))).toEqual({ Query: 2 });
  });

  it('passwordless codes: listing 1 call with no device, 2 round trips with some; removals 2 or 3 calls', async () => {
    const email = uniqueEmail('rt-codes');
    const path = '/recipe/signinup/codes';
    // No device: the identity's devices in gsi2 (one Query), nothing more.
    expect(await callsOf(() => api.get(`${path}?email=${encodeURIComponent(email)}`))).toEqual({ Query: 1 });
    const first = await createCode(api, { email });
    const resent = (await api.post('/recipe/signinup/code', { deviceId: first.deviceId })).json as typeof first;
    const second = await createCode(api, { email });
    // gsi2, then each device with its codes beside the identity's login method in gsi2 (whether a
    // consume ended a device): 2 + one per device, in 2 round trips.
    let res: { json: { devices: unknown[] } } | undefined;
    expect(await callsOf(async () => (res = await api.get(`${path}?email=${encodeURIComponent(email)}`)))).toEqual({ Query: 4 });
    expect(res!.json.devices).toHaveLength(2);
    // One device (what the SDK reads before every resend and consume): the device, then the login method.
    expect(await callsOf(() => api.get(`${path}?preAuthSessionId=${first.preAuthSessionId}`))).toEqual({ Query: 2 });
    expect(await callsOf(() => api.get(`${path}?deviceId=${encodeURIComponent(first.deviceId)}`))).toEqual({ Query: 2 });
    // By code id: its code id item, the device with its codes, the transaction (the code, its id
    // item and the device's counter; its last code takes the device too).
    const remove = '/recipe/signinup/code/remove';
    expect(await callsOf(() => api.post(remove, { codeId: resent.codeId }))).toEqual({ GetItem: 1, Query: 1, TransactWriteItems: 1 });
    expect(await callsOf(() => api.post(remove, { codeId: first.codeId }))).toEqual({ GetItem: 1, Query: 1, TransactWriteItems: 1 });
    expect(await callsOf(() => api.post(remove, { codeId: first.codeId }))).toEqual({ GetItem: 1 });
    // A device: the device with its codes, the transaction.
    expect(await callsOf(() => api.post(remove, { preAuthSessionId: second.preAuthSessionId }))).toEqual({ Query: 1, TransactWriteItems: 1 });
    // Every device of an email: gsi2, then each device and its transaction.
    await Promise.all([createCode(api, { email }), createCode(api, { email })]);
    expect(await callsOf(() => api.post('/recipe/signinup/codes/remove', { email }))).toEqual({ Query: 3, TransactWriteItems: 2 });
    expect(await callsOf(() => api.get(`${path}?email=${encodeURIComponent(email)}`))).toEqual({ Query: 1 });
  });

  it("the tenant configuration the SDK reads before every sign-in: 1 Query (the tenant with its providers) on a function's first read of a tenant, public included", async () => {
    const path = '/recipe/multitenancy/tenant/v2';
    expect((await api.put(path, { tenantId: 'rt-cfg', firstFactors: ['emailpassword'] })).json.status).toBe('OK');
    // The GET's function reads each tenant once (its cache is its own: the PUT ran in another function).
    let res: { json: Record<string, unknown> } | undefined;
    expect(await callsOf(async () => (res = await api.get(path)))).toEqual({ Query: 1 });
    expect(res!.json).toEqual({ status: 'OK', tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {} });
    expect(await callsOf(async () => (res = await api.get(`/rt-cfg${path}`)))).toEqual({ Query: 1 });
    expect(res!.json.firstFactors).toEqual(['emailpassword']);
    expect(await callsOf(() => api.get(`/rt-cfg-none${path}`))).toEqual({ Query: 1 });
    // The list answers every tenant in that shape from the one Query of the tenant items (uncached).
    expect(await callsOf(async () => (res = await api.get('/recipe/multitenancy/tenant/list/v2')))).toEqual({ Query: 1 });
    expect((res!.json.tenants as { tenantId: string }[])[0].tenantId).toBe('public');
    expect((res!.json.tenants as { tenantId: string }[]).find((t) => t.tenantId === 'rt-cfg')).toMatchObject({ firstFactors: ['emailpassword'] });
  });

  it("a tenant's providers (SPEC §22): the GET still 1 Query with 3 of them; a PUT 2 (its read, one transaction) and 1 more outside public (its check), a removal the same", async () => {
    const path = '/recipe/multitenancy/tenant/v2';
    expect((await api.put(path, { tenantId: 'rt-sso' })).json.status).toBe('OK');
    // A new provider: the tenant read with its providers, then the provider and the tenant's list in
    // one transaction; outside public, the tenant's check beside the read.
    for (const id of ['okta-a', 'okta-b', 'okta-c']) {
      expect(await callsOf(() => api.put('/rt-sso/recipe/multitenancy/config/thirdparty', { config: oidcProvider(id) }))).toEqual({
        GetItem: 1,
        Query: 1,
        TransactWriteItems: 1,
      });
    }
    let res: { json: Record<string, any> } | undefined;
    expect(await callsOf(async () => (res = await api.get(`/rt-sso${path}`)))).toEqual({ Query: 1 });
    expect(res!.json.thirdParty.providers.map((p: { thirdPartyId: string }) => p.thirdPartyId)).toEqual(['okta-a', 'okta-b', 'okta-c']);
    expect(await callsOf(() => api.post('/rt-sso/recipe/multitenancy/config/thirdparty/remove', { thirdPartyId: 'okta-b' }))).toEqual({
      GetItem: 1,
      Query: 1,
      TransactWriteItems: 1,
    });
    // A tenant with providers goes in one transaction with them, after its refused DeleteItem and a read of its list.
    expect(await callsOf(() => api.post('/recipe/multitenancy/tenant/remove', { tenantId: 'rt-sso' }))).toEqual({
      DeleteItem: 1,
      GetItem: 1,
      TransactWriteItems: 1,
    });
  });

  /**
   * The GET's recipe function in this process, as one Lambda container runs it, on the server's
   * table through the proxy, with a clock the test moves: its cache of `TENANT_CACHE_MS` per tenant.
   */
  async function withTenantContainer(fn: (deps: Pick<Deps, 'tenants' | 'tenantConfigs' | 'clock'>, clock: { at: number }) => Promise<void>): Promise<void> {
    const client = testDynamoClient(proxy.endpoint);
    try {
      const clock = { at: Date.now() };
      const ctx = createDynamoContext(api.tableName, client);
      await fn({ tenants: new DynamoTenantStore(ctx), tenantConfigs: new DynamoTenantConfigStore(ctx), clock: { now: () => clock.at } }, clock);
    } finally {
      client.destroy();
    }
  }

  it("answers a tenant from the container's cache: first GET 1 call, again within 5 s 0, after 5 s 1, after a PUT or removal in the container 1", async () => {
    await withTenantContainer(async (deps, clock) => {
      let res: Awaited<ReturnType<typeof getTenantConfig>> | undefined;
      const get = (tenantId: string) => async () => (res = await getTenantConfig(deps, tenantId));
      expect(await callsOf(get('public'))).toEqual({ Query: 1 });
      clock.at += TENANT_CACHE_MS - 1;
      expect(await callsOf(get('public'))).toEqual({});
      clock.at += 1;
      expect(await callsOf(get('public'))).toEqual({ Query: 1 });
      // A PUT in this container drops its entry: the next GET reads, and answers what was stored.
      expect(await callsOf(() => createOrUpdateTenant(deps, 'public', { requiredSecondaryFactors: ['totp'] }))).toEqual({ UpdateItem: 1 });
      expect(await callsOf(get('public'))).toEqual({ Query: 1 });
      expect(res).toMatchObject({ status: 'OK', tenantId: 'public', requiredSecondaryFactors: ['totp'] });
      expect(await callsOf(get('public'))).toEqual({});
      expect(await callsOf(() => createOrUpdateTenant(deps, 'public', { requiredSecondaryFactors: null }))).toEqual({ UpdateItem: 1 });
      expect(await callsOf(get('public'))).toEqual({ Query: 1 });
      expect(res).toEqual({ status: 'OK', tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {} });
      // Public's providers (SPEC §22) ride on the same Query; a provider's change drops the entry too.
      expect(await callsOf(() => createOrUpdateThirdPartyConfig(deps, 'public', oidcProvider('rt-pub'), false))).toEqual({ Query: 1, TransactWriteItems: 1 });
      expect(await callsOf(get('public'))).toEqual({ Query: 1 });
      expect(res).toMatchObject({ thirdParty: { providers: [{ thirdPartyId: 'rt-pub', clients: [{ clientSecret: 'rt-pub-secret' }] }] } });
      expect(await callsOf(get('public'))).toEqual({});
      expect(await callsOf(() => removeThirdPartyConfig(deps, 'public', 'rt-pub'))).toEqual({ Query: 1, TransactWriteItems: 1 });
      expect(await callsOf(get('public'))).toEqual({ Query: 1 });
      expect(res).toEqual({ status: 'OK', tenantId: 'public', thirdParty: { providers: [] }, coreConfig: {} });
      // Another tenant, an unknown one (also kept 5 s) and a removal; concurrent GETs share one read.
      expect(await callsOf(() => Promise.all([get('rt-cache')(), get('rt-cache')(), get('rt-cache')()]))).toEqual({ Query: 1 });
      expect(res).toEqual({ status: 'TENANT_NOT_FOUND_ERROR' });
      expect(await callsOf(get('rt-cache'))).toEqual({});
      expect(await callsOf(() => createOrUpdateTenant(deps, 'rt-cache', { firstFactors: ['otp-email'] }))).toEqual({ UpdateItem: 1 });
      expect(await callsOf(get('rt-cache'))).toEqual({ Query: 1 });
      expect(res).toMatchObject({ status: 'OK', firstFactors: ['otp-email'] });
      expect(await callsOf(() => removeTenant(deps, 'rt-cache'))).toEqual({ DeleteItem: 1 });
      expect(await callsOf(get('rt-cache'))).toEqual({ Query: 1 });
      expect(res).toEqual({ status: 'TENANT_NOT_FOUND_ERROR' });
    });
  });

  it(`keeps at most ${TENANT_CACHE_MAX} tenants per container: one more pushes out the one read longest ago`, async () => {
    await withTenantContainer(async (deps) => {
      const get = (tenantId: string) => () => getTenantConfig(deps, tenantId);
      expect(await callsOf(get('rt-oldest'))).toEqual({ Query: 1 });
      const others = Array.from({ length: TENANT_CACHE_MAX - 1 }, (_, i) => `rt-many-${i}`);
      for (let i = 0; i < others.length; i += 50) await Promise.all(others.slice(i, i + 50).map((id) => get(id)()));
      expect(await callsOf(get('rt-oldest'))).toEqual({});
      expect(await callsOf(get('rt-one-more'))).toEqual({ Query: 1 });
      expect(await callsOf(get(others[0]))).toEqual({});
      expect(await callsOf(get('rt-oldest'))).toEqual({ Query: 1 });
    });
  });

  it(`keeps at most ${TENANT_CACHE_MAX_BYTES / 1024 / 1024} MiB of providers per container (SPEC §22: 50 of 64 KiB a tenant): a third tenant of 3 MiB pushes out the one read longest ago; each 3 Queries of 1 MB`, async () => {
    await withTenantContainer(async (deps) => {
      const big = Array.from({ length: 50 }, (_, i) => ({
        ...oidcProvider(`big-${i}`),
        clients: [{ clientId: 'c', clientSecret: 's', additionalConfig: { blob: 'b'.repeat(60 * 1024) } }],
      }));
      const tenantIds = ['rt-big-1', 'rt-big-2', 'rt-big-3'];
      for (const tenantId of tenantIds) {
        await deps.tenants.putTenant(tenantId, Date.now());
        for (let i = 0; i < big.length; i++) {
          const order = big.slice(0, i + 1).map((p) => p.thirdPartyId);
          expect(await deps.tenantConfigs.putProvider(tenantId, i, order, big[i])).toBe('OK');
        }
      }
      const get = (tenantId: string) => () => getTenantConfig(deps, tenantId);
      expect(await callsOf(get('rt-big-1'))).toEqual({ Query: 3 });
      expect(await callsOf(get('rt-big-2'))).toEqual({ Query: 3 });
      expect(await callsOf(get('rt-big-1'))).toEqual({});
      expect(await callsOf(get('rt-big-3'))).toEqual({ Query: 3 });
      expect(await callsOf(get('rt-big-2'))).toEqual({});
      expect(await callsOf(get('rt-big-1'))).toEqual({ Query: 3 });
      for (const tenantId of tenantIds) await removeTenant(deps, tenantId);
    });
  });

  it('passwordless by phone: consume 3 for a new or existing user, also one with an email too (through its phone entry)', async () => {
    const phoneNumber = uniquePhone();
    const first = await createCode(api, { phoneNumber });
    expect(await callsOf(() => consumeLink(api, first))).toEqual({ Query: 2, TransactWriteItems: 1 });
    const again = await createCode(api, { phoneNumber });
    expect(await callsOf(() => consumeLink(api, again))).toEqual({ Query: 2, TransactWriteItems: 1 });
    // A login method with an email and a phone is indexed by its email; an entry item in its
    // partition indexes the phone, with a snapshot of the login method.
    const email = uniqueEmail('rt-both');
    const user = (await passwordlessSignIn(api, { email })).user;
    const phone = uniquePhone();
    expect((await api.put('/recipe/user', { userId: user.id, email, phoneNumber: phone }, { rid: 'passwordless' })).json).toEqual({ status: 'OK' });
    await consumesThroughEntry({ phoneNumber: phone }, user.id);
  });

  /**
   * Two consumes of `identity` in the public tenant, each the device, the index (an entry with a snapshot of
   * the login method) and the transaction, answering as `GET /user/id` does; then a device the
   * second one ended, answered from the index alone.
   */
  async function consumesThroughEntry(identity: { email: string } | { phoneNumber: string }, userId: string): Promise<void> {
    for (let i = 0; i < 2; i++) {
      const code = await createCode(api, identity);
      const pending = i === 1 ? await createCode(api, identity) : undefined;
      let res: Awaited<ReturnType<typeof consumeLink>> | undefined;
      expect(await callsOf(async () => (res = await consumeLink(api, code)))).toEqual({ Query: 2, TransactWriteItems: 1 });
      expect([res!.json.status, res!.json.createdNewUser, res!.json.user]).toEqual(['OK', false, (await api.get(`/user/id?userId=${userId}`)).json.user]);
      if (pending)
        expect(await callsOf(async () => expect((await consumeLink(api, pending)).json).toEqual({ status: 'RESTART_FLOW_ERROR' }))).toEqual({ Query: 2 });
    }
  }

  it("passwordless in a tenant other than its login method's first: consume 3 through its email entry; a primary user's, 4 (its partition, read beside the transaction)", async () => {
    const tenantId = `rt-${Date.now().toString(36)}`;
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
    const email = uniqueEmail('rt-tenants');
    // Its first tenant is the new one, so public is the other: every request in a tenant other than
    // public first reads that the tenant exists (one GetItem, the handler's), which is not consume's.
    const imported = await api.post('/bulk-import/import', { loginMethods: [{ recipeId: 'passwordless', email, tenantIds: [tenantId, 'public'] }] });
    expect(imported.json.status).toBe('OK');
    const userId = imported.json.user.id as string;
    await consumesThroughEntry({ email }, userId);
    // A primary user's login method: the entry's snapshot names the user, whose partition is read
    // beside the transaction (the answer is the whole user; the round trips are counted below).
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: userId })).json.status).toBe('OK');
    const code = await createCode(api, { email });
    expect(await callsOf(() => consumeLink(api, code))).toEqual({ Query: 3, TransactWriteItems: 1 });
    // In its first tenant, its own item is in the index: the tenant's check, then 3.
    expect((await api.post('/recipe/accountlinking/user/unlink', { recipeUserId: userId })).json.status).toBe('OK');
    const inFirst = await createCode(api, { email }, tenantId);
    expect(await callsOf(() => consumeLink(api, inFirst, tenantId))).toEqual({ GetItem: 1, Query: 2, TransactWriteItems: 1 });
  });

  it('third party: a new identity is created with 2 calls; an existing one on its own signs in from its guard alone, 1 call, and one that changes writes from it, 2', async () => {
    const email = uniqueEmail('rt-tp');
    const identity = { thirdPartyId: 'google', thirdPartyUserId: `g-${email}`, email: { id: email, isVerified: false } };
    expect(await callsOf(() => api.post('/recipe/signinup', identity))).toEqual({ GetItem: 1, TransactWriteItems: 1 });
    let res: { json: { status: string; createdNewUser: boolean; user: { id: string; loginMethods: { verified: boolean }[] } } } | undefined;
    expect(await callsOf(async () => (res = await api.post('/recipe/signinup', identity)))).toEqual({ GetItem: 1 });
    expect(res!.json.user).toEqual((await api.get(`/user/id?userId=${res!.json.user.id}`)).json.user);
    expect([res!.json.createdNewUser, res!.json.user.loginMethods[0].verified]).toEqual([false, false]);
    // The provider now says the email is verified: the guard, whose snapshot holds the version,
    // then the write from it (guard and login method together); 2 one after another.
    expect(await callsOf(() => api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } }))).toEqual({
      GetItem: 1,
      TransactWriteItems: 1,
    });
    expect(await callsOf(async () => (res = await api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } })))).toEqual({
      GetItem: 1,
    });
    expect(res!.json.user).toEqual((await api.get(`/user/id?userId=${res!.json.user.id}`)).json.user);
    expect(res!.json.user.loginMethods[0].verified).toBe(true);
    // A primary user's, it reads the primary user's partition: 2 calls.
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: res!.json.user.id })).json.status).toBe('OK');
    expect(await callsOf(() => api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } }))).toEqual({ GetItem: 1, Query: 1 });
  });

  it('email-password sign-in of a login method on its own: its guard alone, 1 call, answering as GET /user/id does after each change', async () => {
    const email = uniqueEmail('rt-ep');
    const id = (await api.post('/recipe/signup', { email, password: 'pw-123456' })).json.user.id as string;
    const signInIsOneRead = async () => {
      let res: { json: { status: string; user: unknown; recipeUserId: string } } | undefined;
      expect(await callsOf(async () => (res = await api.post('/recipe/signin', { email, password: 'pw-123456' })))).toEqual({ GetItem: 1 });
      const byId = (await api.get(`/user/id?userId=${id}`)).json.user;
      expect([res!.json.status, res!.json.user, res!.json.recipeUserId]).toEqual(['OK', byId, byId.loginMethods[0].recipeUserId]);
      return byId;
    };
    expect((await signInIsOneRead()).loginMethods[0].verified).toBe(false);
    // The guard's snapshot is written with the login method: its email verified, then its external id.
    const token = (await api.post('/recipe/user/email/verify/token', { userId: id, email })).json.token;
    expect((await api.post('/recipe/user/email/verify', { method: 'token', token })).json.status).toBe('OK');
    expect((await signInIsOneRead()).loginMethods[0].verified).toBe(true);
    expect((await api.post('/recipe/userid/map', { superTokensUserId: id, externalUserId: `ext-${id}` })).json.status).toBe('OK');
    expect((await signInIsOneRead()).id).toBe(`ext-${id}`);
    // A wrong password: the same one read.
    expect(await callsOf(() => api.post('/recipe/signin', { email, password: 'wrong-pw-1' }))).toEqual({ GetItem: 1 });
  });

  it('email-password sign-in of a primary user, or through a guard of an older storage format without a snapshot: the guard and the user, 2 calls; the format sweep mends the guard', async () => {
    const email = uniqueEmail('rt-ep-primary');
    const id = (await api.post('/recipe/signup', { email, password: 'pw-123456' })).json.user.id as string;
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: id })).json.status).toBe('OK');
    expect(await callsOf(() => api.post('/recipe/signin', { email, password: 'pw-123456' }))).toEqual({ GetItem: 1, Query: 1 });

    const old = uniqueEmail('rt-ep-old');
    const oldId = (await api.post('/recipe/signup', { email: old, password: 'pw-123456' })).json.user.id as string;
    const doc = testDocClient();
    try {
      // A guard as a build of an older format might have left it: no snapshot.
      await doc.send(
        new UpdateCommand({
          TableName: api.tableName,
          Key: keys.emailGuard('public', 'emailpassword', old),
          UpdateExpression: 'SET fmt = :old REMOVE #snapshot',
          ExpressionAttributeNames: { '#snapshot': 'snapshot' },
          ExpressionAttributeValues: { ':old': CURRENT_FORMAT - 1 },
        }),
      );
      let res: { json: { status: string; user: { id: string } } } | undefined;
      expect(await callsOf(async () => (res = await api.post('/recipe/signin', { email: old, password: 'pw-123456' })))).toEqual({ GetItem: 1, Query: 1 });
      expect([res!.json.status, res!.json.user.id]).toEqual(['OK', oldId]);
      // The format sweep (npm start, npm run upgrade-storage) puts it as the user implies it: one read again.
      expect(await sweepFormats({ doc, tableName: api.tableName })).toEqual({ users: 1, items: 1 });
      expect(await callsOf(() => api.post('/recipe/signin', { email: old, password: 'pw-123456' }))).toEqual({ GetItem: 1 });
      expect(await sweepFormats({ doc, tableName: api.tableName })).toEqual({ users: 0, items: 0 });
    } finally {
      doc.destroy();
    }
  });

  it("third-party sign-in of a primary user whose guard's snapshot an older build left behind: the write from it is refused, the sign-in goes through the user; the format sweep mends the guard", async () => {
    const email = uniqueEmail('rt-tp-stale');
    const identity = { thirdPartyId: 'google', thirdPartyUserId: `g-${email}` };
    const signIn = () => api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: true } });
    const id = (await api.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: false } })).json.user.id as string;
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: id })).json.status).toBe('OK');
    const doc = testDocClient();
    try {
      // The email verified as a build that kept no snapshot on this guard would write it: the login
      // method alone, the guard left (of its older format) with the snapshot of the version before.
      const guard = keys.thirdPartyGuard('public', identity.thirdPartyId, identity.thirdPartyUserId);
      await doc.send(
        new UpdateCommand({
          TableName: api.tableName,
          Key: keys.loginMethod(id, id),
          UpdateExpression: 'SET verifiedEmails = :v ADD #version :one',
          ExpressionAttributeNames: { '#version': 'version' },
          ExpressionAttributeValues: { ':v': [email], ':one': 1 },
        }),
      );
      await doc.send(
        new UpdateCommand({
          TableName: api.tableName,
          Key: guard,
          UpdateExpression: 'SET fmt = :old',
          ExpressionAttributeValues: { ':old': CURRENT_FORMAT - 1 },
        }),
      );
      let res: { json: { status: string; user: { id: string; loginMethods: { verified: boolean }[] } } } | undefined;
      // The guard, the refused write beside the user's read, then the guard and the user again: nothing to write.
      expect(await callsOf(async () => (res = await signIn()))).toEqual({ GetItem: 2, Query: 2, TransactWriteItems: 1 });
      expect(res!.json.user).toEqual((await api.get(`/user/id?userId=${id}`)).json.user);
      expect([res!.json.status, res!.json.user.loginMethods[0].verified]).toEqual(['OK', true]);
      expect(await tableProblems(api.tableName)).toEqual([expect.objectContaining({ kind: 'item-older-format', key: guard.pk })]);
      // The format sweep (npm start, npm run upgrade-storage) puts the guard as the user implies it: 2 calls again.
      expect(await sweepFormats({ doc, tableName: api.tableName })).toEqual({ users: 1, items: 1 });
      expect(await callsOf(async () => (res = await signIn()))).toEqual({ GetItem: 1, Query: 1 });
      expect(await sweepFormats({ doc, tableName: api.tableName })).toEqual({ users: 0, items: 0 });
      expect(await tableProblems(api.tableName)).toEqual([]);
    } finally {
      doc.destroy();
    }
  });

  it("email-password sign-in that rehashes an imported hash writes from the guard's snapshot: 2 calls, then 1", async () => {
    const email = uniqueEmail('rt-rehash');
    const imported = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: bcrypt.hashSync('pw-123456', 4) });
    expect(imported.json.status).toBe('OK');
    let res: { json: { status: string; user: unknown } } | undefined;
    // The guard (its snapshot holds the version), the verify and the own hash, the write.
    expect(await callsOf(async () => (res = await api.post('/recipe/signin', { email, password: 'pw-123456' })))).toEqual({
      GetItem: 1,
      TransactWriteItems: 1,
    });
    expect([res!.json.status, res!.json.user]).toEqual(['OK', (await api.get(`/user/id?userId=${imported.json.user.id}`)).json.user]);
    // Rehashed: the own Argon2id hash verifies from the guard alone, nothing to write.
    expect(await callsOf(async () => (res = await api.post('/recipe/signin', { email, password: 'pw-123456' })))).toEqual({ GetItem: 1 });
    expect(res!.json.status).toBe('OK');
    // Imported again: the create is refused (the email is taken), the guard's snapshot is the
    // user; another hash replaces the one it has (login method and guard in one transaction), the
    // same one writes nothing. A sign-up of the taken email reads the guard alone.
    expect(await callsOf(() => api.post('/recipe/user/passwordhash/import', { email, passwordHash: bcrypt.hashSync('pw-654321', 4) }))).toEqual({
      GetItem: 1,
      TransactWriteItems: 2,
    });
    const again = bcrypt.hashSync('pw-000000', 4);
    await api.post('/recipe/user/passwordhash/import', { email, passwordHash: again });
    let reimported: { json: { status: string; didUserAlreadyExist: boolean; user: unknown } } | undefined;
    expect(await callsOf(async () => (reimported = await api.post('/recipe/user/passwordhash/import', { email, passwordHash: again })))).toEqual({
      GetItem: 1,
      TransactWriteItems: 1,
    });
    const byId = (await api.get(`/user/id?userId=${imported.json.user.id}`)).json.user;
    expect([reimported!.json.status, reimported!.json.didUserAlreadyExist, reimported!.json.user]).toEqual(['OK', true, byId]);
    expect(
      await callsOf(async () => expect((await api.post('/recipe/signup', { email, password: 'pw-123456' })).json.status).toBe('EMAIL_ALREADY_EXISTS_ERROR')),
    ).toEqual({ GetItem: 1 });
    expect((await api.post('/recipe/signin', { email, password: 'pw-000000' })).json.status).toBe('OK');
  });

  it('email-password sign-in with a bcrypt hash of a primary user: the guard, then the user (its guard holds no snapshot)', async () => {
    // The read is started beside the verify (bcryptjs verifies on the main thread in blocks of
    // 100 ms); when it reaches the socket is a matter of time, which this suite does not assert.
    const email = uniqueEmail('rt-bc');
    const passwordHash = bcrypt.hashSync('pw-123456', 11);
    const imported = await api.post('/recipe/user/passwordhash/import', { email, passwordHash });
    expect(imported.json.status).toBe('OK');
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: imported.json.user.id })).json.status).toBe('OK');
    proxy.reset();
    expect((await api.post('/recipe/signin', { email, password: 'pw-123456' })).json.status).toBe('OK');
    // Then the rehash to the service's own Argon2id, written over the user read.
    expect(proxy.arrivals.map((a) => a.operation)).toEqual(['GetItem', 'Query', 'TransactWriteItems']);
  });
});

describe('sessions (SPEC §18), warm: the keys are read once per function and kept', () => {
  const session = { userDataInJWT: { r: 1 }, userDataInDatabase: {}, enableAntiCsrf: false };
  const verify = (accessToken: string, checkDatabase = false) =>
    api.post('/recipe/session/verify', { accessToken, doAntiCsrfCheck: false, enableAntiCsrf: false, checkDatabase });
  const refresh = (refreshToken: string) => api.post('/recipe/session/refresh', { refreshToken, enableAntiCsrf: false, useDynamicSigningKey: true });

  it('create 2, verify 0, refresh 1, the promoting verify 1, session info 1, JWKS 0', async () => {
    // Warm every function once (each reads the keys on its first request, and the first makes them).
    const warm = (await api.post('/recipe/session', { userId: 'rt-warm', ...session })).json;
    await verify(warm.accessToken.token);
    const warmed = (await refresh(warm.refreshToken.token)).json;
    await verify(warmed.accessToken.token);
    await api.get('/.well-known/jwks.json');
    await api.post('/recipe/session/regenerate', { accessToken: warm.accessToken.token, userDataInJWT: { r: 1 } });

    const user = (await api.post('/recipe/signup', { email: uniqueEmail('rt-session'), password: 'password-123' })).json.user;
    let created: any;
    // The user's ids (one BatchGetItem: its item, a link, an external id's guard), the session.
    expect(await callsOf(async () => (created = (await api.post('/recipe/session', { userId: user.id, ...session })).json))).toEqual({
      BatchGetItem: 1,
      PutItem: 1,
    });
    expect(await callsOf(() => verify(created.accessToken.token))).toEqual({});
    let refreshed: any;
    expect(await callsOf(async () => (refreshed = (await refresh(created.refreshToken.token)).json))).toEqual({ GetItem: 1 });
    // The promotion is one conditional UpdateItem that answers the session (no read before it).
    let promoted: any;
    expect(await callsOf(async () => (promoted = (await verify(refreshed.accessToken.token)).json))).toEqual({ UpdateItem: 1 });
    expect(promoted.accessToken).toBeDefined();
    expect(await callsOf(() => verify(promoted.accessToken.token, true))).toEqual({ GetItem: 1 });
    expect(await callsOf(() => api.get(`/recipe/session?sessionHandle=${created.session.handle}`))).toEqual({ GetItem: 1 });
    expect(await callsOf(() => api.get('/.well-known/jwks.json'))).toEqual({});
    // A child presented to refresh before any verify: read, then the promotion.
    const child = (await refresh(refreshed.refreshToken.token)).json;
    expect(await callsOf(() => refresh(child.refreshToken.token))).toEqual({ GetItem: 1, UpdateItem: 1 });
    // A linked login method's session: its link (or its external id's guard) names both external ids.
    const other = (await api.post('/recipe/signup', { email: uniqueEmail('rt-session-linked'), password: 'password-123' })).json.user;
    await api.post('/recipe/userid/map', { superTokensUserId: user.id, externalUserId: `ext-${user.id}` });
    await api.post('/recipe/userid/map', { superTokensUserId: other.id, externalUserId: `ext-${other.id}` });
    await api.post('/recipe/accountlinking/user/primary', { recipeUserId: user.id });
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: other.id, primaryUserId: user.id })).json.status).toBe('OK');
    for (const id of [other.id, `ext-${other.id}`]) {
      let linked: any;
      expect(await callsOf(async () => (linked = (await api.post('/recipe/session', { userId: id, ...session })).json))).toEqual({
        BatchGetItem: 1,
        PutItem: 1,
      });
      expect([linked.session.userId, linked.session.recipeUserId]).toEqual([`ext-${user.id}`, `ext-${other.id}`]);
    }
    // A link of format 1 (before the external ids): one read more, the same answer; the sweep mends it.
    const doc = testDocClient();
    try {
      await doc.send(
        new UpdateCommand({
          TableName: api.tableName,
          Key: keys.link(other.id),
          UpdateExpression: 'SET fmt = :one REMOVE externalUserId, primaryExternalUserId',
          ExpressionAttributeValues: { ':one': 1 },
        }),
      );
      let old: any;
      expect(await callsOf(async () => (old = (await api.post('/recipe/session', { userId: other.id, ...session })).json))).toEqual({
        BatchGetItem: 2,
        PutItem: 1,
      });
      expect([old.session.userId, old.session.recipeUserId]).toEqual([`ext-${user.id}`, `ext-${other.id}`]);
      expect(await sweepFormats({ doc, tableName: api.tableName })).toEqual({ users: 1, items: 1 });
      expect(await callsOf(() => api.post('/recipe/session', { userId: other.id, ...session }))).toEqual({ BatchGetItem: 1, PutItem: 1 });
    } finally {
      doc.destroy();
    }

    // Regenerate: a new payload is one conditional UpdateItem answering the session; none, one read.
    const token = promoted.accessToken.token;
    expect(await callsOf(() => api.post('/recipe/session/regenerate', { accessToken: token, userDataInJWT: { r: 2 } }))).toEqual({ UpdateItem: 1 });
    expect(await callsOf(() => api.post('/recipe/session/regenerate', { accessToken: token }))).toEqual({ GetItem: 1 });
  });
});

describe('the session exchange (SPEC §19)', () => {
  it('OK 3: the external id mapped, its user, the single use; used again 1, 2 with an Idempotency-Key', async () => {
    const user = (await api.post('/recipe/signup', { email: uniqueEmail('rt-exchange'), password: 'password-123' })).json.user;
    const ext = `old-${user.id}`;
    await api.post('/recipe/userid/map', { superTokensUserId: user.id, externalUserId: ext });
    const t = Math.floor(Date.now() / 1000);
    const oldToken = () =>
      new SignJWT({ iss: OLD_ISSUER, aud: 'app', sub: ext, iat: t, exp: t + 3600, jti: randomUUID() })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(Buffer.from(OLD_SECRET));
    const exchange = (token: string, headers: Record<string, string> = {}) => api.post('/recipe/migration/session/exchange', { token }, headers);
    const token = await oldToken();
    const calls = await callsOf(async () => expect((await exchange(token)).json.status).toBe('OK'));
    expect(calls).toEqual({ GetItem: 1, PutItem: 1, Query: 1 });
    // Used: the conditional PutItem is refused; without a key there is no replay to read.
    expect(await callsOf(async () => expect((await exchange(token)).json.status).toBe('TOKEN_ALREADY_USED_ERROR'))).toEqual({
      GetItem: 1,
      PutItem: 1,
      Query: 1,
    });
    // With a key: its replay is read once the token verifies, and answers at once.
    const keyed = await oldToken();
    const key = { 'idempotency-key': `rt-${randomUUID()}` };
    expect(await callsOf(async () => expect((await exchange(keyed, key)).json.status).toBe('OK'))).toEqual({ GetItem: 2, PutItem: 1, Query: 1 });
    expect(await callsOf(async () => expect((await exchange(keyed, key)).json.status).toBe('OK'))).toEqual({ GetItem: 1 });
  });
});

describe("a tenant other than public (its existence read beside the request's first read)", () => {
  // 100 ms on every call: reads one after another arrive at least that far apart.
  let slow: CountingProxy;
  let tenantApi: TestApi;
  const tenantId = `rt-t-${Date.now().toString(36)}`;
  beforeAll(async () => {
    slow = await startCountingProxy(process.env.TEST_DYNAMODB_ENDPOINT!, 100);
    tenantApi = await startApi({ AWS_ENDPOINT_URL_DYNAMODB: slow.endpoint, ARGON2_MEMORY_KIB: '1024', ARGON2_ITERATIONS: '1' });
    expect((await tenantApi.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
  });
  afterAll(async () => {
    try {
      await tenantApi.stop();
    } finally {
      await slow.close();
    }
  });
  /** The calls of one request, and whether its first two were in flight together (on the wire). */
  async function firstTwo(request: () => Promise<unknown>): Promise<{ calls: Record<string, number>; together: boolean }> {
    slow.reset();
    await request();
    return { calls: Object.fromEntries([...slow.counts].sort()), together: slow.together(0, 1) };
  }

  it("consumes a password reset token reading its user beside the user's tokens: 4 calls in 3 round trips", async () => {
    const email = uniqueEmail('rt-reset');
    const user = (await tenantApi.post('/recipe/signup', { email, password: 'pw-123456' })).json.user;
    const token = (await tenantApi.post('/recipe/user/password/reset/token', { userId: user.id, email })).json.token as string;
    slow.reset();
    expect((await tenantApi.post('/recipe/user/password/reset/token/consume', { token })).json).toEqual({ status: 'OK', userId: user.id, email });
    expect(slow.arrivals.map((a) => a.operation)).toEqual(['GetItem', 'Query', 'Query', 'TransactWriteItems']);
    expect([slow.together(0, 1), slow.together(1, 2)]).toEqual([false, true]);
  });

  it('consumes a WebAuthn recovery token reading its user beside the email’s tokens: 4 calls in 3 round trips', async () => {
    const wa = webauthnClient(tenantApi);
    const email = uniqueEmail('rt-wa-consume');
    const id = (await wa.signUpWith(new SoftAuthenticator(), email)).json.recipeUserId as string;
    const token = (await wa.recoverToken(id, email)).json.token as string;
    slow.reset();
    expect((await wa.consumeToken(token)).json).toEqual({ status: 'OK', userId: id, email });
    expect(slow.arrivals.map((a) => a.operation)).toEqual(['GetItem', 'Query', 'Query', 'TransactWriteItems']);
    expect([slow.together(0, 1), slow.together(1, 2)]).toEqual([false, true]);
  });

  it("signs in with the tenant's GetItem and the guard's at once: one round trip, not two", async () => {
    const email = uniqueEmail('rt-tenant');
    expect((await tenantApi.post(`/${tenantId}/recipe/signup`, { email, password: 'pw-123456' })).json.status).toBe('OK');
    let res: { json: { status: string } } | undefined;
    const signIn = await firstTwo(async () => (res = await tenantApi.post(`/${tenantId}/recipe/signin`, { email, password: 'pw-123456' })));
    expect([res!.json.status, signIn.calls]).toEqual(['OK', { GetItem: 2 }]);
    expect(signIn.together).toBe(true);
  });

  it("checks a TOTP code with the tenant's GetItem beside the Query: 3 calls in 2 round trips", async () => {
    const userId = `rt-totp-t-${Date.now().toString(36)}`;
    const secret = 'JBSWY3DPEHPK3PXP';
    expect((await tenantApi.post('/recipe/totp/device/import', { userId, secretKey: secret, skew: 1, period: 30 })).json.status).toBe('OK');
    let res: { json: { status: string } } | undefined;
    const check = await firstTwo(async () => (res = await tenantApi.post(`/${tenantId}/recipe/totp/verify`, { userId, totp: totpCode(secret) })));
    expect([res!.json.status, check.calls]).toEqual(['OK', { GetItem: 1, PutItem: 1, Query: 1 }]);
    expect(check.together).toBe(true);
  });

  it("consumes with the tenant's GetItem beside the device's Query: 3 sequential calls, 4 in all", async () => {
    const email = uniqueEmail('rt-tenant-pl');
    const code = await createCode(tenantApi, { email }, tenantId);
    let res: Awaited<ReturnType<typeof consumeLink>> | undefined;
    const consume = await firstTwo(async () => (res = await consumeLink(tenantApi, code, tenantId)));
    expect([res!.json.status, consume.calls]).toEqual(['OK', { GetItem: 1, Query: 2, TransactWriteItems: 1 }]);
    expect(consume.together).toBe(true);
  });

  it("consumes a primary user's login method, and a linked one, in 3 round trips, through its item or an entry: the user's partition is read beside the transaction", async () => {
    const email = uniqueEmail('rt-primary-pl');
    const owner = (await passwordlessSignIn(tenantApi, { email })).user.id as string;
    expect((await tenantApi.post('/recipe/accountlinking/user/primary', { recipeUserId: owner })).json.status).toBe('OK');
    // A linked login method with an email and a phone: its item is indexed by its email, an entry
    // (with a snapshot of it naming the primary user) by its phone.
    const linkedEmail = uniqueEmail('rt-linked-pl');
    const phoneNumber = uniquePhone();
    const linked = (await passwordlessSignIn(tenantApi, { email: linkedEmail })).user.id as string;
    expect((await tenantApi.put('/recipe/user', { userId: linked, email: linkedEmail, phoneNumber }, { rid: 'passwordless' })).json).toEqual({ status: 'OK' });
    expect((await tenantApi.post('/recipe/accountlinking/user/link', { recipeUserId: linked, primaryUserId: owner })).json.status).toBe('OK');
    const cases: [Record<string, string>, string][] = [
      [{ email }, owner],
      [{ email: linkedEmail }, linked],
      [{ phoneNumber }, linked],
    ];
    for (const [identity, recipeUserId] of cases) {
      const code = await createCode(tenantApi, identity);
      const pending = await createCode(tenantApi, identity);
      slow.reset();
      const res = await consumeLink(tenantApi, code);
      // The device, the index (the login method's item or entry, which says whose it is), then the
      // primary user's partition and the transaction together.
      expect(Object.fromEntries([...slow.counts].sort())).toEqual({ Query: 3, TransactWriteItems: 1 });
      const [, , read, write] = slow.arrivals;
      expect([read.operation, write.operation, slow.together(2, 3)]).toEqual(['Query', 'TransactWriteItems', true]);
      const user = (await tenantApi.get(`/user/id?userId=${owner}`)).json.user;
      expect([res.json.status, res.json.createdNewUser, res.json.recipeUserId, res.json.user, user.loginMethods.length]).toEqual([
        'OK',
        false,
        recipeUserId,
        user,
        2,
      ]);
      // The consume's mark, written by the update alone, ends the device made before it.
      expect((await consumeLink(tenantApi, pending)).json).toEqual({ status: 'RESTART_FLOW_ERROR' });
    }
  });

  it("third party: a primary user's login method, its own or linked, signs in in 2 round trips, also when the provider newly verifies its email (written from the guard's snapshot beside the partition read); a changed email takes 3", async () => {
    const tp = async (email: string) => {
      const identity = { thirdPartyId: 'google', thirdPartyUserId: `g-${email}` };
      const id = (await tenantApi.post('/recipe/signinup', { ...identity, email: { id: email, isVerified: false } })).json.user.id as string;
      return { id, signIn: (emailId: string, isVerified: boolean) => tenantApi.post('/recipe/signinup', { ...identity, email: { id: emailId, isVerified } }) };
    };
    const [ownEmail, linkedEmail] = [uniqueEmail('rt-tp-own'), uniqueEmail('rt-tp-linked')];
    const own = await tp(ownEmail);
    const linked = await tp(linkedEmail);
    expect((await tenantApi.post('/recipe/accountlinking/user/primary', { recipeUserId: own.id })).json.status).toBe('OK');
    expect((await tenantApi.post('/recipe/accountlinking/user/link', { recipeUserId: linked.id, primaryUserId: own.id })).json.status).toBe('OK');
    for (const [lm, email] of [
      [own, ownEmail],
      [linked, linkedEmail],
    ] as const) {
      slow.reset();
      const verified = await lm.signIn(email, true);
      // The guard (its snapshot names the primary user), then the write and the primary user's
      // partition together.
      expect(Object.fromEntries([...slow.counts].sort())).toEqual({ GetItem: 1, Query: 1, TransactWriteItems: 1 });
      const [guard, read, write] = slow.arrivals;
      expect([guard.operation, read.operation, write.operation].sort()).toEqual(['GetItem', 'Query', 'TransactWriteItems']);
      expect([guard.operation, slow.together(1, 2)]).toEqual(['GetItem', true]);
      const user = (await tenantApi.get(`/user/id?userId=${own.id}`)).json.user;
      expect([verified.json.status, verified.json.createdNewUser, verified.json.recipeUserId, verified.json.user]).toEqual(['OK', false, lm.id, user]);
      expect(user.loginMethods.find((m: { recipeUserId: string }) => m.recipeUserId === lm.id).verified).toBe(true);
      // Nothing to change: the guard, then the partition.
      slow.reset();
      expect((await lm.signIn(email, true)).json.user).toEqual(user);
      expect(Object.fromEntries([...slow.counts].sort())).toEqual({ GetItem: 1, Query: 1 });
    }
    // A changed email needs the whole user first (its claims in every tenant of the user): 3 one after another.
    slow.reset();
    const changed = await linked.signIn(uniqueEmail('rt-tp-changed'), true);
    expect([changed.json.status, Object.fromEntries([...slow.counts].sort())]).toEqual(['OK', { GetItem: 1, Query: 1, TransactWriteItems: 1 }]);
    expect(slow.arrivals.map((a) => a.operation)).toEqual(['GetItem', 'Query', 'TransactWriteItems']);
    expect(slow.together(1, 2)).toBe(false);
  });

  it('writes nothing in a tenant that does not exist: the write waits for the check, which answers', async () => {
    let res: { status: number; text: string } | undefined;
    // The tenant and the email's guard (sign-up reads whether the email is taken, then hashes and
    // writes): read together; the write never leaves.
    const signUp = await firstTwo(async () => {
      res = await tenantApi.post('/no-such-tenant/recipe/signup', { email: uniqueEmail('rt-none'), password: 'pw-123456' });
      // Wait out a write that would still be on its way.
      await new Promise((r) => setTimeout(r, 300));
    });
    expect([res!.status, res!.text, signUp.calls]).toEqual([400, 'AppId or tenantId not found', { GetItem: 2 }]);
    expect(signUp.together).toBe(true);
    // Create code: a write and nothing else, so the check alone.
    slow.reset();
    const passwordless = await tenantApi.post('/no-such-tenant/recipe/signinup/code', { email: uniqueEmail('rt-none') });
    await new Promise((r) => setTimeout(r, 300));
    expect([passwordless.status, passwordless.text, Object.fromEntries(slow.counts)]).toEqual([400, 'AppId or tenantId not found', { GetItem: 1 }]);
  });
});

describe('TOTP (SPEC §20): a code checked in 2 calls', () => {
  it('create 1 (2 without a name), list 1, verify OK 2, verify wrong 2, verify-device OK 2, limited 1, unknown user 1', async () => {
    const userId = `rt-totp-${Date.now().toString(36)}`;
    let secret = '';
    expect(
      await callsOf(async () => {
        secret = (await api.post('/recipe/totp/device', { userId, deviceName: 'phone', skew: 1, period: 30 })).json.secret;
      }),
    ).toEqual({ PutItem: 1 });
    expect(await callsOf(() => api.post('/recipe/totp/device', { userId, skew: 1, period: 30 }))).toEqual({ PutItem: 1, Query: 1 });
    expect(await callsOf(() => api.get(`/recipe/totp/device/list?userId=${userId}`))).toEqual({ Query: 1 });
    let verified: unknown;
    expect(
      await callsOf(async () => (verified = (await api.post('/recipe/totp/device/verify', { userId, deviceName: 'phone', totp: totpCode(secret) })).json)),
    ).toEqual({
      Query: 1,
      TransactWriteItems: 1,
    });
    expect(verified).toEqual({ status: 'OK', wasAlreadyVerified: false });
    let ok: unknown;
    expect(await callsOf(async () => (ok = (await api.post('/recipe/totp/verify', { userId, totp: totpCode(secret, 1) })).json))).toEqual({
      PutItem: 1,
      Query: 1,
    });
    expect(ok).toEqual({ status: 'OK' });
    for (let i = 0; i < 5; i++) {
      expect(await callsOf(() => api.post('/recipe/totp/verify', { userId, totp: wrongCode(secret) }))).toEqual({ PutItem: 1, Query: 1 });
    }
    let limited: { status?: string } = {};
    expect(await callsOf(async () => (limited = (await api.post('/recipe/totp/verify', { userId, totp: totpCode(secret) })).json))).toEqual({ Query: 1 });
    expect(limited.status).toBe('LIMIT_REACHED_ERROR');
    expect(await callsOf(() => api.post('/recipe/totp/verify', { userId: `${userId}-nobody`, totp: '123456' }))).toEqual({ Query: 1 });
  });
});

describe('POST /bulk-import/import (SPEC §15, §20): one transaction per new user', () => {
  it('a new user: the tenants and roles read for validation, then 1 TransactWriteItems; the same user again: that transaction refused, then its identities read', async () => {
    const ext = `rt-bulk-${Date.now().toString(36)}`;
    const user = { externalUserId: ext, userMetadata: { plan: 'pro' }, loginMethods: [{ recipeId: 'passwordless', email: uniqueEmail('rt-bulk') }] };
    let status = 0;
    expect(await callsOf(async () => (status = (await api.post('/bulk-import/import', user)).status))).toEqual({ Query: 2, TransactWriteItems: 1 });
    expect(status).toBe(200);
    expect(await callsOf(() => api.post('/bulk-import/import', user))).toEqual({ GetItem: 2, Query: 4, TransactWriteItems: 1 });
  });

  it('a user with TOTP devices: the same calls, each device one more item of its transaction; the same user again puts them in a transaction of their own', async () => {
    const email = uniqueEmail('rt-bulk-totp');
    const plain = { loginMethods: [{ recipeId: 'passwordless', email: uniqueEmail('rt-bulk-plain') }] };
    expect(await callsOf(() => api.post('/bulk-import/import', plain))).toEqual({ Query: 2, TransactWriteItems: 1 });
    // The login method and its email's guard.
    expect(proxy.writes.transactional).toBe(2);
    const user = {
      externalUserId: `rt-bulk-totp-${Date.now().toString(36)}`,
      totpDevices: [{ secretKey: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ' }, { secretKey: 'MZXW6YTBOI', deviceName: 'Phone' }],
      loginMethods: [{ recipeId: 'passwordless', email }],
    };
    expect(await callsOf(() => api.post('/bulk-import/import', user))).toEqual({ Query: 2, TransactWriteItems: 1 });
    // The external id's guard, and the two devices.
    expect(proxy.writes.transactional).toBe(2 + 1 + 2);
    expect(await callsOf(() => api.post('/bulk-import/import', user))).toEqual({ GetItem: 2, Query: 4, TransactWriteItems: 2 });
  });

  it('a user with passkeys (SPEC §21): the same calls, each passkey two more items of its transaction (its guard and key); it then signs in as a primary user does (3 calls); the same user again reads its passkeys beside its identities', async () => {
    const auth = new SoftAuthenticator();
    const second = new SoftAuthenticator(-8);
    const email = uniqueEmail('rt-bulk-wa');
    const passkey = (a: SoftAuthenticator) => ({ credentialId: a.id, publicKey: a.coseKey().toString('base64url'), rpId: 'example.com' });
    const user = {
      externalUserId: `rt-bulk-wa-${Date.now().toString(36)}`,
      loginMethods: [
        { recipeId: 'emailpassword', email, plainTextPassword: 'pw-123456' },
        { recipeId: 'webauthn', email, isPrimary: true, credentials: [passkey(auth), passkey(second)] },
      ],
    };
    expect(await callsOf(() => api.post('/bulk-import/import', user))).toEqual({ Query: 2, TransactWriteItems: 1 });
    // The users' items and the external id's guard (7, as without the passkeys), and each
    // passkey's guard and key.
    expect(proxy.writes.transactional).toBe(7 + 2 * 2);
    const wa = webauthnClient(api);
    const options = (await wa.signInOptions()).json;
    expect(
      await callsOf(async () =>
        expect((await wa.signIn(options.webauthnGeneratedOptionsId, auth.assert(wa.ceremony(options)))).json.user.id).toBe(user.externalUserId),
      ),
    ).toEqual({ BatchGetItem: 1, Query: 1, TransactWriteItems: 1 });
    // The refused transaction, then the two email guards and the external id's (GetItem), the user
    // (Query), and a GetItem of each passkey's key sent beside them: no round trip more.
    expect(await callsOf(() => api.post('/bulk-import/import', user))).toEqual({ GetItem: 3 + 2, Query: 4, TransactWriteItems: 1 });
  });

  it('a user at the bounds, 10 linked login methods of every recipe and 10 TOTP devices, with an external id, metadata and 16 roles: one transaction of 95 items (97 with its row in the worker), within the 100 DynamoDB takes', async () => {
    const ext = `rt-bulk-max-${Date.now().toString(36)}`;
    const roles = Array.from({ length: 16 }, (_, i) => `rt-max-role-${i}`);
    for (const role of roles) expect((await api.put('/recipe/role', { role })).status).toBe(200);
    const body = {
      externalUserId: ext,
      userMetadata: { _supertokens: { requiredSecondaryFactors: ['totp'] } },
      userRoles: roles.map((role) => ({ role, tenantIds: ['public'] })),
      totpDevices: Array.from({ length: 10 }, () => ({ secretKey: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ' })),
      loginMethods: [
        ...Array.from({ length: 4 }, (_, i) => ({
          recipeId: 'emailpassword',
          email: uniqueEmail('rt-max'),
          plainTextPassword: 'pw-123456',
          isPrimary: i === 0,
        })),
        ...Array.from({ length: 3 }, (_, i) => ({
          recipeId: 'thirdparty',
          email: uniqueEmail('rt-max'),
          thirdPartyId: 'google',
          thirdPartyUserId: `${ext}-${i}`,
        })),
        ...Array.from({ length: 3 }, () => ({ recipeId: 'passwordless', email: uniqueEmail('rt-max'), phoneNumber: uniquePhone() })),
      ],
    };
    let status = 0;
    // Each role is read (consistently) before the transaction checks it is still the one read.
    expect(await callsOf(async () => (status = (await api.post('/bulk-import/import', body)).status))).toEqual({
      GetItem: 16,
      Query: 2,
      TransactWriteItems: 1,
    });
    expect([status, proxy.writes.transactional]).toEqual([200, 95]);
  });
});

describe('reading a primary user (issue #10: one Query, not one read per login method)', () => {
  it("GET /user/id of a primary user with three login methods: 1 Query by its id, 2 by a linked login method's id (its link, then the partition)", async () => {
    const email = uniqueEmail('rt-al');
    const ep = (await api.post('/recipe/signup', { email, password: 'pw-123456' })).json.user.id as string;
    const tp = (await api.post('/recipe/signinup', { thirdPartyId: 'google', thirdPartyUserId: `g-${email}`, email: { id: email, isVerified: true } })).json
      .user.id as string;
    const pl = (await passwordlessSignIn(api, { phoneNumber: uniquePhone() })).user.id as string;
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: ep })).json.status).toBe('OK');
    for (const id of [tp, pl]) expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: id, primaryUserId: ep })).json.status).toBe('OK');
    let byPrimary: { json: { user: { id: string; loginMethods: unknown[] } } } | undefined;
    expect(await callsOf(async () => (byPrimary = await api.get(`/user/id?userId=${ep}`)))).toEqual({ Query: 1 });
    expect([byPrimary!.json.user.id, byPrimary!.json.user.loginMethods.length]).toEqual([ep, 3]);
    let byLinked: { json: { user: unknown } } | undefined;
    expect(await callsOf(async () => (byLinked = await api.get(`/user/id?userId=${pl}`)))).toEqual({ Query: 2 });
    expect(byLinked!.json.user).toEqual(byPrimary!.json.user);
  });
});

describe('a resend racing a consume', () => {
  it('never leaves a code without its device: the consume reads the device again, or the resend finds it gone', async () => {
    for (let round = 0; round < 8; round++) {
      const code = await createCode(api, { email: uniqueEmail('race-resend') });
      const [consumed, resent] = await Promise.all([consumeLink(api, code), api.post('/recipe/signinup/code', { deviceId: code.deviceId })]);
      expect(consumed.json.status).toBe('OK');
      expect(['OK', 'RESTART_FLOW_ERROR']).toContain(resent.json.status);
    }
    // The consistency checker runs when the server stops (afterAll): an orphaned code fails it.
  });
});

describe('an index behind its table (the proxy answers gsi2 Queries)', () => {
  /**
   * A consume of a new code of `email` in the public tenant while the proxy answers the Queries of
   * the email's login methods with `items`: the calls it made, and its answer.
   */
  async function consumeWhileIndexShows(email: string, items: Record<string, unknown>[]) {
    const code = await createCode(api, { email });
    proxy.answerIndexQueries((request) =>
      (request.ExpressionAttributeValues as Record<string, { S?: string }>)[':pk']?.S === keys.usersWithEmail('public', email)
        ? { Items: items, Count: items.length, ScannedCount: items.length }
        : undefined,
    );
    let res: Awaited<ReturnType<typeof consumeLink>> | undefined;
    const calls = await callsOf(async () => (res = await consumeLink(api, code)));
    proxy.answerIndexQueries(undefined);
    return { calls, res: res! };
  }

  afterEach(() => proxy.answerIndexQueries(undefined));

  /** An item as the table holds it now. */
  async function storedItem(key: { pk: string; sk: string }): Promise<Record<string, AttributeValue> | undefined> {
    const doc = testDocClient();
    try {
      return (await doc.send(new GetItemCommand({ TableName: api.tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } } }))).Item;
    } finally {
      doc.destroy();
    }
  }

  it('missing the user: the new guard is taken, and the consume reads through the guard and signs the user in', async () => {
    const email = uniqueEmail('lag-miss');
    const user = (await passwordlessSignIn(api, { email })).user;
    const { calls, res } = await consumeWhileIndexShows(email, []);
    // The device, the index (nothing), the transaction (refused), the guard, the partition, the transaction.
    expect(calls).toEqual({ GetItem: 1, Query: 3, TransactWriteItems: 2 });
    expect(res.json).toMatchObject({ status: 'OK', createdNewUser: false, user: { id: user.id } });
    expect((await api.get(`/users/by-accountinfo?email=${encodeURIComponent(email)}`)).json.users).toHaveLength(1);
  });

  it('with an entry whose snapshot is of an older version: the transaction refuses it, and the consume answers the user as it is now', async () => {
    const tenantId = `lag-${Date.now().toString(36)}`;
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
    const email = uniqueEmail('lag-entry');
    const userId = (await api.post('/bulk-import/import', { loginMethods: [{ recipeId: 'passwordless', email, tenantIds: [tenantId, 'public'] }] })).json.user
      .id as string;
    const old = await storedItem(keys.emailEntry(userId, 'public', userId));
    expect(old?.snapshot?.M?.version?.N).toBe('1');
    // A consume writes the login method (its mark, version 2) and the entry's snapshot with it.
    await passwordlessSignIn(api, { email });
    const { calls, res } = await consumeWhileIndexShows(email, [old!]);
    // The device, the index (the old snapshot), the transaction (refused), the guard, the partition, the transaction.
    expect(calls).toEqual({ GetItem: 1, Query: 3, TransactWriteItems: 2 });
    expect([res.json.status, res.json.user]).toEqual(['OK', (await api.get(`/user/id?userId=${userId}`)).json.user]);
  });

  it("with an older version of a primary user's login method: its update is refused, and the consume answers the user as it is now", async () => {
    const email = uniqueEmail('lag-primary');
    const userId = (await passwordlessSignIn(api, { email })).user.id as string;
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: userId })).json.status).toBe('OK');
    const old = await storedItem(keys.loginMethod(userId, userId));
    expect(old?.primaryUserId?.S).toBe(userId);
    await passwordlessSignIn(api, { email });
    const { calls, res } = await consumeWhileIndexShows(email, [old!]);
    // The device, the index (old), the user beside the transaction (refused), the guard, the partition, the transaction.
    expect(calls).toEqual({ GetItem: 1, Query: 4, TransactWriteItems: 2 });
    expect([res.json.status, res.json.user]).toEqual(['OK', (await api.get(`/user/id?userId=${userId}`)).json.user]);
    expect(res.json.user.isPrimaryUser).toBe(true);
  });

  it('with a login method linked when the index was read and unlinked since: the update finds no item and is refused; the consume signs in the user it is now', async () => {
    const email = uniqueEmail('lag-unlinked');
    const owner = (await api.post('/recipe/signup', { email: uniqueEmail('lag-owner'), password: 'pw-123456' })).json.user.id as string;
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: owner })).json.status).toBe('OK');
    const linked = (await passwordlessSignIn(api, { email })).user.id as string;
    expect((await api.post('/recipe/accountlinking/user/link', { recipeUserId: linked, primaryUserId: owner })).json.status).toBe('OK');
    const old = await storedItem(keys.loginMethod(owner, linked));
    expect(old?.primaryUserId?.S).toBe(owner);
    expect((await api.post('/recipe/accountlinking/user/unlink', { recipeUserId: linked })).json.status).toBe('OK');
    const { calls, res } = await consumeWhileIndexShows(email, [old!]);
    expect(calls).toEqual({ GetItem: 1, Query: 4, TransactWriteItems: 2 });
    expect([res.json.status, res.json.recipeUserId, res.json.user]).toEqual(['OK', linked, (await api.get(`/user/id?userId=${linked}`)).json.user]);
    expect([res.json.user.id, res.json.user.isPrimaryUser]).toEqual([linked, false]);
    // Nothing was written under the primary user's partition for it.
    expect(await storedItem(keys.loginMethod(owner, linked))).toBeUndefined();
  });

  it('with an older version of the login method: the transaction refuses it, and the consume answers the user as it is now', async () => {
    const email = uniqueEmail('lag-old');
    const user = (await passwordlessSignIn(api, { email })).user;
    const old = await storedItem(keys.loginMethod(user.id, user.id));
    expect(Number(old?.version?.N)).toBeGreaterThan(0);
    const phoneNumber = uniquePhone();
    expect((await api.put('/recipe/user', { userId: user.id, email, phoneNumber }, { rid: 'passwordless' })).json).toEqual({ status: 'OK' });
    const { calls, res } = await consumeWhileIndexShows(email, [old!]);
    // The device, the index (old), the transaction (refused), the guard, the partition, the transaction.
    expect(calls).toEqual({ GetItem: 1, Query: 3, TransactWriteItems: 2 });
    expect(res.json).toMatchObject({ status: 'OK', createdNewUser: false, user: { id: user.id, phoneNumbers: [phoneNumber] } });
  });
});

describe("signing in through a tenant's provider stored in the core (SPEC §22): supertokens-node 24's whole FDI sign-in", () => {
  const SECRETS = { 'rt-client': 'rt-client-secret-0123456789' };
  const TENANT = `rt-sso-${Date.now().toString(36)}`;
  let idp: OAuthStandIn;
  let app: Server;
  let appUrl: string;
  /** The core calls the SDK made (`METHOD /path`), each with how many DynamoDB requests the proxy had seen when it was sent. */
  const sdkCalls: { call: string; from: number }[] = [];

  beforeAll(async () => {
    idp = await startOAuthStandIn(SECRETS);
    supertokens.init({
      framework: 'express',
      supertokens: {
        connectionURI: api.baseUrl,
        apiKey: TEST_API_KEY,
        networkInterceptor: (request) => {
          sdkCalls.push({ call: `${request.method.toUpperCase()} ${new URL(request.url).pathname}`, from: proxy.arrivals.length });
          return request;
        },
      },
      appInfo: { appName: 'rt-sso', apiDomain: 'http://api.example.test', websiteDomain: 'http://app.example.test', apiBasePath: '/auth' },
      recipeList: [ThirdParty.init(), Session.init()],
    });
    const server = express();
    server.use(middleware());
    server.use(errorHandler());
    app = await new Promise<Server>((resolve) => {
      const s = server.listen(0, '127.0.0.1', () => resolve(s));
    });
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId: TENANT })).json.status).toBe('OK');
    const provider = {
      thirdPartyId: 'okta-rt',
      clients: [{ clientId: 'rt-client', clientSecret: SECRETS['rt-client'] }],
      authorizationEndpoint: `${idp.base}/authorize`,
      tokenEndpoint: idp.tokenEndpoint,
      userInfoEndpoint: idp.userInfoEndpoint,
    };
    for (const tenantId of [TENANT, 'public']) {
      expect((await api.put(`/${tenantId}/recipe/multitenancy/config/thirdparty`, { config: provider })).json.status).toBe('OK');
    }
  });
  afterAll(async () => {
    await new Promise((resolve) => app.close(resolve));
    await idp.stop();
    await api.post('/recipe/multitenancy/config/thirdparty/remove', { thirdPartyId: 'okta-rt' });
  });

  /** The FDI sign-in-up of a browser back from the provider, header mode. */
  async function signInUp(tenantId: string, email: string): Promise<Record<string, any>> {
    const res = await fetch(`${appUrl}/auth${tenantId === 'public' ? '' : `/${tenantId}`}/signinup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', rid: 'thirdparty', 'st-auth-mode': 'header' },
      body: JSON.stringify({
        thirdPartyId: 'okta-rt',
        redirectURIInfo: { redirectURIOnProviderDashboard: 'http://app.example.test/cb', redirectURIQueryParams: { code: idp.codeFor(email, 'rt-client') } },
      }),
    });
    return (await res.json()) as Record<string, any>;
  }

  /**
   * Each core call of `flow`, in order, with the DynamoDB calls made while it was the last one
   * sent (the SDK waits for each answer before its next call, and nothing else calls the core).
   */
  async function perCoreCall(flow: () => Promise<unknown>): Promise<[string, Record<string, number>][]> {
    proxy.reset();
    sdkCalls.length = 0;
    await flow();
    const ops = proxy.arrivals.map((a) => a.operation);
    return sdkCalls.map(({ call, from }, i) => {
      const mine = ops.slice(from, sdkCalls[i + 1]?.from ?? ops.length);
      const tally: Record<string, number> = {};
      for (const op of [...mine].sort()) tally[op] = (tally[op] ?? 0) + 1;
      return [call, tally];
    });
  }

  /**
   * The SDK's core calls of a sign-in-up through a stored provider, each with its DynamoDB calls.
   * The tenant GET (the provider's config): none from the GET function's cache, 1 Query past it.
   * Then `GET /users/by-accountinfo` 3 times (a 4th for a user that exists: its account-linking
   * checks), `POST /recipe/signinup`, `GET /user/id` and the session. Outside public, each request
   * in the tenant other than the (cached) GET also reads that the tenant exists (1 GetItem).
   */
  it.each([
    ['public', 'public'],
    ['another tenant', TENANT],
  ])('in %s: a sign-up and a sign-in, every DynamoDB call of every core call; the tenant read 1 Query past its cache', async (label, tenantId) => {
    const inTenant = (calls: Record<string, number>): Record<string, number> => (label === 'public' ? calls : { ...calls, GetItem: (calls.GetItem ?? 0) + 1 });
    const prefix = `/${tenantId}`;
    const [getTenant, byAccountInfo] = [`GET ${prefix}/recipe/multitenancy/tenant/v2`, `GET ${prefix}/users/by-accountinfo`];
    // Warm: every function of the flow has run once (the session's keys read, the tenant cached).
    expect((await signInUp(tenantId, uniqueEmail('rt-sso-warm'))).status).toBe('OK');
    const email = uniqueEmail('rt-sso');
    let res: Record<string, any> | undefined;
    const signUp = await perCoreCall(async () => (res = await signInUp(tenantId, email)));
    expect([res?.status, res?.createdNewRecipeUser]).toEqual(['OK', true]);
    // The tenant GET is answered from the cache the warm-up filled, or with its 1 Query when a
    // loaded machine took more than the cache's 5 s since (the cache alone: the test above, on a clock it moves).
    expect([{}, { Query: 1 }]).toContainEqual(signUp[0]?.[1]);
    expect(signUp).toEqual([
      [getTenant, signUp[0]?.[1]],
      // The third-party identity (its guard); with the email, also the email's login methods (gsi2); then the identity alone.
      [byAccountInfo, inTenant({ GetItem: 1 })],
      [byAccountInfo, inTenant({ GetItem: 1, Query: 1 })],
      [byAccountInfo, inTenant({ GetItem: 1 })],
      // The guard with its snapshot, then the user's transaction.
      [`POST ${prefix}/recipe/signinup`, inTenant({ GetItem: 1, TransactWriteItems: 1 })],
      ['GET /user/id', { Query: 1 }],
      [`POST ${prefix}/recipe/session`, inTenant({ BatchGetItem: 1, PutItem: 1 })],
    ]);
    const signIn = await perCoreCall(async () => (res = await signInUp(tenantId, email)));
    expect([res?.status, res?.createdNewRecipeUser]).toEqual(['OK', false]);
    expect([{}, { Query: 1 }]).toContainEqual(signIn[0]?.[1]);
    expect(signIn).toEqual([
      [getTenant, signIn[0]?.[1]],
      // The identity's guard, then its user's partition; with the email, also the email's login methods (gsi2).
      [byAccountInfo, inTenant({ GetItem: 1, Query: 1 })],
      [byAccountInfo, inTenant({ GetItem: 1, Query: 2 })],
      [byAccountInfo, inTenant({ GetItem: 1, Query: 1 })],
      // The email alone (the SDK's account-linking check of an existing user): its login methods in gsi2.
      [byAccountInfo, inTenant({ Query: 1 })],
      // The guard with its snapshot: the user is there, nothing written.
      [`POST ${prefix}/recipe/signinup`, inTenant({ GetItem: 1 })],
      ['GET /user/id', { Query: 1 }],
      [`POST ${prefix}/recipe/session`, inTenant({ BatchGetItem: 1, PutItem: 1 })],
    ]);
    // Past the GET function's cache, the SDK's tenant read is 1 Query: the tenant with its providers.
    await pastTenantCache(Date.now());
    const cold = await perCoreCall(async () => (res = await signInUp(tenantId, email)));
    expect(cold).toEqual([[getTenant, { Query: 1 }], ...signIn.slice(1)]);
  });

  it("the SDK's own reads of a tenant with stored providers: Multitenancy.getTenant 1 Query, then none from the cache; listAllTenants 1 Query", async () => {
    const tenantId = `${TENANT}-read`;
    expect((await api.put('/recipe/multitenancy/tenant/v2', { tenantId })).json.status).toBe('OK');
    for (const id of ['okta-a', 'okta-b']) {
      const config = { thirdPartyId: id, clients: [{ clientId: `${id}-client`, clientSecret: `${id}-secret` }], oidcDiscoveryEndpoint: idp.base };
      expect((await Multitenancy.createOrUpdateThirdPartyConfig(tenantId, config)).status).toBe('OK');
    }
    let tenant: Awaited<ReturnType<typeof Multitenancy.getTenant>>;
    expect(await callsOf(async () => (tenant = await Multitenancy.getTenant(tenantId)))).toEqual({ Query: 1 });
    expect(tenant?.thirdParty.providers.map((p) => p.thirdPartyId)).toEqual(['okta-a', 'okta-b']);
    expect(await callsOf(() => Multitenancy.getTenant(tenantId))).toEqual({});
    let all: Awaited<ReturnType<typeof Multitenancy.listAllTenants>> | undefined;
    expect(await callsOf(async () => (all = await Multitenancy.listAllTenants()))).toEqual({ Query: 1 });
    expect(all?.tenants.find((t) => t.tenantId === tenantId)?.thirdParty.providers).toHaveLength(2);
    expect((await api.post('/recipe/multitenancy/tenant/remove', { tenantId })).json).toEqual({ status: 'OK', didExist: true });
  });
});

describe('WebAuthn (SPEC §21)', () => {
  it('options 1 (2 for registration, the email’s users read beside the write); sign-up 2; sign-in 2, its repeat 2, a primary user’s 3', async () => {
    const wa = webauthnClient(api);
    const auth = new SoftAuthenticator();
    const email = uniqueEmail('rt-wa');
    let options: { json: any } | undefined;
    // The options' PutItem, beside the Query of gsi2 for a user holding the email (user.id).
    expect(await callsOf(async () => (options = await wa.registerOptions({ email })))).toEqual({ PutItem: 1, Query: 1 });
    // The options (GetItem), then one transaction: the login method, its email guard, the passkey's guard and key.
    let signedUp: { json: any } | undefined;
    expect(
      await callsOf(async () => (signedUp = await wa.signUp(options!.json.webauthnGeneratedOptionsId, auth.register(wa.ceremony(options!.json))))),
    ).toEqual({
      GetItem: 1,
      TransactWriteItems: 1,
    });
    expect(await callsOf(async () => (options = await wa.signInOptions()))).toEqual({ PutItem: 1 });
    const assertion = auth.assert(wa.ceremony(options!.json));
    // One BatchGetItem: the options, the passkey's guard (whose snapshot is the user) and its key;
    // then one transaction spending the options and storing the counter, both conditional.
    expect(await callsOf(async () => expect((await wa.signIn(options!.json.webauthnGeneratedOptionsId, assertion)).json.status).toBe('OK'))).toEqual({
      BatchGetItem: 1,
      TransactWriteItems: 1,
    });
    // The SDK's doubled call: the same read, then one UpdateItem counting the repeat.
    expect(await callsOf(async () => expect((await wa.signIn(options!.json.webauthnGeneratedOptionsId, assertion)).json.status).toBe('OK'))).toEqual({
      BatchGetItem: 1,
      UpdateItem: 1,
    });
    // A third: the read alone.
    expect(await callsOf(() => wa.signIn(options!.json.webauthnGeneratedOptionsId, assertion))).toEqual({ BatchGetItem: 1 });
    const id = signedUp!.json.recipeUserId as string;
    // Passkeys: list 2 (the user, then the keys in one BatchGetItem), get 1, remove 3.
    expect(await callsOf(() => wa.list(id))).toEqual({ Query: 1, BatchGetItem: 1 });
    expect(await callsOf(() => wa.getCredential(id, auth.id))).toEqual({ Query: 1 });
    // A primary user's passkey: its partition is read beside the write (3 calls, still 2 round trips).
    expect((await api.post('/recipe/accountlinking/user/primary', { recipeUserId: id })).json.status).toBe('OK');
    const { res } = await (async () => {
      const o = (await wa.signInOptions()).json;
      const a = auth.assert(wa.ceremony(o));
      let r: { json: any } | undefined;
      const calls = await callsOf(async () => (r = await wa.signIn(o.webauthnGeneratedOptionsId, a)));
      expect(calls).toEqual({ BatchGetItem: 1, Query: 1, TransactWriteItems: 1 });
      return { res: r! };
    })();
    expect(res.json.user.isPrimaryUser).toBe(true);
    expect(await callsOf(() => wa.removeCredential(id, auth.id))).toEqual({ Query: 2, TransactWriteItems: 1 });
  });

  it('recovery: a token 2, its user 2, a consume 4, a refused consume 1; the email update 2', async () => {
    const wa = webauthnClient(api);
    const email = uniqueEmail('rt-wa-rc');
    const id = (await wa.signUpWith(new SoftAuthenticator(), email)).json.recipeUserId as string;
    let token = '';
    // The user's partition, then one transaction: the token and its entry among the email's tokens.
    expect(await callsOf(async () => (token = (await wa.recoverToken(id, email)).json.token))).toEqual({ Query: 1, TransactWriteItems: 1 });
    // The token, then the user's partition.
    expect(await callsOf(async () => expect((await wa.recoverUser(token)).json.recipeUserId).toBe(id))).toEqual({ GetItem: 1, Query: 1 });
    // The token; the email's tokens beside the user; one transaction deleting them all, the token only if still there.
    expect(await callsOf(async () => expect((await wa.consumeToken(token)).json.status).toBe('OK'))).toEqual({ GetItem: 1, Query: 2, TransactWriteItems: 1 });
    expect(await callsOf(async () => expect((await wa.consumeToken(token)).json.status).toBe('RECOVER_ACCOUNT_TOKEN_INVALID_ERROR'))).toEqual({ GetItem: 1 });
    // The user's partition, then one transaction moving the email guard; the same email: the read alone.
    const moved = uniqueEmail('rt-wa-moved');
    expect(await callsOf(async () => expect((await wa.updateEmail(id, moved)).json.status).toBe('OK'))).toEqual({ Query: 1, TransactWriteItems: 1 });
    expect(await callsOf(async () => expect((await wa.updateEmail(id, moved)).json.status).toBe('OK'))).toEqual({ Query: 1 });
  });
});
