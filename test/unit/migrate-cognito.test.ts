import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../lib/migrate/errors';
import type { MapOptions, MappedUser, Source } from '../../lib/migrate/model';
import { cognitoSource, createDateOf, GroupIndex, mapCognitoUser } from '../../lib/migrate/sources/cognito';
import { expectedSet, loginMethodView, MIGRATION_FIXTURES, plan, type ExpectedUser } from '../support/migration';
import { scratchDir } from '../support/scratch';

/**
 * The Cognito source (SPEC §17b): `aws cognito-idp list-users` output as the CLI v2 writes it (the
 * shared fixture, test/fixtures/migration/cognito), the same users as pages concatenated, one page
 * per line and with epoch-second dates (the API's, CLI v1's and cognito-local's form), and records
 * the fixture does not hold. Every user must come out as `expected.json` (written independently of
 * the command) says.
 */
const COGNITO = join(MIGRATION_FIXTURES, 'cognito');
const USERS = join(COGNITO, 'list-users.json');
const GROUPS = join(COGNITO, 'groups.json');
const scratch = scratchDir('migrate-cognito-');
const written = (name: string, body: string): string => {
  const file = join(scratch, name);
  writeFileSync(file, body);
  return file;
};

type Obj = Record<string, unknown>;
const DEFAULTS: MapOptions = { tenant: 'public', noHash: 'migrate-on-signin', includeDisabled: false };
const fixtureUsers = (): Obj[] => JSON.parse(readFileSync(USERS, 'utf8')).Users;

/** What the command plans for every user, by source id. */
async function planned(source: Source): Promise<Map<string, Awaited<ReturnType<typeof plan>>['users'][number]>> {
  const { users } = await plan(source);
  return new Map(users.map((u) => [u.mapped.sourceId, u]));
}

/** Checks a planned user against the fixture's expectation of it. */
function expectAsFixture(got: { mapped: MappedUser; outcome: string; reasonCode?: string } | undefined, want: ExpectedUser, where: string): void {
  expect([where, got?.outcome, got?.reasonCode]).toEqual([where, want.outcome, want.reasonCode]);
  expect([where, got!.mapped.createdAt]).toEqual([where, want.timeJoined]);
  if (want.outcome !== 'imported') return;
  const user = got!.mapped.user!;
  const methods = user.loginMethods;
  expect([where, methods.map((lm) => loginMethodView(lm, methods.length > 1))]).toEqual([
    where,
    want.loginMethods.map((lm) => ({ ...lm, ...((want as { migrateOnSignIn?: boolean }).migrateOnSignIn ? { migratePasswordOnSignIn: true } : {}) })),
  ]);
  for (const lm of methods)
    expect([where, lm.tenantIds, lm.timeJoinedInMSSinceEpoch, lm.passwordHash]).toEqual([where, ['public'], want.timeJoined, undefined]);
  expect([where, user.externalUserId, user.userMetadata, user.userRoles?.map((r) => r.role)]).toEqual([where, want.sourceId, want.metadata, want.roles]);
}

async function checkFixture(users: string, where: string): Promise<void> {
  const expected = expectedSet(COGNITO);
  const { users: got, index } = await plan(cognitoSource(users, { opts: DEFAULTS, groups: await GroupIndex.read(GROUPS) }));
  expect(got.map((u) => u.mapped.sourceId)).toEqual(expected.users.map((u) => u.sourceId));
  for (const want of expected.users)
    expectAsFixture(
      got.find((u) => u.mapped.sourceId === want.sourceId),
      want,
      `${where} ${want.label}`,
    );
  const summary = { total: got.length, imported: 0, skipped: 0, failed: 0 };
  for (const u of got) summary[u.outcome]++;
  expect(summary).toEqual(expected.summary);
  expect(got.some((u) => u.needsAction) ? 1 : 0).toBe(expected.exitCode);
  expect(index.collisions()).toEqual(expected.collisions);
  expect([...new Set(got.flatMap((u) => u.mapped.user?.userRoles?.map((r) => r.role) ?? []))]).toEqual(expected.rolesToCreate);
}

