import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { identityKeys } from '../../lib/migrate/collisions';
import type { ExportedPasskey, MapOptions, MappedUser } from '../../lib/migrate/model';
import { PasskeyPlan } from '../../lib/migrate/passkeys';
import { mapAuth0User } from '../../lib/migrate/sources/auth0';
import { mapCognitoUser } from '../../lib/migrate/sources/cognito';
import { keycloakSource } from '../../lib/migrate/sources/keycloak';
import { readIdentities, supabaseSource } from '../../lib/migrate/sources/supabase';
import { readPasskeys } from '../../lib/migrate/sources/supabase-passkeys';
import { decodeCborWhole } from '../../lib/webauthn/cbor';
import { coseKeyOf } from '../../lib/webauthn/cose-key';
import { SoftAuthenticator } from '../support/webauthn';

/**
 * Passkeys carried over by the migration command's mappers (SPEC §21) on test/fixtures/passkeys:
 * each carried credential as expected.json says (id in base64url, RP id, algorithm of the COSE key
 * as re-encoded, counter, transports), each passkey not carried a `passkey-not-migrated` warning
 * naming its id and why, and the login methods linked as the fixture says. No service is asked
 * here (`useService` unset): the RP ids the service takes are the e2e's.
 */
const FIXTURES = join(__dirname, '..', 'fixtures', 'passkeys');
const expected = (source: string) => JSON.parse(readFileSync(join(FIXTURES, source, 'expected.json'), 'utf8'));
const ALGS: Record<number, string> = { [-7]: 'ES256', [-8]: 'EdDSA', [-257]: 'RS256' };

async function all(users: AsyncIterable<MappedUser>): Promise<MappedUser[]> {
  const out: MappedUser[] = [];
  for await (const u of users) out.push(u);
  return out;
}

/** A plan that knows the service's RP ids without asking it (what the probe would have found). */
function planWith(option: string | undefined, refused: string[]): PasskeyPlan {
  const plan = new PasskeyPlan(option);
  const accepted = (plan as unknown as { accepted: Map<string, boolean> }).accepted;
  for (const rpId of refused) accepted.set(rpId, false);
  return plan;
}

function checkAgainst(users: MappedUser[], want: any, transports: string[]) {
  for (const w of want.users) {
    const got = users.find((u) => u.sourceId === w.sourceId)!;
    expect([w.label, got.notImported]).toEqual([w.label, undefined]);
    const methods = got.user!.loginMethods;
    expect([w.label, methods.map((m) => m.recipeId).sort()]).toEqual([w.label, w.loginMethods.map((m: any) => m.recipeId).sort()]);
    const webauthn = methods.find((m) => m.recipeId === 'webauthn');
    const passkeys = (webauthn?.credentials ?? []).map((c) => {
      const key = coseKeyOf(decodeCborWhole(Buffer.from(c.publicKey, 'base64url')));
      return { credentialId: c.credentialId, rpId: c.rpId, alg: typeof key === 'string' ? key : ALGS[key.alg], counter: c.counter };
    });
    expect([w.label, passkeys]).toEqual([w.label, w.passkeys]);
    for (const c of webauthn?.credentials ?? []) expect([w.label, c.transports]).toEqual([w.label, transports]);
    if (webauthn) expect([w.label, webauthn.email, webauthn.isVerified]).toEqual([w.label, w.loginMethods[0].email, true]);
    const lost = got.warnings.filter((x) => x.code === 'passkey-not-migrated');
    expect([w.label, lost.length]).toEqual([w.label, w.passkeysNotMigrated.length]);
    w.passkeysNotMigrated.forEach((n: { credentialId: string; why: string }, i: number) => {
      expect(lost[i].text).toContain(`passkey ${n.credentialId}: ${n.why}`);
    });
    // Several login methods: one primary (the password one, else the oldest); a passkey-only user's webauthn method alone.
    if (methods.length > 1) expect([w.label, methods.filter((m) => m.isPrimary).map((m) => m.recipeId)]).toEqual([w.label, [methods[0].recipeId]]);
  }
}

