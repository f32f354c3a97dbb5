import { parseBulkUser, primaryLoginMethodOf, type BulkValidationContext } from '../../lib/recipes/bulkimport/bulk-user';
import { DEFAULT_PASSWORD_LIMITS } from '../../lib/password/limits';
import { ARGON2_VECTORS, BCRYPT_VECTORS, VENDOR_SCRYPT_VECTORS } from '../fixtures/password-vectors';
import { FAMILY_VECTORS } from '../fixtures/hash-family-vectors';

/** RFC 6238's SHA-1 seed, `12345678901234567890`, in base32. */
const SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

/** The bulk user of SPEC §15: every rule and text, without DynamoDB. */
const NOW = 1_700_000_000_000;
let ids = 0;
const context = (over: Partial<BulkValidationContext> = {}): BulkValidationContext => ({
  tenants: new Set(['public', 't1', 't2']),
  roles: new Set(['admin', 'viewer']),
  now: NOW,
  newId: () => `00000000-0000-4000-8000-${(ids++).toString().padStart(12, '0')}`,
  externalUserIds: new Set(),
  hashOptions: { limits: DEFAULT_PASSWORD_LIMITS, signerKeyConfigured: true },
  passwordMigrationConfigured: true,
  rpIds: ['example.com'],
  credentialIds: new Set(),
  ...over,
});
/** As the body carries it: JSON (a field set to `undefined` is absent). */
const asJson = (raw: unknown): unknown => (raw === undefined ? raw : JSON.parse(JSON.stringify(raw)));
const errorsOf = (raw: unknown, ctx = context()) => {
  const result = parseBulkUser(asJson(raw), ctx);
  return result.ok ? [] : result.errors;
};
const userOf = (raw: unknown, ctx = context()) => {
  const result = parseBulkUser(asJson(raw), ctx);
  if (!result.ok) throw new Error(`invalid: ${result.errors.join(' | ')}`);
  return result.user;
};
const ep = (over: Record<string, unknown> = {}) => ({
  recipeId: 'emailpassword',
  email: 'a@example.com',
  passwordHash: BCRYPT_VECTORS[0].hash,
  hashingAlgorithm: 'bcrypt',
  ...over,
});
const tp = (over: Record<string, unknown> = {}) => ({
  recipeId: 'thirdparty',
  email: 'a@example.com',
  thirdPartyId: 'google',
  thirdPartyUserId: 'g-1',
  ...over,
});
const pl = (over: Record<string, unknown> = {}) => ({ recipeId: 'passwordless', phoneNumber: '+1 415 555 2671', ...over });