/** The fixture's users as pages of `size` users each (the last keeps a NextToken-free shape). */
const pages = (size: number, transform: (u: Obj) => Obj = (u) => u): Obj[] => {
  const users = fixtureUsers().map(transform);
  const out: Obj[] = [];
  for (let i = 0; i < users.length; i += size)
    out.push({ Users: users.slice(i, i + size), ...(i + size < users.length ? { NextToken: `token-${i}`, PaginationToken: `token-${i}` } : {}) });
  return out;
};
/** An ISO date of the CLI v2 as the epoch seconds the API, CLI v1 and cognito-local write. */
const epochSeconds = (u: Obj): Obj => ({ ...u, UserCreateDate: Date.parse(String(u.UserCreateDate).replace(/\.\d+/, '')) / 1000 });

describe('the Cognito source against the fixture of list-users output (AWS CLI v2)', () => {
  it('one document with --groups: every user as expected.json says (migrate at sign-in, Google, disabled; staff a role)', async () => {
    await checkFixture(USERS, 'one document');
  });

  it('pages concatenated, pretty-printed as the CLI writes each (NextToken and PaginationToken ignored)', async () => {
    const file = written(
      'pages.json',
      pages(2)
        .map((p) => JSON.stringify(p, null, 4))
        .join('\n'),
    );
    await checkFixture(file, 'pages');
    const glued = written(
      'glued.json',
      pages(1)
        .map((p) => JSON.stringify(p))
        .join(''),
    );
    await checkFixture(glued, 'glued pages');
  });

  it('one page per line', async () => {
    await checkFixture(
      written(
        'lines.ndjson',
        `${pages(1)
          .map((p) => JSON.stringify(p))
          .join('\n')}\n`,
      ),
      'one per line',
    );
  });

  it('UserCreateDate in epoch seconds (the API, CLI v1, cognito-local), the fraction being the ms', async () => {
    const file = written('epoch.json', JSON.stringify({ Users: fixtureUsers().map(epochSeconds) }));
    expect(readFileSync(file, 'utf8')).toContain('"UserCreateDate":1675397106,');
    await checkFixture(file, 'epoch seconds');
    const withMs = pages(3, (u) => ({ ...epochSeconds(u), UserCreateDate: (epochSeconds(u).UserCreateDate as number) + 0.123 }));
    const got = await planned(cognitoSource(written('epoch-ms.json', JSON.stringify(withMs[0])), { opts: DEFAULTS }));
    expect(got.get('22222222-bbbb-4000-8000-000000000001')?.mapped.createdAt).toBe(1675397106123);
  });

  it('creation times: ISO 8601 with µs (truncated) or an offset, epoch seconds with a fraction; anything else is a warning', () => {
    expect(createDateOf('2023-02-03T04:05:06.987654+00:00')).toBe(Date.UTC(2023, 1, 3, 4, 5, 6, 987));
    expect(createDateOf('2023-02-03T06:05:06+02:00')).toBe(Date.UTC(2023, 1, 3, 4, 5, 6));
    expect(createDateOf('2023-02-03T04:05:06Z')).toBe(Date.UTC(2023, 1, 3, 4, 5, 6));
    expect(createDateOf(1675397106.001)).toBe(1675397106001);
    expect(createDateOf(1675397106.9999)).toBe(1675397106999);
    expect(createDateOf(1675397106)).toBe(1675397106000);
    expect(createDateOf('last week')).toBeUndefined();
    expect(createDateOf(-1)).toBeUndefined();
    const m = mapCognitoUser({ ...fixtureUsers()[0], UserCreateDate: 'last week' }, { opts: DEFAULTS }, 'user 1');
    expect([m.createdAt, m.user?.loginMethods[0].timeJoinedInMSSinceEpoch, m.warnings.map((w) => w.code)]).toEqual([
      undefined,
      undefined,
      ['bad-created-at', 'no-password-hash'],
    ]);
  });

  it('the options: --include-disabled, --no-hash passwordless and skip; without --groups no roles', async () => {
    const source = (opts: Partial<MapOptions>, groups?: GroupIndex) =>
      planned(cognitoSource(USERS, { opts: { ...DEFAULTS, ...opts }, ...(groups ? { groups } : {}) }));
    const [ada, , cy] = fixtureUsers().map((u) => (u.Attributes as { Name: string; Value: string }[]).find((a) => a.Name === 'sub')!.Value);
    const included = (await source({ includeDisabled: true })).get(cy)!;
    expect([included.outcome, included.mapped.user?.userMetadata, included.mapped.user?.loginMethods.map((lm) => [lm.recipeId, lm.email])]).toEqual([
      'imported',
      { disabled: true },
      [['emailpassword', 'cy@cg-demo.example']],
    ]);
    const passwordless = (await source({ noHash: 'passwordless' })).get(ada)!;
    expect(passwordless.mapped.user?.loginMethods.map((lm) => loginMethodView(lm, false))).toEqual([
      { recipeId: 'passwordless', email: 'ada@cg-demo.example', verified: true },
    ]);
    const skip = (await source({ noHash: 'skip' })).get(ada)!;
    expect([skip.outcome, skip.reasonCode, skip.needsAction]).toEqual(['skipped', 'no-password-hash', false]);
    const noGroups = (await source({})).get(ada)!;
    expect([noGroups.outcome, noGroups.mapped.user?.userRoles]).toEqual(['imported', undefined]);
  });
});