describe('passkeys carried over by the mappers (SPEC §21)', () => {
  const OPTS: MapOptions = { tenant: 'public', noHash: 'passwordless', includeDisabled: false };

  it('keycloak: webauthn-passwordless and webauthn credentials of the realm export, each under its policy RP id', async () => {
    const plan = planWith(undefined, ['legacy.kc-dev.example']);
    const source = keycloakSource(join(FIXTURES, 'keycloak', 'realm-export'), { opts: { ...OPTS, passkeys: plan } });
    const users = await all(source.users());
    checkAgainst(users, expected('keycloak'), ['internal', 'hybrid']);
    expect(source.notes()).toEqual({ passkeys: { rpId: 'kc-dev.example', serviceAsked: false, carried: 2, notCarried: 1 } });
    // Read again (the command reads twice): the same passkeys, no duplicate found.
    const again = await all(source.users());
    expect(again.flatMap((u) => u.warnings.map((w) => w.code)).filter((c) => c === 'passkey-not-migrated')).toHaveLength(1);
    expect(source.notes()).toEqual({ passkeys: { rpId: 'kc-dev.example', serviceAsked: false, carried: 2, notCarried: 1 } });
  });

  it('keycloak: a realm without RP ids carries nothing without --webauthn-rp-id, and everything under it with it', async () => {
    const dir = join(FIXTURES, 'keycloak', 'realm-export', 'devpk-users-0.json');
    const without = await all(keycloakSource(dir, { opts: { ...OPTS, passkeys: new PasskeyPlan() } }).users());
    expect(without.flatMap((u) => u.user!.loginMethods).some((m) => m.recipeId === 'webauthn')).toBe(false);
    const pam = without.find((u) => u.sourceId.endsWith('2'))!;
    expect(pam.warnings.map((w) => w.code)).toEqual(['passkey-not-migrated', 'no-password-hash']);
    expect(pam.warnings[0].text).toBe(
      'passkey jIWc99ulCqW8adsx3Ue-r_fKv3w: the export names no RP ID for it: pass --webauthn-rp-id <the RP ID it was made for>: not migrated (the user signs in with their other login methods and enrols a new passkey)',
    );
    // A passkey-only user not carried keeps its email by the --no-hash mode.
    expect(pam.user!.loginMethods.map((m) => m.recipeId)).toEqual(['passwordless']);
    const withOption = await all(keycloakSource(dir, { opts: { ...OPTS, passkeys: new PasskeyPlan('kc.example.com') } }).users());
    const rpIds = withOption.flatMap((u) => u.user!.loginMethods.flatMap((m) => m.credentials ?? [])).map((c) => c.rpId);
    expect(rpIds).toEqual(['kc.example.com', 'kc.example.com', 'kc.example.com']);
  });

  it('supabase: auth.webauthn_credentials, bytea ids and COSE keys re-encoded as base64url, the bad alg reported', async () => {
    const dir = join(FIXTURES, 'supabase');
    const plan = new PasskeyPlan('sb-dev.example');
    const source = supabaseSource(join(dir, 'users.csv'), {
      opts: { ...OPTS, passkeys: plan },
      identities: await readIdentities(join(dir, 'identities.csv')),
      passkeys: await readPasskeys(join(dir, 'webauthn_credentials.csv'), 'sb-dev.example'),
    });
    const users = await all(source.users());
    checkAgainst(users, expected('supabase'), ['internal', 'hybrid']);
    const kai = users[0].user!.loginMethods.find((m) => m.recipeId === 'webauthn')!.credentials![0];
    expect([kai.aaguid, kai.createdAt]).toEqual(['fbfc3007-154e-4ecc-8c0b-6e020557d7bd', Date.UTC(2023, 6, 22, 4, 27, 40, 0)]);
    expect(source.notes()).toMatchObject({ passkeys: { rpId: 'sb-dev.example', carried: 1, notCarried: 1 }, orphanWebauthnCredentialRows: 0 });
  });

  it('no report text holds a public key', async () => {
    const dir = join(FIXTURES, 'supabase');
    const source = supabaseSource(join(dir, 'users.csv'), {
      opts: { ...OPTS, passkeys: new PasskeyPlan('sb-dev.example') },
      passkeys: await readPasskeys(join(dir, 'webauthn_credentials.csv'), 'sb-dev.example'),
    });
    const text = JSON.stringify((await all(source.users())).map((u) => u.warnings)) + JSON.stringify(source.notes());
    expect(text).not.toMatch(/a50102|a401030338|pQEC|pAEB/);
  });

  it("sources whose export shows passkeys without keys: the user imported, a warning with §21's reason", () => {
    const auth0 = mapAuth0User(
      {
        user_id: 'auth0|1',
        email: 'al@a0.example',
        identities: [{ provider: 'auth0', user_id: '1', connection: 'Username-Password-Authentication' }],
        authentication_methods: [{ type: 'passkey' }, { type: 'password' }],
      },
      { opts: OPTS },
    );
    expect(auth0.warnings.filter((w) => w.code === 'passkey-not-migrated').map((w) => w.text)).toEqual([
      "the user's passkeys (passkey): Auth0 exports no passkey public key: users re-enrol",
    ]);
    expect(auth0.user).toBeDefined();
    const cognito = mapCognitoUser(
      {
        Username: 'u1',
        Attributes: [
          { Name: 'sub', Value: '11111111-1111-4111-8111-111111111111' },
          { Name: 'email', Value: 'cy@cg.example' },
        ],
        UserStatus: 'CONFIRMED',
        Enabled: true,
        ConfiguredUserAuthFactors: ['PASSWORD', 'WEB_AUTHN'],
      },
      { opts: { ...OPTS, noHash: 'migrate-on-signin' } },
      'user 1',
    );
    expect(cognito.warnings.filter((w) => w.code === 'passkey-not-migrated').map((w) => w.text)).toEqual([
      "the user's passkeys (ConfiguredUserAuthFactors WEB_AUTHN): Cognito exports no passkey public key: users re-enrol",
    ]);
    expect(cognito.user!.loginMethods.map((m) => m.recipeId)).toEqual(['emailpassword']);
  });

  it('two users of one webauthn email are a collision found before writing (the service refuses the second)', () => {
    const user = { loginMethods: [{ recipeId: 'webauthn' as const, tenantIds: ['public'], isVerified: true, email: 'Pam@KC-dev.example', credentials: [] }] };
    expect(identityKeys(user)).toEqual(['public\u0000webauthn email pam@kc-dev.example']);
  });
});

