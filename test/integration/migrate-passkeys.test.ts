import { createHash, createPrivateKey, sign } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startApi, type TestApi } from '../support/api';
import { countingForwarder, migrate, rowCount, userCount, withoutProgress, type CountingForwarder, type Run } from '../support/migrate-e2e';
import { scratchDir } from '../support/scratch';

/**
 * Passkeys carried over end to end (SPEC §21): the built command on test/fixtures/passkeys against
 * the local service and its bulk worker. After each source's run, every carried passkey signs in
 * (`POST /recipe/webauthn/signin`) as the imported user, its external id, with an assertion signed
 * by the fixture's private key as the old authenticator would (counter above the exported one),
 * after the user's password signed in (Keycloak) or its email found it (Supabase: magic link);
 * a passkey not carried is unknown to the service. Every run through a forwarder that counts the
 * requests: the unchanged re-run sends none (SPEC §17c), not even the RP-id probe. A later export
 * that adds a passkey: a new webauthn login method is added and linked (it signs in), a passkey
 * added to one the service holds is reported; `migrate verify` sees each carried passkey by its
 * credential id, with GETs only. A service whose WEBAUTHN_RP_ID lacks the export's RP id: exit
 * 2, nothing written. No key (public or private), hash or salt in the report, the ledger or the
 * terminal.
 */
const FIXTURES = join(__dirname, '..', 'fixtures', 'passkeys');
const dir = scratchDir('migrate-passkeys-e2e-');
const json = (...p: string[]) => JSON.parse(readFileSync(join(FIXTURES, ...p), 'utf8'));
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest();

const RUNS = {
  keycloak: ['keycloak', join(FIXTURES, 'keycloak', 'realm-export')],
  supabase: [
    'supabase',
    join(FIXTURES, 'supabase', 'users.csv'),
    '--identities',
    join(FIXTURES, 'supabase', 'identities.csv'),
    '--webauthn-credentials',
    join(FIXTURES, 'supabase', 'webauthn_credentials.csv'),
    '--webauthn-rp-id',
    'sb-dev.example',
  ],
} as const;

interface FixtureKey {
  sourceId: string;
  rpId: string;
  alg: string;
  counter: number;
  privateKeyPkcs8: string;
}

/** A sign-in with the old authenticator: options for its RP id, an assertion signed with the fixture's key. */
async function signInWithFixtureKey(api: TestApi, credentialId: string, key: FixtureKey, counter: number) {
  const origin = `https://${key.rpId}`;
  const options = (await api.post('/recipe/webauthn/options/signin', { relyingPartyId: key.rpId, relyingPartyName: 'Dev', origin })).json;
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter);
  const authData = Buffer.concat([sha256(key.rpId), Buffer.from([0x05]), count]);
  const clientDataJSON = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: options.challenge, origin, crossOrigin: false }));
  const privateKey = createPrivateKey(key.privateKeyPkcs8);
  const signature = sign(key.alg === 'EdDSA' ? null : 'sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey);
  const credential = {
    id: credentialId,
    rawId: credentialId,
    type: 'public-key',
    response: {
      clientDataJSON: clientDataJSON.toString('base64url'),
      authenticatorData: authData.toString('base64url'),
      signature: signature.toString('base64url'),
    },
    clientExtensionResults: {},
  };
  return (await api.post('/recipe/webauthn/signin', { webauthnGeneratedOptionsId: options.webauthnGeneratedOptionsId, credential })).json;
}

/** Every file the runs wrote, and what they printed: none holds a key, a hash or a salt. */
function expectNoSecret(runs: Run[], source: 'keycloak' | 'supabase'): void {
  const written = readdirSync(dir)
    .filter((f) => f.endsWith('.json') || f.endsWith('.ndjson'))
    .map((f) => readFileSync(join(dir, f), 'utf8'));
  const text = [...written, ...runs.flatMap((r) => [r.stdout, r.stderr])].join('\n');
  const secrets: string[] = [];
  for (const key of Object.values(json(source, 'private-keys.json').keys) as FixtureKey[]) {
    secrets.push(...key.privateKeyPkcs8.split('\n').filter((l) => l.length > 40));
  }
  if (source === 'keycloak') {
    for (const u of json('keycloak', 'realm-export', 'devpk-users-0.json').users) {
      for (const c of u.credentials) {
        const secret = JSON.parse(c.secretData);
        if (secret.value) secrets.push(secret.value, secret.salt);
        const data = JSON.parse(c.credentialData);
        if (data.credentialPublicKey) secrets.push(data.credentialPublicKey.slice(0, 40));
      }
    }
  } else {
    const csv = readFileSync(join(FIXTURES, 'supabase', 'webauthn_credentials.csv'), 'utf8');
    for (const hex of csv.match(/\\x[0-9a-f]{80,}/g) ?? []) {
      const bytes = Buffer.from(hex.slice(2), 'hex');
      secrets.push(hex.slice(2, 60), bytes.toString('base64url').slice(0, 40), bytes.toString('base64').slice(0, 40));
    }
  }
  expect(secrets.length).toBeGreaterThan(3);
  for (const s of secrets) expect([s.slice(0, 12), text.includes(s)]).toEqual([s.slice(0, 12), false]);
}