describe('records the fixture does not hold', () => {
  let n = 0;
  /** A list-users user: its attributes as `{Name, Value}` strings, a `sub` of its own. */
  const user = (attributes: Record<string, string>, extra: Obj = {}): Obj => {
    const sub = `33333333-cccc-4000-8000-${String(++n).padStart(12, '0')}`;
    return {
      Username: sub,
      Attributes: Object.entries({ sub, ...attributes }).map(([Name, Value]) => ({ Name, Value })),
      UserCreateDate: 1700000000.25,
      UserLastModifiedDate: 1700000001.5,
      Enabled: true,
      UserStatus: 'CONFIRMED',
      ...extra,
    };
  };
  const map = (raw: Obj, opts: Partial<MapOptions> = {}, groups?: string[]) =>
    mapCognitoUser(raw, { opts: { ...DEFAULTS, ...opts }, ...(groups ? { groups } : {}) }, 'user 7');
  const methods = (m: MappedUser) =>
    m.user?.loginMethods.map((lm) => [lm.recipeId, lm.email ?? null, lm.phoneNumber ?? null, lm.isVerified, lm.isPrimary ?? null]);
  const codes = (m: MappedUser) => m.warnings.map((w) => w.code);
  const identities = (...list: Obj[]) => JSON.stringify(list.map((i) => ({ issuer: null, primary: true, dateCreated: 1643861106000, ...i })));
  const identity = (providerType: string, userId: string, providerName = providerType) => ({ providerName, providerType, userId });

  it('UNCONFIRMED and FORCE_CHANGE_PASSWORD users migrate at sign-in like CONFIRMED ones; the email is trimmed and lower-cased', () => {
    for (const UserStatus of ['CONFIRMED', 'UNCONFIRMED', 'FORCE_CHANGE_PASSWORD']) {
      const m = map(user({ email: ' Dee@CG-demo.example', email_verified: 'false' }, { UserStatus }));
      expect([UserStatus, m.user?.loginMethods]).toEqual([
        UserStatus,
        [
          {
            recipeId: 'emailpassword',
            tenantIds: ['public'],
            isVerified: false,
            email: 'dee@cg-demo.example',
            migratePasswordOnSignIn: true,
            timeJoinedInMSSinceEpoch: 1700000000250,
          },
        ],
      ]);
      expect(codes(m)).toEqual(['no-password-hash']);
    }
  });

  it('RESET_REQUIRED: passwordless email whatever --no-hash says, warning password-reset-required', () => {
    for (const noHash of ['migrate-on-signin', 'passwordless', 'skip'] as const) {
      const m = map(user({ email: 'eve@cg-demo.example', email_verified: 'true' }, { UserStatus: 'RESET_REQUIRED' }), { noHash });
      expect([noHash, methods(m), codes(m)]).toEqual([noHash, [['passwordless', 'eve@cg-demo.example', null, true, null]], ['password-reset-required']]);
    }
    const withPhone = map(
      user({ email: 'eve@cg-demo.example', phone_number: '+14155550111', phone_number_verified: 'true' }, { UserStatus: 'RESET_REQUIRED' }),
    );
    expect(methods(withPhone)).toEqual([['passwordless', 'eve@cg-demo.example', '+14155550111', false, null]]);
  });

  it('a phone-only password user: passwordless phone, warning password-not-migrated', () => {
    const m = map(user({ phone_number: '+14155550123', phone_number_verified: 'true' }));
    expect([methods(m), codes(m)]).toEqual([[['passwordless', null, '+14155550123', true, null]], ['password-not-migrated']]);
    const unverified = map(user({ phone_number: '+14155550124', phone_number_verified: 'false' }));
    expect(methods(unverified)).toEqual([['passwordless', null, '+14155550124', false, null]]);
  });

  it('email and phone: the password method primary beside the phone; with --no-hash passwordless one method holds both', () => {
    const raw = user({ email: 'fay@cg-demo.example', email_verified: 'true', phone_number: '+14155550125', phone_number_verified: 'false' });
    expect(methods(map(raw))).toEqual([
      ['emailpassword', 'fay@cg-demo.example', null, true, true],
      ['passwordless', null, '+14155550125', false, false],
    ]);
    expect(methods(map(raw, { noHash: 'passwordless' }))).toEqual([['passwordless', 'fay@cg-demo.example', '+14155550125', true, null]]);
    const skip = map(raw, { noHash: 'skip' });
    expect([methods(skip), codes(skip)]).toEqual([[['passwordless', null, '+14155550125', false, null]], ['no-password-hash']]);
  });

  it('identities (a JSON string): the social providers by name, thirdPartyUserId = userId, the email attribute and its flag', () => {
    for (const [providerType, thirdPartyId] of [
      ['Google', 'google'],
      ['Facebook', 'facebook'],
      ['SignInWithApple', 'apple'],
      ['LoginWithAmazon', 'amazon'],
    ]) {
      const m = map(
        user(
          { identities: identities(identity(providerType, `${providerType}-42`)), email: 'Gus@Mail.example', email_verified: 'true' },
          { UserStatus: 'EXTERNAL_PROVIDER' },
        ),
      );
      expect([providerType, m.user?.loginMethods]).toEqual([
        providerType,
        [
          {
            recipeId: 'thirdparty',
            tenantIds: ['public'],
            isVerified: true,
            email: 'gus@mail.example',
            thirdPartyId,
            thirdPartyUserId: `${providerType}-42`,
            timeJoinedInMSSinceEpoch: 1700000000250,
          },
        ],
      ]);
      expect(codes(m)).toEqual([]);
    }
  });

  it('a native user with a linked Google identity keeps its password method (primary) beside Google', () => {
    const m = map(user({ email: 'hal@cg-demo.example', email_verified: 'true', identities: identities(identity('Google', '1001')) }));
    expect(m.user?.loginMethods.map((lm) => [lm.recipeId, lm.thirdPartyId ?? null, lm.isPrimary])).toEqual([
      ['thirdparty', 'google', false],
      ['emailpassword', null, true],
    ]);
  });

  it('only OIDC or SAML identities → enterprise-connection; beside Google the enterprise one is dropped with a warning', () => {
    for (const type of ['OIDC', 'SAML']) {
      const m = map(user({ identities: identities(identity(type, 'x-1', 'Corp')), email: 'ivy@corp.example' }, { UserStatus: 'EXTERNAL_PROVIDER' }));
      expect([type, m.notImported?.outcome, m.notImported?.code, m.notImported?.reason]).toEqual([
        type,
        'skipped',
        'enterprise-connection',
        `only Corp (${type}) sign-in: an enterprise connection --connections does not map is not migrated`,
      ]);
    }
    const mixed = map(
      user(
        { identities: identities(identity('OIDC', 'x-2', 'Corp'), identity('Google', '1002')), email: 'jo@corp.example' },
        { UserStatus: 'EXTERNAL_PROVIDER' },
      ),
    );
    expect([methods(mixed), codes(mixed)]).toEqual([[['thirdparty', 'jo@corp.example', null, false, null]], ['identity-not-migrated']]);
  });

  it('a federated user without an email: its identity is dropped and the user skipped no-email', () => {
    const m = map(user({ identities: identities(identity('Facebook', '77')) }, { UserStatus: 'EXTERNAL_PROVIDER' }));
    expect([m.notImported?.outcome, m.notImported?.code, codes(m)]).toEqual(['skipped', 'no-email', ['identity-without-email']]);
    expect(map(user({})).notImported).toMatchObject({ outcome: 'skipped', code: 'no-email', needsAction: false });
  });

  it('Enabled false → disabled (needs no action); --include-disabled imports it with userMetadata.disabled', () => {
    const raw = user({ email: 'kim@cg-demo.example', 'custom:plan': 'pro' }, { Enabled: false });
    expect(map(raw).notImported).toMatchObject({ outcome: 'skipped', code: 'disabled', needsAction: false });
    expect(map(raw, { includeDisabled: true }).user?.userMetadata).toEqual({ plan: 'pro', disabled: true });
  });

  it('metadata: custom:<x> → <x> as given, other non-login attributes under their name, a clash kept custom with a warning', () => {
    const m = map(user({ email: 'lee@cg-demo.example', email_verified: 'true', name: 'Lee', locale: 'fr', 'custom:tier': '3', 'custom:locale': 'de' }));
    expect(m.user?.userMetadata).toEqual({ name: 'Lee', locale: 'de', tier: '3' });
    expect(codes(m)).toEqual(['no-password-hash', 'metadata-key-clash']);
    expect(map(user({ email: 'lee2@cg-demo.example' }), {}, ['staff', 'admins']).user?.userRoles).toEqual([
      { role: 'staff', tenantIds: ['public'] },
      { role: 'admins', tenantIds: ['public'] },
    ]);
  });

  it('SMS MFA (MFAOptions) is carried on the phone_number the user signs in with: otp-phone required, no second phone method', () => {
    const sms = { MFAOptions: [{ DeliveryMedium: 'SMS', AttributeName: 'phone_number' }] };
    const m = map(user({ email: 'max@cg-demo.example', phone_number: '+14155550190', phone_number_verified: 'true' }, sms));
    expect(m.user?.loginMethods.map((lm) => [lm.recipeId, lm.email, lm.phoneNumber])).toEqual([
      ['emailpassword', 'max@cg-demo.example', undefined],
      ['passwordless', undefined, '+14155550190'],
    ]);
    expect([codes(m), m.user?.userMetadata?._supertokens]).toEqual([['no-password-hash'], { requiredSecondaryFactors: ['otp-phone'] }]);
    // Without a phone_number there is nothing to send codes to; --mfa report only warns.
    const phoneless = map(user({ email: 'max@cg-demo.example' }, sms));
    expect([codes(phoneless), phoneless.user?.userMetadata?._supertokens]).toEqual([['no-password-hash', 'mfa-not-migrated'], undefined]);
    const reported = map(user({ email: 'max@cg-demo.example', phone_number: '+14155550190' }, sms), { mfa: 'report' });
    expect([codes(reported), reported.user?.userMetadata?._supertokens]).toEqual([['no-password-hash', 'mfa-not-migrated'], undefined]);
  });

  it('UserMFASettingList (admin-get-user): SMS_MFA carried, SOFTWARE_TOKEN_MFA reported with totp required', () => {
    const m = map(user({ email: 'mo@cg-demo.example', phone_number: '+14155550191' }, { UserMFASettingList: ['SMS_MFA', 'SOFTWARE_TOKEN_MFA'] }));
    expect([codes(m), m.user?.userMetadata?._supertokens]).toEqual([
      ['no-password-hash', 'mfa-not-migrated'],
      { requiredSecondaryFactors: ['totp', 'otp-phone'] },
    ]);
    expect(m.warnings[1].text).toContain('SOFTWARE_TOKEN_MFA');
  });

  it('a record that cannot be read fails alone: no sub, identities that are not JSON, an element that is not an object', async () => {
    expect(map({ Username: 'nosub', Attributes: [{ Name: 'email', Value: 'x@y.example' }] })).toMatchObject({
      sourceId: '#user 7',
      notImported: { outcome: 'failed', code: 'no-source-id', reason: 'user 7 has no sub attribute', needsAction: true },
    });
    expect(map(user({ identities: '[{"userId":' }, { UserStatus: 'EXTERNAL_PROVIDER' })).notImported).toMatchObject({
      outcome: 'failed',
      code: 'row-unreadable',
      reason: 'user 7: its identities attribute is not a JSON list',
    });
    const file = written('odd.json', JSON.stringify({ Users: [fixtureUsers()[0], 42] }));
    const { users } = await plan(cognitoSource(file, { opts: DEFAULTS }));
    expect(users.map((u) => [u.mapped.sourceId, u.outcome, u.reasonCode])).toEqual([
      ['22222222-bbbb-4000-8000-000000000001', 'imported', undefined],
      ['#user 2', 'failed', 'not-a-user'],
    ]);
  });
});