describe('PasskeyPlan: a credential id under a second user (SPEC §21; SPEC §17c bounded memory)', () => {
  const passkeyOf = (a: SoftAuthenticator): ExportedPasskey => ({
    credentialId: a.credentialId,
    publicKey: a.coseKey(),
    rpId: 'example.com',
    counter: 0,
    transports: [],
  });

  it('is carried for its first owner only, found from the second read on, and only repeated ids keep an owner in memory', () => {
    const shared = passkeyOf(new SoftAuthenticator(-7));
    const others = Array.from({ length: 300 }, () => passkeyOf(new SoftAuthenticator(-7)));
    const plan = new PasskeyPlan();
    const owners = (plan as unknown as { owners: Map<string, string> }).owners;
    // Ann's passkey, 300 other users' own, then Bob's with Ann's credential id (and Ann's again, hers).
    const read = () => {
      plan.startRead();
      return [plan.take(shared, 'ann'), ...others.map((p, i) => plan.take(p, `u${i}`)), plan.take(shared, 'bob'), plan.take(shared, 'ann')];
    };
    const refused = (results: ReturnType<typeof read>) => results.flatMap((r, i) => ('why' in r ? [[i, r.why]] : []));

    // The first read gathers (a hash per id, no owner kept); the command sends nothing from it.
    expect([refused(read()), owners.size]).toEqual([[], 0]);
    const why = 'its credential id is also a passkey of ann, which keeps it (a credential id is one passkey)';
    expect([refused(read()), owners.size]).toEqual([[[301, why]], 1]);
    expect(plan.notes()).toEqual({ passkeys: { serviceAsked: false, carried: 302, notCarried: 1 } });
    // A third read answers as the second.
    expect(refused(read())).toEqual([[301, why]]);
  });
});
