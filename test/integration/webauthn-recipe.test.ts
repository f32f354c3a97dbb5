import { randomBytes } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureTable } from '../../local/create-table';
import { configFromEnv } from '../../lib/config/config';
import { cryptoRandom, type Clock, type Deps } from '../../lib/recipes/deps';
import { getGeneratedOptions } from '../../lib/recipes/webauthn/get-generated-options';
import { registerCredential } from '../../lib/recipes/webauthn/register-credential';
import { registerOptions } from '../../lib/recipes/webauthn/register-options';
import { signIn } from '../../lib/recipes/webauthn/sign-in';
import { signInOptions } from '../../lib/recipes/webauthn/sign-in-options';
import { signUp } from '../../lib/recipes/webauthn/sign-up';
import { consumeRecoverAccountToken, generateRecoverAccountToken, getUserFromRecoverAccountToken } from '../../lib/recipes/webauthn/recover-account';
import { DynamoUserLookups } from '../../lib/storage/dynamo/dynamo-user-lookups';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';
import { DynamoWebauthnRecoveryStore } from '../../lib/storage/dynamo/dynamo-webauthn-recovery-store';
import { checkConsistency } from '../../lib/storage/dynamo/consistency';
import { createDynamoContext, type DynamoContext } from '../../lib/storage/dynamo/transact';
import { RP, SoftAuthenticator } from '../support/webauthn';
import { testDynamoClient } from '../support/table';

/**
 * The WebAuthn rules that hang on time (SPEC §21): options expire at `createdAt + timeout`,
 * judged on every read (never by DynamoDB's TTL), with a clock the test moves: no sleeping.
 */
let client: DynamoDBClient;
let ctx: DynamoContext;
beforeAll(async () => {
  client = testDynamoClient();
  const tableName = `test-webauthn-recipe-${randomBytes(4).toString('hex')}`;
  await ensureTable(client, tableName, { stream: false });
  ctx = createDynamoContext(tableName, client);
});
afterAll(async () => {
  try {
    expect(await checkConsistency(ctx)).toEqual([]);
  } finally {
    client.destroy();
  }
});

const START = 1_800_000_000_000;
const clock: Clock & { ms: number } = { ms: START, now: () => clock.ms };
const deps = (env: Record<string, string> = {}): Pick<Deps, 'webauthn' | 'webauthnRecovery' | 'users' | 'userLookups' | 'clock' | 'random' | 'config'> => ({
  webauthn: new DynamoWebauthnStore(ctx),
  webauthnRecovery: new DynamoWebauthnRecoveryStore(ctx),
  users: new DynamoUserStore(ctx),
  userLookups: new DynamoUserLookups(ctx),
  clock,
  random: cryptoRandom,
  config: configFromEnv(env, {}),
});
const common = { ...RP, timeout: 60_000, userVerification: 'preferred', userPresence: false };
const ceremony = (o: { challenge: string }) => ({ challenge: o.challenge, rpId: RP.relyingPartyId, origin: RP.origin });
let n = 0;

async function registration(email = `recipe-${++n}@example.com`) {
  const o = await registerOptions(deps(), 'public', {
    ...common,
    email,
    displayName: email,
    attestation: 'none',
    residentKey: 'required',
    supportedAlgorithmIds: [-7],
  });
  if (o.status !== 'OK') throw new Error(o.status);
  return o;
}

async function signedUp(auth = new SoftAuthenticator()) {
  const o = await registration();
  const res = await signUp(deps(), 'public', o.webauthnGeneratedOptionsId, auth.register(ceremony(o)));
  if (res.status !== 'OK') throw new Error(res.status);
  return { auth, id: res.recipeUserId, email: o.email };
}