describe('the --groups file', () => {
  it('joins on Username; a user in two groups gets both roles; members of no user are counted, elements that are no user ignored', async () => {
    const [ada, ben] = fixtureUsers();
    const groups = written(
      'groups.json',
      JSON.stringify({
        staff: { Users: [ada] },
        'ops.team': { Users: [ada, ben], NextToken: 'x' },
        ghosts: { Users: [{ Attributes: [], Username: 'nobody' }, ['not-a-user']] },
      }),
    );
    const source = cognitoSource(USERS, { opts: DEFAULTS, groups: await GroupIndex.read(groups) });
    const got = await planned(source);
    const roles = (id: string) => got.get(id)?.mapped.user?.userRoles?.map((r) => r.role);
    expect([roles('22222222-bbbb-4000-8000-000000000001'), roles('22222222-bbbb-4000-8000-000000000002')]).toEqual([['staff', 'ops.team'], ['ops.team']]);
    expect(source.notes()).toEqual({ groupMembersWithoutUser: 1, mfa: expect.stringContaining('UserMFASettingList') });
  });
});

describe('files that are not list-users output: refused in one sentence naming the file (exit 2)', () => {
  const refused = async (file: string) => (await plan(cognitoSource(file, { opts: DEFAULTS })).catch((e: Error) => e)) as Error;
  const one = JSON.stringify(fixtureUsers()[0]);

  it.each([
    ['the groups file given as the users file', readFileSync(GROUPS, 'utf8'), 'it has no top-level "Users" array (only staff)'],
    ['a Firebase or bulk file {"users":[…]}', '{"users":[]}', 'it has no top-level "Users" array (only users)'],
    ['a bare array of users', `[${one}]`, 'it is a JSON array, not {"Users":[…]}'],
    ['"Users" that is not a list', '{"Users":{}}', 'its "Users" is not an array'],
    ['a second page that is no page', `{"Users":[${one}]}\n{"NextToken":"x"}`, 'its document 2 has no top-level "Users" array (only NextToken)'],
    ['users that are not Cognito users', '{"Users":[{"id":"x","email":"a@b.example"}]}', 'its first user has neither Username nor Attributes'],
    ['a document cut short', `{"Users":[${one.slice(0, 120)}`, 'it is not readable JSON'],
    ['an empty file', '', 'it is empty'],
  ])('%s', async (_name, body, sentence) => {
    const file = written('wrong.json', body);
    const err = await refused(file);
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain(`${file} is not aws cognito-idp list-users output ({"Users":[…]}): ${sentence}`);
    expect(err.message).not.toContain('cg-demo');
    expect(err.message.split('\n')).toHaveLength(1);
  });

  it.each([
    ['list-users output given as --groups', readFileSync(USERS, 'utf8'), 'it is list-users output (a top-level "Users" array), not the users of each group'],
    ['a group that is a list', '{"staff":[]}', 'group "staff" is not list-users-in-group output'],
    ['a group without Users', '{"staff":{"NextToken":"x"}}', 'group "staff" has no "Users" array'],
    ['a group whose Users is no list', '{"staff":{"Users":"ada"}}', 'the "Users" of group "staff" is not an array'],
    ['a bare array', '[]', 'it is a JSON array'],
    ['broken JSON', '{"staff":{"Users":[', 'it is not readable JSON'],
    ['an empty file', '', 'it is empty'],
  ])('--groups: %s', async (_name, body, sentence) => {
    const file = written('wrong-groups.json', body);
    const err = (await GroupIndex.read(file).catch((e: Error) => e)) as Error;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toContain(`${file} is not a --groups file ({"<group>": <aws cognito-idp list-users-in-group output>, …}): ${sentence}`);
  });
});