describe('a valid bulk user', () => {
  it('is normalised: emails trimmed and lower-cased, phones E.164, tenants lower-cased, defaults filled in', () => {
    const user = userOf({
      externalUserId: ' old-1 ',
      userMetadata: { plan: 'pro' },
      userRoles: [{ role: ' admin ', tenantIds: ['T1'] }],
      totpDevices: [],
      loginMethods: [ep({ email: '  Ada@Example.COM ', tenantIds: [' T1 '], timeJoinedInMSSinceEpoch: 1000 }), pl(), tp({ isVerified: true })],
    });
    expect(user.externalUserId).toBe('old-1');
    expect(user.userRoles).toEqual([{ role: 'admin', tenantIds: ['t1'] }]);
    expect(user.loginMethods.map((lm) => [lm.recipeId, lm.email, lm.phoneNumber, lm.tenantIds, lm.timeJoined, lm.isVerified, lm.isPrimary])).toEqual([
      ['emailpassword', 'ada@example.com', undefined, ['t1'], 1000, false, false],
      ['passwordless', undefined, '+14155552671', ['public'], NOW, false, false],
      ['thirdparty', 'a@example.com', undefined, ['public'], NOW, true, false],
    ]);
    // The oldest login method is the primary one without isPrimary: its id is the row's.
    expect(user.id).toBe(user.loginMethods[0].superTokensUserId);
    expect(new Set(user.loginMethods.map((lm) => lm.superTokensUserId)).size).toBe(3);
  });

  it('takes the isPrimary login method as primary, and the first of equally old ones otherwise', () => {
    const marked = userOf({ loginMethods: [ep({ timeJoinedInMSSinceEpoch: 1 }), tp({ isPrimary: true, timeJoinedInMSSinceEpoch: 5 })] });
    expect(marked.id).toBe(marked.loginMethods[1].superTokensUserId);
    expect(
      primaryLoginMethodOf([
        { isPrimary: false, timeJoined: 3, n: 1 },
        { isPrimary: false, timeJoined: 3, n: 2 },
      ]).n,
    ).toBe(1);
  });

  it('parses every hash format in full and names its algorithm as the core does; a hash beside a password needs no algorithm', () => {
    for (const [vector, name, label] of [
      [BCRYPT_VECTORS[1], 'BCRYPT', 'BCRYPT'],
      [ARGON2_VECTORS[0], 'argon2', 'ARGON2'],
      [VENDOR_SCRYPT_VECTORS[0], 'firebase_scrypt', 'FIREBASE_SCRYPT'],
      [VENDOR_SCRYPT_VECTORS[0], 'vendor_scrypt', 'FIREBASE_SCRYPT'],
    ] as const) {
      const [lm] = userOf({ loginMethods: [ep({ passwordHash: ` ${vector.hash} `, hashingAlgorithm: name })] }).loginMethods;
      expect([lm.passwordHash, lm.hashingAlgorithm, lm.plainTextPassword]).toEqual([vector.hash, label, undefined]);
    }
    const [plain] = userOf({ loginMethods: [ep({ passwordHash: undefined, hashingAlgorithm: undefined, plainTextPassword: 'secret-1' })] }).loginMethods;
    expect([plain.passwordHash, plain.plainTextPassword]).toEqual([undefined, 'secret-1']);
    const [both] = userOf({
      loginMethods: [ep({ hashingAlgorithm: undefined, plainTextPassword: 'secret-1', passwordHash: ARGON2_VECTORS[1].hash })],
    }).loginMethods;
    expect([both.passwordHash, both.hashingAlgorithm, both.plainTextPassword]).toEqual([ARGON2_VECTORS[1].hash, 'ARGON2', undefined]);
  });

  it('takes every SPEC §7b family, the row showing its value upper-cased, with the same 400 texts', () => {
    for (const vector of FAMILY_VECTORS.filter((v) => v.family !== null)) {
      const name = vector.family as string;
      const [lm] = userOf({ loginMethods: [ep({ passwordHash: vector.hash, hashingAlgorithm: name === 'pbkdf2' ? 'Pbkdf2' : name })] }).loginMethods;
      expect([lm.passwordHash, lm.hashingAlgorithm]).toEqual([vector.hash, name.toUpperCase()]);
    }
    expect(errorsOf({ loginMethods: [ep({ passwordHash: 'pbkdf2_sha256$0$salt$c2FsdHNhbHRzYWx0c2FsdA==', hashingAlgorithm: 'pbkdf2' })] })).toEqual([
      'Password hash is in invalid PBKDF2 format: iterations must be between 1 and 2000000',
    ]);
    expect(errorsOf({ loginMethods: [ep({ hashingAlgorithm: 'scrypt' })] })).toEqual([
      'Password hash is in invalid scrypt format: this is a BCrypt hash, import it with hashingAlgorithm bcrypt',
    ]);
    for (const unknown of ['sha256', 'md5', 'pbkdf2_sha256']) {
      expect(errorsOf({ loginMethods: [ep({ hashingAlgorithm: unknown })] })).toEqual([
        'Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, firebase_scrypt!',
      ]);
    }
  });

  it('takes TOTP devices (SPEC §20): the secret as stored (spaces and = removed, upper-cased), the core defaults, names trimmed or the core default past every name of the user', () => {
    const user = userOf({
      totpDevices: [
        { secretKey: ' gezd gnbv\tgy3t qojq gezd gnbv gy3t qojq== ' },
        { secretKey: SEED, deviceName: ' TOTP Device 0 ', period: 60, skew: 0 },
        { secretKey: 'MZXW6', deviceName: 'Phone', skew: 100 },
        { secretKey: SEED },
      ],
      loginMethods: [pl()],
    });
    expect(user.totpDevices).toEqual([
      { deviceName: 'TOTP Device 1', secretKey: SEED, period: 30, skew: 1 },
      { deviceName: 'TOTP Device 0', secretKey: SEED, period: 60, skew: 0 },
      { deviceName: 'Phone', secretKey: 'MZXW6', period: 30, skew: 100 },
      { deviceName: 'TOTP Device 3', secretKey: SEED, period: 30, skew: 1 },
    ]);
    expect(
      userOf({ totpDevices: Array.from({ length: 10 }, () => ({ secretKey: SEED })), loginMethods: [pl()] }).totpDevices?.map((d) => d.deviceName),
    ).toEqual(Array.from({ length: 10 }, (_, i) => `TOTP Device ${i}`));
    expect(userOf({ totpDevices: [], loginMethods: [pl()] }).totpDevices).toBeUndefined();
  });

  it('never shows a TOTP secret in an error, not even one too long or no base32', () => {
    const secrets = [`${SEED}${'A'.repeat(240)}`, 'SECRET-1-NOT-BASE32'];
    const errors = errorsOf({ totpDevices: secrets.map((secretKey) => ({ secretKey })), loginMethods: [pl()] });
    expect(errors).toEqual(['TOTP secretKey is too long. Max length is 256.', 'secretKey is not valid base32 for a totp device.']);
    for (const secret of secrets) expect(errors.join('\n')).not.toContain(secret.slice(0, 16));
  });

  it("takes the user's required second factors in its metadata, as the SDK's MultiFactorAuth reads them", () => {
    const userMetadata = { _supertokens: { requiredSecondaryFactors: ['totp'] }, plan: 'pro' };
    expect(userOf({ userMetadata, loginMethods: [pl()] }).userMetadata).toEqual(userMetadata);
  });

  it('ignores unknown fields', () => {
    expect(errorsOf({ loginMethods: [pl({ extra: 1 })], whatever: { a: 1 } })).toEqual([]);
  });
});

