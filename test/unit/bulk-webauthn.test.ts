import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { parseBulkUser, type BulkValidationContext } from '../../lib/recipes/bulkimport/bulk-user';
import { DEFAULT_PASSWORD_LIMITS } from '../../lib/password/limits';
import { encodeCbor, SoftAuthenticator } from '../support/webauthn';

/** A bulk user's webauthn login method (SPEC §21, passkey import): every rule and text, without DynamoDB. */
const NOW = 1_700_000_000_000;
let ids = 0;
const context = (over: Partial<BulkValidationContext> = {}): BulkValidationContext => ({
  tenants: new Set(['public', 't1']),
  roles: new Set(),
  now: NOW,
  newId: () => `00000000-0000-4000-8000-${(ids++).toString().padStart(12, '0')}`,
  externalUserIds: new Set(),
  hashOptions: { limits: DEFAULT_PASSWORD_LIMITS, signerKeyConfigured: true },
  passwordMigrationConfigured: false,
  rpIds: ['example.com', 'auth.example.com'],
  credentialIds: new Set(),
  ...over,
});
const es256 = new SoftAuthenticator(-7);
const ed25519 = new SoftAuthenticator(-8);
const rs256 = new SoftAuthenticator(-257);
const credential = (auth: SoftAuthenticator, over: Record<string, unknown> = {}) => ({
  credentialId: auth.id,
  publicKey: auth.coseKey().toString('base64url'),
  rpId: 'example.com',
  ...over,
});
const wa = (credentials: unknown, over: Record<string, unknown> = {}) => ({ recipeId: 'webauthn', email: 'Pat@Example.com', credentials, ...over });
const parse = (loginMethods: unknown[], ctx = context()) => parseBulkUser(JSON.parse(JSON.stringify({ loginMethods })), ctx);
const errorsOf = (loginMethods: unknown[], ctx = context()) => {
  const result = parse(loginMethods, ctx);
  return result.ok ? [] : result.errors;
};
const cose = (entries: [number, unknown][]) => encodeCbor(new Map(entries)).toString('base64url');
const id = (n: number) => randomBytes(n).toString('base64url');