/** The Keycloak export with each user passed through `edit` (`undefined`: dropped) and `added` appended, in a folder of its own. */
function keycloakExport(name: string, edit: (u: any) => any, added: any[] = []): string {
  const folder = join(scratchDir('migrate-passkeys-export-'), name);
  mkdirSync(folder);
  copyFileSync(join(RUNS.keycloak[1], 'devpk-realm.json'), join(folder, 'devpk-realm.json'));
  const file = json('keycloak', 'realm-export', 'devpk-users-0.json');
  writeFileSync(join(folder, 'devpk-users-0.json'), JSON.stringify({ ...file, users: [...file.users.map(edit).filter(Boolean), ...added] }));
  return folder;
}

describe('passkeys carried over by the migration command (SPEC §21)', () => {
  let api: TestApi;
  let proxy: CountingForwarder;
  beforeAll(async () => {
    api = await startApi({ WEBAUTHN_RP_ID: 'kc-dev.example,sb-dev.example', BULK_WORKER: 'on' });
    proxy = await countingForwarder(api);
  });
  afterAll(async () => {
    await proxy?.close();
    await api?.stop();
  });
  /** A run through the counting forwarder (the ledger is found by its URL); the counts start at zero. */
  const counted = (args: string[]) => {
    proxy.reset();
    return migrate(proxy.api, dir, args);
  };

  it.each(['keycloak', 'supabase'] as const)('%s: the fixture migrated, each carried passkey signs in as its user', async (source) => {
    const want = json(source, 'expected.json');
    const keys = json(source, 'private-keys.json').keys as Record<string, FixtureKey>;
    const run = await counted([...RUNS[source]]);
    expect([run.code, withoutProgress(run.stderr)]).toEqual([expect.any(Number), '']);
    expect([want.exitCode, ...want.exitCodeAlso]).toContain(run.code);
    expect(run.report.summary).toEqual(want.summary);
    expect(run.report.passkeys).toMatchObject({ rpId: want.rpId, carried: want.users.flatMap((u: any) => u.passkeys).length });
    expect(run.report.passkeys.serviceRpIds).toContain(want.rpId);

    for (const w of want.users) {
      const got = (await api.get(`/user/id?userId=${encodeURIComponent(w.sourceId)}`)).json;
      expect([w.label, got.status, got.user.timeJoined]).toEqual([w.label, 'OK', w.timeJoined]);
      const view = (lm: any) => JSON.stringify([lm.recipeId, lm.email, lm.verified, lm.webauthn?.credentialIds ?? lm.credentialIds ?? []]);
      expect([w.label, got.user.loginMethods.map(view).sort()]).toEqual([w.label, w.loginMethods.map(view).sort()]);
      expect([w.label, got.user.isPrimaryUser]).toEqual([w.label, w.loginMethods.length > 1]);
      const warned = run.report.users.find((u: any) => u.sourceId === w.sourceId).warnings ?? [];
      expect([w.label, warned.filter((x: any) => x.code === 'passkey-not-migrated').length]).toEqual([w.label, w.passkeysNotMigrated.length]);

      // Its other login method first: the password (Keycloak) or the magic link's email (Supabase).
      const other = w.loginMethods.find((lm: any) => lm.recipeId !== 'webauthn');
      if (other?.recipeId === 'emailpassword') {
        const signin = (await api.post('/recipe/signin', { email: other.email, password: w.password })).json;
        expect([w.label, signin.status, signin.user?.id]).toEqual([w.label, 'OK', w.sourceId]);
      } else if (other?.recipeId === 'passwordless') {
        const found = (await api.get(`/users/by-accountinfo?email=${encodeURIComponent(other.email)}`)).json;
        expect([w.label, found.users.map((u: any) => u.id)]).toEqual([w.label, [w.sourceId]]);
      }
      // Then each passkey, signed by the old authenticator's key: the imported user, by its external id.
      for (const p of w.passkeys) {
        const res = await signInWithFixtureKey(api, p.credentialId, keys[p.credentialId], p.counter + 1);
        expect([w.label, res.status, res.user?.id]).toEqual([w.label, 'OK', w.sourceId]);
        // The counter carried: a replayed count is refused.
        const replay = await signInWithFixtureKey(api, p.credentialId, keys[p.credentialId], p.counter + 1);
        expect([w.label, replay.status]).toEqual([w.label, 'INVALID_AUTHENTICATOR_ERROR']);
      }
      for (const n of w.passkeysNotMigrated) {
        const key = keys[n.credentialId];
        const res = await signInWithFixtureKey(api, n.credentialId, key, key.counter + 1);
        expect([w.label, res.status]).toEqual([w.label, 'CREDENTIAL_NOT_FOUND_ERROR']);
      }
    }
    // Run again: every user from the ledger, no request at all (not even the RP-id probe: the
    // ledger remembers the service's answer, so a passkey it refused maps as it did), the passkeys still the same.
    const users = await userCount(api);
    const again = await counted([...RUNS[source]]);
    expect(Object.fromEntries(proxy.counts)).toEqual({});
    expect([again.code, again.report.summary, again.report.users.filter((u: any) => u.fromLedger !== true)]).toEqual([
      run.code,
      expect.objectContaining({ ...want.summary, unchanged: want.summary.imported, updated: 0, conflict: 0 }),
      [],
    ]);
    expect([await userCount(api), await rowCount(api)]).toEqual([users, 0]);
    expectNoSecret([run, again], source);
  });

  it('keycloak, a later export: a new passkey is added and linked and signs in; one added beside a held passkey is reported; verify sees both', async () => {
    const keys = json('keycloak', 'private-keys.json').keys as Record<string, FixtureKey>;
    const [otto, pam] = json('keycloak', 'realm-export', 'devpk-users-0.json').users;
    const ottoPasskey = otto.credentials.find((c: any) => c.type === 'webauthn-passwordless');
    // Rex: Otto's password and (from v2) a passkey of Otto's key under an id of its own; Pam gets a second passkey in v2.
    const REX_ID = createHash('sha1').update('rex passkey').digest();
    const passkeyOf = (c: any) => ({ ...c, credentialData: JSON.stringify({ ...JSON.parse(c.credentialData), credentialId: REX_ID.toString('base64') }) });
    const rexId = '7dev0000-0000-4000-8000-00000000000a';
    const rex = (withPasskey: boolean) => ({
      ...otto,
      id: rexId,
      username: 'rex',
      email: 'rex@kc-dev.example',
      credentials: otto.credentials.filter((c: any) => c.type === 'password').concat(withPasskey ? [passkeyOf(ottoPasskey)] : []),
    });
    const PAM_SECOND = createHash('sha1').update('pam second passkey').digest();
    const pamSecond = {
      ...pam.credentials[0],
      id: 'pam-second',
      credentialData: JSON.stringify({ ...JSON.parse(pam.credentials[0].credentialData), credentialId: PAM_SECOND.toString('base64') }),
    };
    const v1 = keycloakExport('v1', (u) => u, [rex(false)]);
    const v2 = keycloakExport('v2', (u) => (u.id === pam.id ? { ...u, credentials: [...u.credentials, pamSecond] } : u), [rex(true)]);

    const first = await counted(['keycloak', v1]);
    const byId = (r: Run) => Object.fromEntries(r.report.users.map((u: any) => [u.sourceId, u]));
    expect([byId(first)[rexId].outcome, byId(first)[rexId].fromLedger]).toEqual(['imported', undefined]);

    const synced = await counted(['keycloak', v2]);
    const users = byId(synced);
    expect(users[rexId]).toMatchObject({ outcome: 'updated', changed: ['loginMethods[webauthn:rex@kc-dev.example]'] });
    expect(users[pam.id]).toMatchObject({
      outcome: 'imported',
      warnings: [{ code: 'passkey-not-migrated', text: expect.stringContaining(`passkey ${PAM_SECOND.toString('base64url')}: added since the last run`) }],
      differences: [
        {
          field: 'loginMethods[webauthn:pam@kc-dev.example].credentials',
          export: [PAM_SECOND.toString('base64url'), 'jIWc99ulCqW8adsx3Ue-r_fKv3w'].sort(),
          service: ['jIWc99ulCqW8adsx3Ue-r_fKv3w'],
        },
      ],
    });
    // The two changed users read (their metadata too); the probe once (a passkey is sent); Rex's passkey imported as the bulk import does, then linked.
    expect(Object.fromEntries(proxy.counts)).toEqual({
      'GET /recipe/multitenancy/tenant/list/v2': 1,
      'POST /bulk-import/users': 1,
      'GET /user/id': 2,
      'GET /recipe/user/metadata': 2,
      'POST /bulk-import/import': 1,
      'POST /recipe/accountlinking/user/primary': 1,
      'POST /recipe/accountlinking/user/link': 1,
    });
    const rexKey = keys['NESTEKtwt4NkibXtmh-6Da7-gCM'];
    const signin = await signInWithFixtureKey(api, REX_ID.toString('base64url'), rexKey, rexKey.counter + 1);
    expect([signin.status, signin.user?.id]).toEqual(['OK', rexId]);
    const password = await api.post('/recipe/signin', { email: 'rex@kc-dev.example', password: 'otto-Dev-Kc-1' });
    expect([password.json.status, password.json.user?.id]).toEqual(['OK', rexId]);
    expect([(await counted(['keycloak', v2])).report.summary.unchanged, Object.fromEntries(proxy.counts)]).toEqual([4, {}]);

    // Verify, GETs only: Rex's passkey is the service's, Otto's removed from the service is a difference, Pam's second is missing.
    const otto1 = (await api.get(`/user/id?userId=${otto.id}`)).json.user.loginMethods.find((lm: any) => lm.recipeId === 'webauthn');
    const removed = await api.request(
      'DELETE',
      `/recipe/webauthn/user/credential/remove?recipeUserId=${otto1.recipeUserId}&webauthnCredentialId=NESTEKtwt4NkibXtmh-6Da7-gCM`,
    );
    expect(removed.json.status).toBe('OK');
    const verified = await counted(['verify', 'keycloak', v2]);
    expect(Object.keys(Object.fromEntries(proxy.counts)).filter((k) => !k.startsWith('GET '))).toEqual([]);
    expect([verified.code, verified.report.summary]).toEqual([1, expect.objectContaining({ total: 4, match: 2, different: 2 })]);
    const checked = byId(verified);
    expect([checked[rexId].outcome, checked['7dev0000-0000-4000-8000-000000000003'].outcome]).toEqual(['match', 'match']);
    expect(checked[otto.id]).toMatchObject({
      outcome: 'different',
      differences: [{ field: 'loginMethods[webauthn:otto@kc-dev.example].credentials', export: ['NESTEKtwt4NkibXtmh-6Da7-gCM'], service: [] }],
    });
    expect(checked[pam.id]).toMatchObject({ outcome: 'different', differences: [{ field: 'loginMethods[webauthn:pam@kc-dev.example].credentials' }] });
    expectNoSecret([first, synced, verified], 'keycloak');
  });

  it.each(['keycloak', 'supabase'] as const)(
    "%s: a service whose WEBAUTHN_RP_ID lacks the export's RP id refuses the run with exit 2, nothing written",
    async (source) => {
      const other = await startApi({ WEBAUTHN_RP_ID: 'elsewhere.example', BULK_WORKER: 'on' });
      try {
        const ledgers = () => readdirSync(dir).filter((f) => f.startsWith('migration-ledger-'));
        const before = [await userCount(other), await rowCount(other), ledgers()];
        const run = await migrate(other, dir, [...RUNS[source]]);
        const rpId = json(source, 'expected.json').rpId;
        expect([run.code, run.report]).toEqual([2, undefined]);
        expect(withoutProgress(run.stderr)).toContain(`passkeys were made for RP ID ${rpId}`);
        expect(withoutProgress(run.stderr)).toContain('WEBAUTHN_RP_ID is elsewhere.example');
        expect([await userCount(other), await rowCount(other), ledgers()]).toEqual(before);
      } finally {
        await other.stop();
      }
    },
  );
});