describe('the errors of a bulk user, with the core texts, collected in field order', () => {
  const cases: [string, unknown, string[]][] = [
    ['not an object', 'x', ['A user should be of type object.']],
    ['no login methods', {}, ['loginMethods is required.']],
    ['empty login methods', { loginMethods: [] }, ['At least one loginMethod is required.']],
    ['login methods of another type', { loginMethods: [1] }, ['loginMethods should be of type array of object.']],
    [
      'too many login methods',
      { loginMethods: Array.from({ length: 11 }, (_, i) => pl({ phoneNumber: `+1415555${String(1000 + i)}` })) },
      ['A user can have at most 10 loginMethods.'],
    ],
    ['two primaries', { loginMethods: [pl({ isPrimary: true }), tp({ isPrimary: true })] }, ['No two loginMethods can have isPrimary as true.']],
    [
      'bad user field types',
      { externalUserId: '  ', userMetadata: [], userRoles: {}, totpDevices: 'x', loginMethods: [pl()] },
      [
        'externalUserId should be of type string.',
        'userMetadata should be of type object.',
        'userRoles should be of type array of object.',
        'totpDevices should be of type array of object.',
      ],
    ],
    ['null external id', { externalUserId: null, loginMethods: [pl()] }, ['externalUserId should be of type string.']],
    ['TOTP devices of another type', { totpDevices: [{ secretKey: SEED }, 'x'], loginMethods: [pl()] }, ['totpDevices should be of type array of object.']],
    ['a TOTP device without a secret', { totpDevices: [{ deviceName: 'Phone' }], loginMethods: [pl()] }, ['secretKey is required for a totp device.']],
    [
      'TOTP device field types',
      {
        totpDevices: [
          { secretKey: 7, period: '30', skew: 1.5, deviceName: '  ' },
          { secretKey: ' ', period: null },
        ],
        loginMethods: [pl()],
      },
      [
        'secretKey should be of type string for a totp device.',
        'period should be of type integer for a totp device.',
        'skew should be of type integer for a totp device.',
        'deviceName should be of type string for a totp device.',
        'secretKey should be of type string for a totp device.',
        'period should be of type integer for a totp device.',
      ],
    ],
    [
      'TOTP device values out of range',
      {
        totpDevices: [
          { secretKey: 'A'.repeat(257), period: 0, skew: -1, deviceName: 'n'.repeat(257) },
          { secretKey: SEED, skew: 101 },
        ],
        loginMethods: [pl()],
      },
      [
        'TOTP secretKey is too long. Max length is 256.',
        'period should be > 0 for a totp device.',
        'skew should be >= 0 for a totp device.',
        `TOTP deviceName ${'n'.repeat(257)} is too long. Max length is 256.`,
        'skew should be <= 100 for a totp device.',
      ],
    ],
    [
      'TOTP secrets that are no base32',
      { totpDevices: [{ secretKey: 'GEZDGNBV1' }, { secretKey: '= =' }, { secretKey: 'GEZDGNBVG' }], loginMethods: [pl()] },
      Array.from({ length: 3 }, () => 'secretKey is not valid base32 for a totp device.'),
    ],
    [
      'two TOTP devices of one name',
      {
        totpDevices: [
          { secretKey: SEED, deviceName: 'Phone' },
          { secretKey: SEED, deviceName: ' Phone ' },
        ],
        loginMethods: [pl()],
      },
      ['TOTP deviceName Phone is not unique. It is already used by another totp device.'],
    ],
    [
      'too many TOTP devices',
      { totpDevices: Array.from({ length: 11 }, () => ({ secretKey: SEED })), loginMethods: [pl()] },
      ['A user can have at most 10 totpDevices.'],
    ],
    ['a long external id', { externalUserId: 'x'.repeat(129), loginMethods: [pl()] }, [`externalUserId ${'x'.repeat(129)} is too long. Max length is 128.`]],
    [
      'roles',
      {
        userRoles: [{ role: 'ghost', tenantIds: ['t9', 't2'] }, { tenantIds: [] }, { role: 'r'.repeat(256), tenantIds: ['public'] }, { role: 'admin' }],
        loginMethods: [pl()],
      },
      [
        'Role ghost does not exist.',
        'Invalid tenantId: t9 for a user role.',
        'TenantId t2 for a user role does not exist in loginMethods.',
        'role is required for a user role.',
        `role ${'r'.repeat(256)} is too long. Max length is 255.`,
        `Role ${'r'.repeat(256)} does not exist.`,
        'tenantIds is required for a user role.',
      ],
    ],
    [
      'too many role assignments',
      {
        userRoles: [{ role: 'admin', tenantIds: ['public', 't1'] }, ...Array.from({ length: 49 }, () => ({ role: 'viewer', tenantIds: ['public'] }))],
        loginMethods: [pl({ tenantIds: ['t1'] })],
      },
      ['userRoles assigns 51 roles (role and tenant pairs): the maximum is 50.'],
    ],
    [
      'login method fields',
      { loginMethods: [{ recipeId: 'emailpassword2', tenantIds: ['nope', ''], isVerified: 'yes', isPrimary: 1, timeJoinedInMSSinceEpoch: 1.5 }] },
      [
        'Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!',
        'tenantIds should be of type array of string for a loginMethod.',
        'isVerified should be of type boolean for a loginMethod.',
        'isPrimary should be of type boolean for a loginMethod.',
        'timeJoinedInMSSinceEpoch should be of type integer for a loginMethod',
      ],
    ],
    [
      'no recipe, unknown tenant, empty tenants',
      { loginMethods: [{ tenantIds: ['Nope'] }, pl({ tenantIds: [] })] },
      ['recipeId is required for a loginMethod.', 'Invalid tenantId: Nope for null recipe.', 'tenantIds cannot be empty for a loginMethod.'],
    ],
    [
      'times',
      { loginMethods: [pl({ timeJoinedInMSSinceEpoch: NOW + 1 }), tp({ timeJoinedInMSSinceEpoch: -1 })] },
      ['timeJoined cannot be in future for a loginMethod.', 'timeJoined cannot be < 0 for a loginMethod.'],
    ],
    [
      'an emailpassword method without email or password',
      { loginMethods: [{ recipeId: 'emailpassword' }] },
      [
        'email is required for an emailpassword recipe.',
        'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
      ],
    ],
    [
      'a hash without algorithm',
      { loginMethods: [ep({ hashingAlgorithm: undefined })] },
      ['Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.'],
    ],
    [
      'an unknown algorithm',
      { loginMethods: [ep({ hashingAlgorithm: 'md5' })] },
      ['Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, firebase_scrypt!'],
    ],
    ['a long hash', { loginMethods: [ep({ passwordHash: `$2a$10$${'a'.repeat(510)}` })] }, ['passwordHash is too long. Max length is 512.']],
    [
      'a hash of another algorithm',
      { loginMethods: [ep({ hashingAlgorithm: 'argon2' })] },
      ['Password hash is in invalid Argon2 format: it must start with $argon2id$, $argon2i$ or $argon2d$'],
    ],
    [
      'a long password',
      { loginMethods: [ep({ passwordHash: undefined, hashingAlgorithm: undefined, plainTextPassword: 'é'.repeat(513) })] },
      ['plainTextPassword is too long. Max length is 1024 bytes.'],
    ],
    [
      'emails',
      { loginMethods: [ep({ email: `${'a'.repeat(250)}@b.com` }), tp({ email: 'no-at-sign' }), pl({ phoneNumber: undefined, email: 'a b@c.d' })] },
      [
        `email ${'a'.repeat(250)}@b.com is too long. Max length is 256.`,
        "email no-at-sign is not an email address: it has no '@' for a thirdparty recipe.",
        'email a b@c.d is not an email address: it contains whitespace for a passwordless recipe.',
      ],
    ],
    [
      'third-party fields',
      { loginMethods: [{ recipeId: 'thirdparty', thirdPartyId: 'x'.repeat(29), thirdPartyUserId: 'u'.repeat(257) }] },
      [
        'email is required for a thirdparty recipe.',
        `thirdPartyId ${'x'.repeat(29)} is too long. Max length is 28.`,
        `thirdPartyUserId ${'u'.repeat(257)} is too long. Max length is 256.`,
      ],
    ],
    [
      'passwordless without email and phone',
      { loginMethods: [{ recipeId: 'passwordless' }] },
      ['Either email or phoneNumber is required for a passwordless recipe.'],
    ],
    [
      'passwordless phones',
      { loginMethods: [pl({ phoneNumber: '4155552671' }), pl({ phoneNumber: `+${'1'.repeat(256)}` })] },
      [
        'phoneNumber 4155552671 must be in international format, for example +14155552671 for a passwordless recipe.',
        `phoneNumber +${'1'.repeat(256)} is too long. Max length is 256.`,
      ],
    ],
    [
      'lone surrogates',
      { externalUserId: 'a\ud800', loginMethods: [tp({ thirdPartyUserId: '\udc00' })] },
      [
        'externalUserId is not valid Unicode: it holds a lone surrogate.',
        'thirdPartyUserId is not valid Unicode: it holds a lone surrogate for a thirdparty recipe.',
      ],
    ],
    [
      'metadata with a lone surrogate',
      { userMetadata: { '\ud800': 1 }, loginMethods: [pl()] },
      ['userMetadata is not valid Unicode: it holds a lone surrogate.'],
    ],
    [
      'metadata over the bound',
      { userMetadata: { big: 'x'.repeat(70_000) }, loginMethods: [pl()] },
      ['userMetadata is 70010 bytes of JSON: the maximum is 65536.'],
    ],
    [
      'an unknown tenant of each recipe',
      { loginMethods: [ep({ tenantIds: ['T9'] }), tp({ tenantIds: ['public', 'nope'] }), pl({ tenantIds: ['gone'] })] },
      ['Invalid tenantId: T9 for emailpassword recipe.', 'Invalid tenantId: nope for thirdparty recipe.', 'Invalid tenantId: gone for passwordless recipe.'],
    ],
    [
      'third-party ids missing',
      { loginMethods: [tp({ thirdPartyId: undefined }), tp({ thirdPartyUserId: undefined })] },
      ['thirdPartyId is required for a thirdparty recipe.', 'thirdPartyUserId is required for a thirdparty recipe.'],
    ],
    // One case per suffix `<field> should be of type string<sfx>` can carry (the user's own is above).
    ['a recipe id of another type', { loginMethods: [{ recipeId: 7 }] }, ['recipeId should be of type string for a loginMethod.']],
    [
      'emailpassword fields of another type',
      { loginMethods: [ep({ email: 5, passwordHash: null, hashingAlgorithm: ' ', plainTextPassword: false })] },
      [
        'email should be of type string for an emailpassword recipe.',
        'passwordHash should be of type string for an emailpassword recipe.',
        'hashingAlgorithm should be of type string for an emailpassword recipe.',
        'plainTextPassword should be of type string for an emailpassword recipe.',
        'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
      ],
    ],
    [
      'thirdparty fields of another type',
      { loginMethods: [tp({ email: [], thirdPartyId: 1, thirdPartyUserId: {} })] },
      [
        'email should be of type string for a thirdparty recipe.',
        'thirdPartyId should be of type string for a thirdparty recipe.',
        'thirdPartyUserId should be of type string for a thirdparty recipe.',
      ],
    ],
    [
      'passwordless fields of another type',
      { loginMethods: [pl({ email: 1, phoneNumber: '' })] },
      [
        'email should be of type string for a passwordless recipe.',
        'phoneNumber should be of type string for a passwordless recipe.',
        'Either email or phoneNumber is required for a passwordless recipe.',
      ],
    ],
    [
      'role fields of another type',
      {
        userRoles: [
          { role: 3, tenantIds: 'public' },
          { role: 'admin', tenantIds: ['public', ' '] },
        ],
        loginMethods: [pl()],
      },
      [
        'role should be of type string for a user role.',
        'tenantIds should be of type array of string for a user role.',
        'tenantIds should be of type array of string for a user role.',
      ],
    ],
  ];
  it.each(cases)('%s', (_name, raw, expected) => {
    expect(errorsOf(raw)).toEqual(expected);
  });

  it('refuses a metadata nesting deeper than 64 levels', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = { d: deep };
    expect(errorsOf({ userMetadata: deep, loginMethods: [pl()] })).toEqual(['userMetadata nests deeper than 64 levels.']);
  });

  it('refuses a Firebase scrypt hash when no signer key is configured', () => {
    const ctx = context({ hashOptions: { limits: DEFAULT_PASSWORD_LIMITS, signerKeyConfigured: false } });
    expect(errorsOf({ loginMethods: [ep({ passwordHash: VENDOR_SCRYPT_VECTORS[0].hash, hashingAlgorithm: 'firebase_scrypt' })] }, ctx)).toEqual([
      'vendor_password_hashing_signer_key is not configured',
    ]);
  });
  it('takes an email-password login method without a hash for password migration at sign-in (SPEC §16), alone and only when configured', () => {
    const marked = ep({ passwordHash: undefined, hashingAlgorithm: undefined, migratePasswordOnSignIn: true });
    expect(userOf({ loginMethods: [marked] }).loginMethods[0]).toMatchObject({ email: 'a@example.com', migratePasswordOnSignIn: true });
    expect(userOf({ loginMethods: [marked] }).loginMethods[0].passwordHash).toBeUndefined();
    expect(errorsOf({ loginMethods: [marked] }, context({ passwordMigrationConfigured: false }))).toEqual([
      'Password migration at sign-in is not configured for an emailpassword recipe.',
    ]);
    const combined = 'migratePasswordOnSignIn cannot be combined with passwordHash, hashingAlgorithm or plainTextPassword for an emailpassword recipe.';
    expect(errorsOf({ loginMethods: [ep({ migratePasswordOnSignIn: true })] })).toEqual([combined]);
    expect(errorsOf({ loginMethods: [{ ...marked, plainTextPassword: 'pw' }] })).toEqual([combined]);
    expect(errorsOf({ loginMethods: [{ ...marked, migratePasswordOnSignIn: 'yes' }] })).toEqual([
      'migratePasswordOnSignIn should be of type boolean for an emailpassword recipe.',
      'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
    ]);
    // `false` is as if absent: a password is needed.
    expect(errorsOf({ loginMethods: [{ ...marked, migratePasswordOnSignIn: false }] })).toEqual([
      'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
    ]);
  });

  it('echoes at most the start of an over-long value, so an answer stays far smaller than the request', () => {
    const huge = 'h'.repeat(1_000_000);
    const errors = errorsOf({ externalUserId: huge, userRoles: [{ role: huge, tenantIds: ['public'] }], loginMethods: [tp({ thirdPartyUserId: huge })] });
    expect(errors).toEqual([
      `externalUserId ${'h'.repeat(300)}… is too long. Max length is 128.`,
      `role ${'h'.repeat(300)}… is too long. Max length is 255.`,
      `Role ${'h'.repeat(300)}… does not exist.`,
      `thirdPartyUserId ${'h'.repeat(300)}… is too long. Max length is 256.`,
    ]);
  });

  it('lists the errors of several wrong fields in field order (SPEC §15), not in the order they are checked', () => {
    // The newcomer's case of issue #33: the external id's error before the login methods'.
    expect(errorsOf({ externalUserId: 'x'.repeat(129) })).toEqual([
      `externalUserId ${'x'.repeat(129)} is too long. Max length is 128.`,
      'loginMethods is required.',
    ]);
    // Every field of the user and of its login methods wrong at once; each field's errors together,
    // its type first, a rule over several fields after them, the login methods in their order.
    const ctx = context({ externalUserIds: new Set(['taken']) });
    expect(
      errorsOf(
        {
          loginMethods: [
            { recipeId: 'passwordless', isPrimary: true, email: 'a b@c.d', phoneNumber: '4155552671', tenantIds: ['t1'] },
            {
              timeJoinedInMSSinceEpoch: -1,
              isPrimary: true,
              recipeId: 'emailpassword',
              email: 7,
              plainTextPassword: 'é'.repeat(513),
              hashingAlgorithm: 'md5',
              passwordHash: `$2a$10$${'a'.repeat(510)}`,
            },
            { thirdPartyUserId: 'u'.repeat(257), thirdPartyId: 'x'.repeat(29), isVerified: 'yes', tenantIds: ['Nope'], recipeId: 'thirdparty' },
            { recipeId: 'passwordless', email: 5 },
          ],
          totpDevices: [{ secretKey: 'k', skew: -1 }],
          userRoles: [
            { tenantIds: ['t2', 't9'], role: 'ghost' },
            { role: 'admin', tenantIds: ['t1'] },
          ],
          userMetadata: { '\ud800': 1 },
          externalUserId: 'taken',
        },
        ctx,
      ),
    ).toEqual([
      'externalUserId taken is not unique. It is already used by another user.',
      'userMetadata is not valid Unicode: it holds a lone surrogate.',
      'Role ghost does not exist.',
      'Invalid tenantId: t9 for a user role.',
      'TenantId t2 for a user role does not exist in loginMethods.',
      'secretKey is not valid base32 for a totp device.',
      'skew should be >= 0 for a totp device.',
      'No two loginMethods can have isPrimary as true.',
      'email a b@c.d is not an email address: it contains whitespace for a passwordless recipe.',
      'phoneNumber 4155552671 must be in international format, for example +14155552671 for a passwordless recipe.',
      'timeJoined cannot be < 0 for a loginMethod.',
      'email should be of type string for an emailpassword recipe.',
      'Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, firebase_scrypt!',
      'plainTextPassword is too long. Max length is 1024 bytes.',
      'Invalid tenantId: Nope for thirdparty recipe.',
      'isVerified should be of type boolean for a loginMethod.',
      'email is required for a thirdparty recipe.',
      `thirdPartyId ${'x'.repeat(29)} is too long. Max length is 28.`,
      `thirdPartyUserId ${'u'.repeat(257)} is too long. Max length is 256.`,
      'email should be of type string for a passwordless recipe.',
      'Either email or phoneNumber is required for a passwordless recipe.',
    ]);
    // A hash checked with its algorithm still reports before the algorithm and the password.
    expect(
      errorsOf({
        loginMethods: [ep({ email: 'a@b', passwordHash: `$2a$10$${'a'.repeat(510)}`, hashingAlgorithm: 'BCRYPT', plainTextPassword: 'é'.repeat(513) })],
      }),
    ).toEqual(['passwordHash is too long. Max length is 512.', 'plainTextPassword is too long. Max length is 1024 bytes.']);
  });

  it('refuses an external id a former user of the request has, on the later user only', () => {
    const ctx = context();
    expect(errorsOf({ externalUserId: 'dup', loginMethods: [pl()] }, ctx)).toEqual([]);
    expect(errorsOf({ externalUserId: 'dup', loginMethods: [tp()] }, ctx)).toEqual(['externalUserId dup is not unique. It is already used by another user.']);
  });
});