describe('a webauthn login method of a bulk user (SPEC §21 passkey import)', () => {
  it('takes ES256, Ed25519 and RS256 keys with their defaults; ids and keys stored as base64url, the RP id lower-cased', () => {
    const raw = randomBytes(20);
    const result = parse([
      wa([
        credential(es256),
        credential(ed25519, { rpId: ' Auth.Example.com ', counter: 7, transports: ['usb', 'nfc'], aaguid: 'ADCE0002-35BC-C60A-648B-0B25F1F05503' }),
        // Keycloak's spelling: standard base64 with padding, of the id and the key.
        credential(rs256, { credentialId: raw.toString('base64'), publicKey: rs256.coseKey().toString('base64'), userHandle: 'dXNlcg', createdAt: 5 }),
      ]),
    ]);
    if (!result.ok) throw new Error(result.errors.join(' | '));
    const [lm] = result.user.loginMethods;
    expect([lm.recipeId, lm.email]).toEqual(['webauthn', 'pat@example.com']);
    expect(lm.webauthnCredentials).toEqual([
      {
        credentialId: es256.id,
        publicKey: es256.coseKey().toString('base64url'),
        rpId: 'example.com',
        counter: 0,
        transports: [],
        aaguid: '00000000-0000-0000-0000-000000000000',
        createdAt: NOW,
      },
      {
        credentialId: ed25519.id,
        publicKey: ed25519.coseKey().toString('base64url'),
        rpId: 'auth.example.com',
        counter: 7,
        transports: ['usb', 'nfc'],
        aaguid: 'adce0002-35bc-c60a-648b-0b25f1f05503',
        createdAt: NOW,
      },
      {
        credentialId: raw.toString('base64url'),
        publicKey: rs256.coseKey().toString('base64url'),
        rpId: 'example.com',
        counter: 0,
        transports: [],
        aaguid: '00000000-0000-0000-0000-000000000000',
        userHandle: 'dXNlcg',
        createdAt: 5,
      },
    ]);
  });

  it('links beside a password as any login method: the isPrimary one is primary', () => {
    const result = parse([
      { recipeId: 'emailpassword', email: 'pat@example.com', plainTextPassword: 'pw-123456' },
      wa([credential(es256)], { isPrimary: true }),
    ]);
    expect(result.ok && result.user.id === result.user.loginMethods[1].superTokensUserId).toBe(true);
  });

  const short = randomBytes(15).toString('base64url');
  const offCurve = cose([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.alloc(32, 1)],
    [-3, Buffer.alloc(32, 2)],
  ]);
  const weakRsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
  const cases: [string, unknown, string[]][] = [
    ['no credentials', wa(undefined), ['credentials is required for a webauthn recipe.']],
    ['credentials not an array of objects', wa(['x']), ['credentials should be of type array of object for a webauthn recipe.']],
    ['no credential', wa([]), ['credentials cannot be empty for a webauthn recipe.']],
    [
      '21 credentials',
      wa(Array.from({ length: 21 }, () => ({ ...credential(es256), credentialId: id(32) }))),
      ['A webauthn loginMethod can have at most 20 credentials.'],
    ],
    ['no email', { recipeId: 'webauthn', credentials: [credential(es256)] }, ['email is required for a webauthn recipe.']],
    [
      'missing fields',
      wa([{}]),
      ['credentialId is required for a webauthn recipe.', 'publicKey is required for a webauthn recipe.', 'rpId is required for a webauthn recipe.'],
    ],
    ['an id of 15 bytes', wa([credential(es256, { credentialId: short })]), [`Invalid credentialId ${short} for a webauthn recipe.`]],
    ['an id in no base64', wa([credential(es256, { credentialId: 'not base64!' })]), ['Invalid credentialId not base64! for a webauthn recipe.']],
    [
      'a key in no base64',
      wa([credential(es256, { publicKey: '***' })]),
      [`Invalid publicKey for credential ${es256.id}: not base64url or base64. Pass a COSE key with alg -7, -8 or -257.`],
    ],
    [
      'a key that is no CBOR',
      wa([credential(es256, { publicKey: Buffer.from([0xa5]).toString('base64url') })]),
      [`Invalid publicKey for credential ${es256.id}: it is not CBOR (CBOR map runs past the end of its bytes). Pass a COSE key with alg -7, -8 or -257.`],
    ],
    [
      'alg -35 (ES384)',
      wa([
        credential(es256, {
          publicKey: cose([
            [1, 2],
            [3, -35],
          ]),
        }),
      ]),
      [`Invalid publicKey for credential ${es256.id}: alg -35 is not one the recipe verifies. Pass a COSE key with alg -7, -8 or -257.`],
    ],
    [
      'an OKP key naming ES256',
      wa([
        credential(es256, {
          publicKey: cose([
            [1, 1],
            [3, -7],
          ]),
        }),
      ]),
      [`Invalid publicKey for credential ${es256.id}: kty 1 does not fit alg -7. Pass a COSE key with alg -7, -8 or -257.`],
    ],
    [
      'a point off the curve',
      wa([credential(es256, { publicKey: offCurve })]),
      [
        `Invalid publicKey for credential ${es256.id}: the key does not load (a point off its curve, or a malformed modulus). Pass a COSE key with alg -7, -8 or -257.`,
      ],
    ],
    [
      'an RSA key of 1024 bits',
      wa([
        credential(rs256, {
          publicKey: cose([
            [1, 3],
            [3, -257],
            [-1, Buffer.from(weakRsa.n as string, 'base64url')],
            [-2, Buffer.from(weakRsa.e as string, 'base64url')],
          ]),
        }),
      ]),
      [`Invalid publicKey for credential ${rs256.id}: n has 1024 bits, fewer than 2048. Pass a COSE key with alg -7, -8 or -257.`],
    ],
    [
      'another RP id',
      wa([credential(es256, { rpId: 'Old.Example.org' })]),
      [
        `rpId Old.Example.org of credential ${es256.id} is not this deployment's relying party id (WEBAUTHN_RP_ID=example.com,auth.example.com): passkeys only work under the RP ID they were made for.`,
      ],
    ],
    [
      'counter, transports, aaguid, createdAt',
      wa([credential(es256, { counter: -1, transports: Array.from({ length: 11 }, () => 'usb'), aaguid: 'nope', createdAt: NOW + 1 })]),
      [
        'counter should be >= 0 for a webauthn recipe.',
        'transports can have at most 10 entries of at most 64 characters for a webauthn recipe.',
        `aaguid nope of credential ${es256.id} is not a UUID for a webauthn recipe.`,
        'createdAt cannot be in future for a webauthn recipe.',
      ],
    ],
    [
      'types of the optional fields',
      wa([credential(es256, { counter: '1', transports: 'usb', aaguid: 1, userHandle: 2, createdAt: 1.5 })]),
      [
        'counter should be of type integer for a webauthn recipe.',
        'transports should be of type array of string for a webauthn recipe.',
        'aaguid should be of type string for a webauthn recipe.',
        'userHandle should be of type string for a webauthn recipe.',
        'createdAt should be of type integer for a webauthn recipe.',
      ],
    ],
    ['a counter past 32 bits', wa([credential(es256, { counter: 2 ** 32 })]), ['counter should be <= 4294967295 for a webauthn recipe.']],
    [
      'one id twice in a login method, base64 and base64url',
      wa([credential(es256), credential(ed25519, { credentialId: es256.credentialId.toString('base64') })]),
      [`credentialId ${es256.id} is not unique. It is already used by another credential.`],
    ],
  ];
  it.each(cases)('refuses %s with its text', (_name, lm, expected) => {
    expect(errorsOf([lm])).toEqual(expected);
  });

  it('refuses a passkey import without WEBAUTHN_RP_ID, once per login method', () => {
    expect(errorsOf([wa([credential(es256), credential(ed25519)])], context({ rpIds: [] }))).toEqual([
      'Passkey import needs WEBAUTHN_RP_ID: set it to the relying party id the passkeys were made for.',
    ]);
  });

  it('refuses a credential id an earlier user of the request has, on the later user only', () => {
    const ctx = context();
    expect(parse([wa([credential(es256)])], ctx).ok).toBe(true);
    expect(errorsOf([wa([credential(es256)], { email: 'other@example.com' })], ctx)).toEqual([
      `credentialId ${es256.id} is not unique. It is already used by another credential.`,
    ]);
  });
});
