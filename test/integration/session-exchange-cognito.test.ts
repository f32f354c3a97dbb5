import { randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { startApi, type TestApi } from '../support/api';
import { useCognitoLocal, type CognitoClient } from '../support/cognito-local';
import { importMappedUser } from '../support/key-server';

/**
 * SPEC §19's `cognito` preset against tokens that cognito-local issues and publishes the keys of
 * (see test/support/cognito-local.ts for how they differ from Cognito's: the `iss` and the JWKS URL,
 * given here as the `issuer` and `jwksUri` overrides). Three pools, one per configured issuer: ID
 * tokens, access tokens, and one whose keys are never fetched before cognito-local stops.
 */

const EXCHANGE = '/recipe/migration/session/exchange';
const PASSWORD = 'Correct-horse-1';

let api: TestApi;
let idPool: string;
let accessPool: string;
let coldPool: string;
/** The configured client of each pool, and another client of the same pool (not configured). */
let idClient: CognitoClient;
let idOther: CognitoClient;
let accessClient: CognitoClient;
let accessOther: CognitoClient;
let coldClient: CognitoClient;

const exchange = (token: string) => api.post(EXCHANGE, { token });

const cognitoIt = useCognitoLocal('the cognito-local session exchange tests', async (cognito) => {
  idPool = await cognito.createUserPool();
  accessPool = await cognito.createUserPool();
  coldPool = await cognito.createUserPool();
  idClient = await cognito.createClient(idPool);
  idOther = await cognito.createClient(idPool, { secret: true });
  accessClient = await cognito.createClient(accessPool, { secret: true });
  accessOther = await cognito.createClient(accessPool);
  coldClient = await cognito.createClient(coldPool);
  const preset = (id: string, pool: string, clientId: string, tokenUse: string) => ({
    id,
    preset: 'cognito',
    region: 'local',
    userPoolId: pool,
    clientId,
    tokenUse,
    issuer: cognito.issuerOf(pool),
    jwksUri: cognito.jwksUriOf(pool),
  });
  const issuers = [
    preset('cog-id', idPool, idClient.clientId, 'id'),
    preset('cog-access', accessPool, accessClient.clientId, 'access'),
    preset('cog-cold', coldPool, coldClient.clientId, 'id'),
  ];
  api = await startApi({ SESSION_EXCHANGE_ISSUERS: JSON.stringify(issuers) });
});

afterAll(async () => {
  await api?.stop();
});

describe('POST /recipe/migration/session/exchange with cognito-local (SPEC §19, preset cognito)', () => {
  cognitoIt(
    "exchanges an ID token for the user imported with the Cognito sub as external id; issues tokens as the support module's doc says",
    async (cognito) => {
      const email = `${randomUUID()}@example.test`;
      const sub = await cognito.createUser(idPool, email, PASSWORD);
      const { idToken, accessToken } = await cognito.signIn(idClient, email, PASSWORD);
      // The shape test/support/cognito-local.ts records.
      expect(decodeProtectedHeader(idToken)).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'CognitoLocal' });
      const id = decodeJwt(idToken);
      expect(id).toMatchObject({
        iss: cognito.issuerOf(idPool),
        aud: idClient.clientId,
        sub,
        token_use: 'id',
        'cognito:username': sub,
        email,
        email_verified: true,
      });
      expect(id.auth_time).toBe(id.iat);
      const access = decodeJwt(accessToken);
      expect(access).toMatchObject({ iss: cognito.issuerOf(idPool), client_id: idClient.clientId, sub, token_use: 'access', username: sub });
      expect(access.aud).toBeUndefined();
      const jwks = (await (await fetch(cognito.jwksUriOf(idPool))).json()) as { keys: unknown[] };
      expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', kid: 'CognitoLocal', alg: 'RS256', use: 'sig' })]);

      const stId = await importMappedUser(api, sub, email);
      const res = await exchange(idToken);
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({
        status: 'OK',
        recipeUserId: sub,
        externalUserId: sub,
        tenantId: 'public',
        issuer: 'cog-id',
        authTime: (id.auth_time as number) * 1000,
      });
      expect(res.json.user.id).toBe(sub);
      expect(res.json.user.emails).toEqual([email]);
      expect(res.text).not.toContain(idToken);
      expect(stId).not.toBe(sub);
      expect((await exchange(idToken)).json).toEqual({ status: 'TOKEN_ALREADY_USED_ERROR' });
    },
  );

  cognitoIt('refuses, under tokenUse id, an access token and an ID token of another app client of the pool', async (cognito) => {
    const email = `${randomUUID()}@example.test`;
    const sub = await cognito.createUser(idPool, email, PASSWORD);
    await importMappedUser(api, sub);
    const refused = { status: 'INVALID_TOKEN_ERROR', reason: "The token's audience is not accepted" };
    expect((await exchange((await cognito.signIn(idClient, email, PASSWORD)).accessToken)).json).toEqual(refused);
    // A client with a secret: SECRET_HASH sent, its ID token's aud is that client.
    expect((await exchange((await cognito.signIn(idOther, email, PASSWORD)).idToken)).json).toEqual(refused);
    // Not consumed by the refusals: the right token still works.
    expect((await exchange((await cognito.signIn(idClient, email, PASSWORD)).idToken)).json.status).toBe('OK');
  });

  cognitoIt("exchanges, under tokenUse access, an access token by its client_id, and refuses ID tokens and other clients' tokens", async (cognito) => {
    const email = `${randomUUID()}@example.test`;
    const sub = await cognito.createUser(accessPool, email, PASSWORD);
    await importMappedUser(api, sub);
    const refused = { status: 'INVALID_TOKEN_ERROR', reason: "The token's audience is not accepted" };
    const mine = await cognito.signIn(accessClient, email, PASSWORD);
    expect((await exchange(mine.idToken)).json).toEqual(refused);
    expect((await exchange((await cognito.signIn(accessOther, email, PASSWORD)).accessToken)).json).toEqual(refused);
    const res = await exchange(mine.accessToken);
    expect(res.json).toMatchObject({ status: 'OK', externalUserId: sub, issuer: 'cog-access' });
    expect(res.json.authTime).toBe((decodeJwt(mine.accessToken).auth_time as number) * 1000);
  });

  cognitoIt('answers UNKNOWN_USER_ERROR for a Cognito user not imported yet', async (cognito) => {
    const email = `${randomUUID()}@example.test`;
    await cognito.createUser(idPool, email, PASSWORD);
    expect((await exchange((await cognito.signIn(idClient, email, PASSWORD)).idToken)).json).toEqual({ status: 'UNKNOWN_USER_ERROR' });
  });

  // Last: it stops cognito-local.
  cognitoIt('answers 503 once cognito-local is stopped for a pool whose keys were never fetched, OK for one whose keys are cached', async (cognito) => {
    const cold = `${randomUUID()}@example.test`;
    const coldSub = await cognito.createUser(coldPool, cold, PASSWORD);
    await importMappedUser(api, coldSub);
    const coldToken = (await cognito.signIn(coldClient, cold, PASSWORD)).idToken;
    const warm = `${randomUUID()}@example.test`;
    await importMappedUser(api, await cognito.createUser(idPool, warm, PASSWORD));
    const warmToken = (await cognito.signIn(idClient, warm, PASSWORD)).idToken;
    await cognito.stop();

    const res = await exchange(coldToken);
    expect([res.status, res.text]).toEqual([503, "The token issuer's keys could not be fetched, try again later"]);
    const line = await api.logLine((l) => l.includes('session exchange keys unavailable') && l.includes('cog-cold'));
    expect(line).toContain('request failed');
    expect(api.logs.join('\n')).not.toContain(coldToken.split('.')[2]);
    // Nothing was kept from the failure: the next try fetches again, and fails again.
    expect((await exchange(coldToken)).status).toBe(503);
    // The keys fetched by the tests above are kept: the old provider's outage does not stop those exchanges.
    expect((await exchange(warmToken)).json).toMatchObject({ status: 'OK', issuer: 'cog-id' });
  });
});