describe('the password hash of a bulk user: the texts of SPEC §7 and the bounds of §8, as passwordhash/import answers them', () => {
  const [bcrypt] = BCRYPT_VECTORS;
  const [argon2] = ARGON2_VECTORS;
  const [scrypt] = VENDOR_SCRYPT_VECTORS;
  const hashErrors = (passwordHash: string, hashingAlgorithm: string | undefined, over: Record<string, unknown> = {}, ctx = context()) =>
    errorsOf({ loginMethods: [ep({ passwordHash, hashingAlgorithm, ...over })] }, ctx);
  const cases: [string, string, string | undefined, string][] = [
    [
      'a BCrypt hash too short',
      '$2a$10$tooShort',
      'bcrypt',
      'Password hash is in invalid BCrypt format: the salt and hash must be 53 characters (22 salt + 31 hash), not 8',
    ],
    [
      'a BCrypt cost of one digit',
      bcrypt.hash.replace('$10$', '$9$'),
      'BCRYPT',
      "Password hash is in invalid BCrypt format: the cost must be two digits followed by '$'",
    ],
    [
      'a vendor scrypt hash without its separator',
      scrypt.hash.replace('$s=Bw==', ''),
      'firebase_scrypt',
      'Password hash is in invalid vendor scrypt format: it must have the form $f_scrypt$<hash>$<salt>$m=<mem_cost>$r=<rounds>$s=<salt_separator>',
    ],
    [
      'a vendor scrypt hash with a bad salt',
      scrypt.hash.replace('$42xEC+ixf3L2lw==$', '$42x*C$'),
      'vendor_scrypt',
      'Password hash is in invalid vendor scrypt format: the salt must be non-empty base64 (standard or URL-safe alphabet)',
    ],
    [
      'an Argon2 hash with an unknown version',
      argon2.hash.replace('v=19', 'v=18'),
      'argon2',
      'Password hash is in invalid Argon2 format: the version must be v=19 or v=16',
    ],
    [
      'a provider prefix',
      `bcrypt${bcrypt.hash}`,
      'bcrypt',
      "Password hash starts with the provider prefix 'bcrypt': remove it and import the hash from '$2a$' on",
    ],
    [
      'a braced provider prefix',
      `{ARGON2}${argon2.hash}`,
      'argon2',
      "Password hash starts with the provider prefix '{ARGON2}': remove it and import the hash from '$argon2id$' on",
    ],
    [
      'a BCrypt-SHA256 hash named bcrypt',
      `bcrypt_sha256$${bcrypt.hash}`,
      'bcrypt',
      'Password hash is in invalid BCrypt format: this is a BCrypt-SHA256 hash, import it with hashingAlgorithm bcrypt_sha256',
    ],
    ['a bcrypt cost over 16', bcrypt.hash.replace('$10$', '$17$'), 'bcrypt', 'Password hash bcrypt cost 17 is above the maximum of 16'],
    [
      'an Argon2 memory over 256 MiB',
      argon2.hash.replace('m=16,', 'm=262145,'),
      'argon2',
      'Password hash Argon2 memory m=262145 KiB is above the maximum of 262144 KiB',
    ],
    ['Argon2 iterations over 16', argon2.hash.replace('t=2,', 't=17,'), 'argon2', 'Password hash Argon2 iterations t=17 is above the maximum of 16'],
    [
      'an Argon2 parallelism over 16',
      argon2.hash.replace('m=16,t=2,p=1', 'm=4096,t=2,p=17'),
      'argon2',
      'Password hash Argon2 parallelism p=17 is above the maximum of 16',
    ],
    [
      'a scrypt mem_cost over 17',
      scrypt.hash.replace('$m=14$', '$m=18$'),
      'firebase_scrypt',
      'Password hash vendor scrypt mem_cost m=18 is above the maximum of 17',
    ],
    ['scrypt rounds over 16', scrypt.hash.replace('$r=8$', '$r=17$'), 'firebase_scrypt', 'Password hash vendor scrypt rounds r=17 is above the maximum of 16'],
  ];
  it.each(cases)('refuses %s with its sentence', (_name, hash, algorithm, expected) => {
    expect(hashErrors(hash, algorithm)).toEqual([expected]);
  });

  it('refuses a hash beside a plain-text password in no known format ("Password hash is in invalid format"), naming the formats', () => {
    expect(hashErrors('md5:0123456789abcdef', undefined, { plainTextPassword: 'secret-1' })).toEqual([
      'Password hash is in invalid format: it is not a BCrypt ($2a$, $2b$, $2x$, $2y$), Argon2 ($argon2id$, $argon2i$, $argon2d$) or vendor scrypt ($f_scrypt$) hash',
    ]);
  });

  it('refuses a bcrypt cost under a configured minimum', () => {
    const ctx = context({ hashOptions: { limits: { ...DEFAULT_PASSWORD_LIMITS, bcryptMinCost: 6 }, signerKeyConfigured: true } });
    expect(hashErrors(BCRYPT_VECTORS[3].hash, 'bcrypt', {}, ctx)).toEqual(['Password hash bcrypt cost 5 is below the minimum of 6']);
  });
});