describe('options expire at createdAt + timeout, judged on read', () => {
  it('refuses a sign-up a millisecond after expiry, accepts one at expiry; GET options still answers', async () => {
    clock.ms = START;
    const auth = new SoftAuthenticator();
    const o = await registration();
    expect(o.expiresAt).toBe(START + 60_000);
    const credential = auth.register(ceremony(o));
    clock.ms = START + 60_001;
    expect(await signUp(deps(), 'public', o.webauthnGeneratedOptionsId, credential)).toEqual({ status: 'INVALID_OPTIONS_ERROR', reason: 'Options expired' });
    expect((await getGeneratedOptions(deps(), 'public', o.webauthnGeneratedOptionsId)).status).toBe('OK');
    clock.ms = START + 60_000;
    expect((await signUp(deps(), 'public', o.webauthnGeneratedOptionsId, credential)).status).toBe('OK');
  });

  it('refuses a sign-in and a credential registration on expired options, and the repeat once they expired', async () => {
    clock.ms = START;
    const { auth, id, email } = await signedUp();
    const o = await signInOptions(deps(), 'public', common);
    if (o.status !== 'OK') throw new Error(o.status);
    const assertion = auth.assert(ceremony(o));
    expect((await signIn(deps(), 'public', o.webauthnGeneratedOptionsId, assertion)).status).toBe('OK');
    clock.ms = START + 60_001;
    expect(await signIn(deps(), 'public', o.webauthnGeneratedOptionsId, assertion)).toEqual({ status: 'INVALID_OPTIONS_ERROR', reason: 'Options expired' });
    const late = await signInOptions(deps(), 'public', { ...common, timeout: 0 });
    if (late.status !== 'OK') throw new Error(late.status);
    clock.ms += 1;
    expect(await signIn(deps(), 'public', late.webauthnGeneratedOptionsId, auth.assert(ceremony(late)))).toEqual({
      status: 'INVALID_OPTIONS_ERROR',
      reason: 'Options expired',
    });
    clock.ms = START;
    const reg = await registerOptions(deps(), 'public', {
      ...common,
      email,
      displayName: email,
      attestation: 'none',
      residentKey: 'required',
      supportedAlgorithmIds: [-7],
    });
    if (reg.status !== 'OK') throw new Error(reg.status);
    clock.ms = START + 120_000;
    expect(await registerCredential(deps(), id, reg.webauthnGeneratedOptionsId, new SoftAuthenticator().register(ceremony(reg)))).toEqual({
      status: 'INVALID_OPTIONS_ERROR',
      reason: 'Options expired',
    });
  });

  it('checks expiry after the passkey is found, as the core orders it', async () => {
    clock.ms = START;
    const o = await signInOptions(deps(), 'public', common);
    if (o.status !== 'OK') throw new Error(o.status);
    clock.ms = START + 600_000;
    expect(await signIn(deps(), 'public', o.webauthnGeneratedOptionsId, new SoftAuthenticator().assert(ceremony(o)))).toEqual({
      status: 'CREDENTIAL_NOT_FOUND_ERROR',
    });
  });
});

describe('recovery tokens live WEBAUTHN_RECOVER_ACCOUNT_TOKEN_LIFETIME ms, judged on read', () => {
  async function token(env: Record<string, string> = {}) {
    const { id, email } = await signedUp();
    const made = await generateRecoverAccountToken(deps(env), 'public', id, email);
    if (made.status !== 'OK') throw new Error(made.status);
    return { id, email, token: made.token };
  }

  it('lasts an hour by default: good at its expiry millisecond, invalid a millisecond after, for the user and consume', async () => {
    clock.ms = START;
    const { id, email, token: t } = await token();
    clock.ms = START + 3_600_001;
    expect(await getUserFromRecoverAccountToken(deps(), 'public', t)).toEqual({ status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' });
    expect(await consumeRecoverAccountToken(deps(), 'public', t)).toEqual({ status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' });
    // Left to TTL, not consumed: at its expiry it is still good.
    clock.ms = START + 3_600_000;
    expect((await getUserFromRecoverAccountToken(deps(), 'public', t)).status).toBe('OK');
    expect(await consumeRecoverAccountToken(deps(), 'public', t)).toEqual({ status: 'OK', userId: id, email });
  });

  it('takes its lifetime from the configuration', async () => {
    clock.ms = START;
    const { token: t } = await token({ WEBAUTHN_RECOVER_ACCOUNT_TOKEN_LIFETIME: '60000' });
    clock.ms = START + 60_001;
    expect(await consumeRecoverAccountToken(deps(), 'public', t)).toEqual({ status: 'RECOVER_ACCOUNT_TOKEN_INVALID_ERROR' });
    clock.ms = START + 60_000;
    expect((await consumeRecoverAccountToken(deps(), 'public', t)).status).toBe('OK');
  });
});
