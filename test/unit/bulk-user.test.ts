import { parseBulkUser, primaryLoginMethodOf, type BulkValidationContext } from '../../lib/recipes/bulkimport/bulk-user';
import { DEFAULT_PASSWORD_LIMITS } from '../../lib/password/limits';
import { ARGON2_VECTORS, BCRYPT_VECTORS, VENDOR_SCRYPT_VECTORS } from '../fixtures/password-vectors';

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
const ep = (over: Record<string, unknown> = {}) => ({ recipeId: 'emailpassword', email: 'a@example.com', passwordHash: BCRYPT_VECTORS[0].hash, hashingAlgorithm: 'bcrypt', ...over });
const tp = (over: Record<string, unknown> = {}) => ({ recipeId: 'thirdparty', email: 'a@example.com', thirdPartyId: 'google', thirdPartyUserId: 'g-1', ...over });
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
    expect(primaryLoginMethodOf([{ isPrimary: false, timeJoined: 3, n: 1 }, { isPrimary: false, timeJoined: 3, n: 2 }]).n).toBe(1);
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
    const [both] = userOf({ loginMethods: [ep({ hashingAlgorithm: undefined, plainTextPassword: 'secret-1', passwordHash: ARGON2_VECTORS[1].hash })] }).loginMethods;
    expect([both.passwordHash, both.hashingAlgorithm, both.plainTextPassword]).toEqual([ARGON2_VECTORS[1].hash, 'ARGON2', undefined]);
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
    ['too many login methods', { loginMethods: Array.from({ length: 11 }, (_, i) => pl({ phoneNumber: `+1415555${String(1000 + i)}` })) }, ['A user can have at most 10 loginMethods.']],
    ['two primaries', { loginMethods: [pl({ isPrimary: true }), tp({ isPrimary: true })] }, ['No two loginMethods can have isPrimary as true.']],
    ['bad user field types', { externalUserId: '  ', userMetadata: [], userRoles: {}, totpDevices: 'x', loginMethods: [pl()] }, [
      'externalUserId should be of type string.',
      'userMetadata should be of type object.',
      'userRoles should be of type array of object.',
      'totpDevices should be of type array of object.',
    ]],
    ['null external id', { externalUserId: null, loginMethods: [pl()] }, ['externalUserId should be of type string.']],
    ['TOTP devices', { totpDevices: [{ secretKey: 'k' }], loginMethods: [pl()] }, ['TOTP devices are not supported.']],
    ['a long external id', { externalUserId: 'x'.repeat(129), loginMethods: [pl()] }, [`externalUserId ${'x'.repeat(129)} is too long. Max length is 128.`]],
    ['roles', { userRoles: [{ role: 'ghost', tenantIds: ['t9', 't2'] }, { tenantIds: [] }, { role: 'r'.repeat(256), tenantIds: ['public'] }, { role: 'admin' }], loginMethods: [pl()] }, [
      'Role ghost does not exist.',
      'Invalid tenantId: t9 for a user role.',
      'role is required for a user role.',
      `role ${'r'.repeat(256)} is too long. Max length is 255.`,
      `Role ${'r'.repeat(256)} does not exist.`,
      'tenantIds is required for a user role.',
      'TenantId t2 for a user role does not exist in loginMethods.',
    ]],
    ['too many role assignments', { userRoles: [{ role: 'admin', tenantIds: ['public', 't1'] }, ...Array.from({ length: 49 }, () => ({ role: 'viewer', tenantIds: ['public'] }))], loginMethods: [pl({ tenantIds: ['t1'] })] }, [
      'userRoles assigns 51 roles (role and tenant pairs): the maximum is 50.',
    ]],
    ['login method fields', { loginMethods: [{ recipeId: 'emailpassword2', tenantIds: ['nope', ''], isVerified: 'yes', isPrimary: 1, timeJoinedInMSSinceEpoch: 1.5 }] }, [
      'tenantIds should be of type array of string for a loginMethod.',
      'isVerified should be of type boolean for a loginMethod.',
      'isPrimary should be of type boolean for a loginMethod.',
      'timeJoinedInMSSinceEpoch should be of type integer for a loginMethod',
      'Invalid recipeId for loginMethod. Pass one of emailpassword, thirdparty or, passwordless!',
    ]],
    ['no recipe, unknown tenant, empty tenants', { loginMethods: [{ tenantIds: ['Nope'] }, pl({ tenantIds: [] })] }, [
      'recipeId is required for a loginMethod.',
      'Invalid tenantId: Nope for null recipe.',
      'tenantIds cannot be empty for a loginMethod.',
    ]],
    ['times', { loginMethods: [pl({ timeJoinedInMSSinceEpoch: NOW + 1 }), tp({ timeJoinedInMSSinceEpoch: -1 })] }, [
      'timeJoined cannot be in future for a loginMethod.',
      'timeJoined cannot be < 0 for a loginMethod.',
    ]],
    ['an emailpassword method without email or password', { loginMethods: [{ recipeId: 'emailpassword' }] }, [
      'email is required for an emailpassword recipe.',
      'Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.',
    ]],
    ['a hash without algorithm', { loginMethods: [ep({ hashingAlgorithm: undefined })] }, ['Either (passwordHash, hashingAlgorithm) or plainTextPassword is required for an emailpassword recipe.']],
    ['an unknown algorithm', { loginMethods: [ep({ hashingAlgorithm: 'md5' })] }, ['Invalid hashingAlgorithm for emailpassword recipe. Pass one of bcrypt, argon2 or, firebase_scrypt!']],
    ['a long hash', { loginMethods: [ep({ passwordHash: `$2a$10$${'a'.repeat(510)}` })] }, ['passwordHash is too long. Max length is 512.']],
    ['a hash of another algorithm', { loginMethods: [ep({ hashingAlgorithm: 'argon2' })] }, ['Password hash is in invalid Argon2 format: it must start with $argon2id$, $argon2i$ or $argon2d$']],
    ['a long password', { loginMethods: [ep({ passwordHash: undefined, hashingAlgorithm: undefined, plainTextPassword: 'é'.repeat(513) })] }, ['plainTextPassword is too long. Max length is 1024 bytes.']],
    ['emails', { loginMethods: [ep({ email: `${'a'.repeat(250)}@b.com` }), tp({ email: 'no-at-sign' }), pl({ phoneNumber: undefined, email: 'a b@c.d' })] }, [
      `email ${'a'.repeat(250)}@b.com is too long. Max length is 256.`,
      "email no-at-sign is not an email address: it has no '@' for a thirdparty recipe.",
      'email a b@c.d is not an email address: it contains whitespace for a passwordless recipe.',
    ]],
    ['third-party fields', { loginMethods: [{ recipeId: 'thirdparty', thirdPartyId: 'x'.repeat(29), thirdPartyUserId: 'u'.repeat(257) }] }, [
      'email is required for a thirdparty recipe.',
      `thirdPartyId ${'x'.repeat(29)} is too long. Max length is 28.`,
      `thirdPartyUserId ${'u'.repeat(257)} is too long. Max length is 256.`,
    ]],
    ['passwordless without email and phone', { loginMethods: [{ recipeId: 'passwordless' }] }, ['Either email or phoneNumber is required for a passwordless recipe.']],
    ['passwordless phones', { loginMethods: [pl({ phoneNumber: '4155552671' }), pl({ phoneNumber: `+${'1'.repeat(256)}` })] }, [
      'phoneNumber 4155552671 must be in international format, for example +14155552671 for a passwordless recipe.',
      `phoneNumber +${'1'.repeat(256)} is too long. Max length is 256.`,
    ]],
    ['lone surrogates', { externalUserId: 'a\ud800', loginMethods: [tp({ thirdPartyUserId: '\udc00' })] }, [
      'externalUserId is not valid Unicode: it holds a lone surrogate.',
      'thirdPartyUserId is not valid Unicode: it holds a lone surrogate for a thirdparty recipe.',
    ]],
    ['metadata with a lone surrogate', { userMetadata: { '\ud800': 1 }, loginMethods: [pl()] }, ['userMetadata is not valid Unicode: it holds a lone surrogate.']],
    ['metadata over the bound', { userMetadata: { big: 'x'.repeat(70_000) }, loginMethods: [pl()] }, ['userMetadata is 70010 bytes of JSON: the maximum is 65536.']],
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
      expect.stringContaining('vendor_password_hashing_signer_key'),
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
      `role ${'h'.repeat(300)}… is too long. Max length is 255.`,
      `Role ${'h'.repeat(300)}… does not exist.`,
      `thirdPartyUserId ${'h'.repeat(300)}… is too long. Max length is 256.`,
      `externalUserId ${'h'.repeat(300)}… is too long. Max length is 128.`,
    ]);
  });

  it('refuses an external id a former user of the request has, on the later user only', () => {
    const ctx = context();
    expect(errorsOf({ externalUserId: 'dup', loginMethods: [pl()] }, ctx)).toEqual([]);
    expect(errorsOf({ externalUserId: 'dup', loginMethods: [tp()] }, ctx)).toEqual(['externalUserId dup is not unique. It is already used by another user.']);
  });
});
