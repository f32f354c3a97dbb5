import { ARGON2_VECTORS, BCRYPT_VECTORS, VENDOR_SCRYPT_VECTORS, type HashVector } from '../fixtures/password-vectors';

/**
 * A mixed bulk export for the worker's tests and the bulk benchmark: eight kinds of users in
 * turn, every recipe and hash format, linked or not, in one or two tenants, with external ids,
 * metadata, roles (`member`, which must exist), verified flags and old join times. Tenant `shop`
 * must exist.
 */
const OLD = 1_300_000_000_000;
const PLAIN = 'plain text password 9';

/** What the user must look like once imported. */
export interface Expected {
  readonly ext: string;
  readonly recipes: string[];
  readonly timeJoined: number;
  readonly verified: boolean;
  readonly tenants: string[];
  readonly password?: { email: string; password: string };
  readonly metadata?: Record<string, unknown>;
  readonly roles?: string[];
}
const HASHED: HashVector[] = [BCRYPT_VECTORS[3], ARGON2_VECTORS[1], VENDOR_SCRYPT_VECTORS[0]];
const algorithmOf = (hash: string) => (hash.startsWith('$2') ? 'bcrypt' : hash.startsWith('$argon2') ? 'argon2' : 'firebase_scrypt');

export function mixedUser(run: string, i: number): { user: Record<string, unknown>; expected: Expected } {
  const ext = `${run}-${i}`;
  const email = `${run}-${i}@example.com`;
  const time = OLD + i;
  const phone = `+1415555${String(1000 + (i % 8000)).padStart(4, '0')}`;
  const kind = i % 8;
  const ep = (vector: HashVector, over: Record<string, unknown> = {}) => ({ recipeId: 'emailpassword', email, passwordHash: vector.hash, hashingAlgorithm: algorithmOf(vector.hash), timeJoinedInMSSinceEpoch: time, ...over });
  const tp = (over: Record<string, unknown> = {}) => ({ recipeId: 'thirdparty', email, thirdPartyId: 'google', thirdPartyUserId: `g-${ext}`, timeJoinedInMSSinceEpoch: time + 5, ...over });
  switch (kind) {
    case 0:
    case 2: {
      const vector = HASHED[kind === 0 ? 0 : 2];
      return {
        user: { externalUserId: ext, userMetadata: { i, plan: 'gold' }, userRoles: [{ role: 'member', tenantIds: ['public'] }], loginMethods: [ep(vector, { isVerified: true })] },
        expected: { ext, recipes: ['emailpassword'], timeJoined: time, verified: true, tenants: ['public'], password: { email, password: vector.password }, metadata: { i, plan: 'gold' }, roles: ['member'] },
      };
    }
    case 1:
      return {
        user: { externalUserId: ext, userRoles: [{ role: 'member', tenantIds: ['shop'] }], loginMethods: [ep(HASHED[1], { isPrimary: true, tenantIds: ['public', 'shop'] }), tp({ isVerified: true, timeJoinedInMSSinceEpoch: time - 1000 })] },
        expected: { ext, recipes: ['thirdparty', 'emailpassword'], timeJoined: time - 1000, verified: true, tenants: ['public', 'shop'], password: { email, password: HASHED[1].password } },
      };
    case 3:
      return { user: { externalUserId: ext, loginMethods: [tp({ isVerified: true, timeJoinedInMSSinceEpoch: time })] }, expected: { ext, recipes: ['thirdparty'], timeJoined: time, verified: true, tenants: ['public'] } };
    case 4:
      return { user: { externalUserId: ext, loginMethods: [{ recipeId: 'passwordless', email, isVerified: true, timeJoinedInMSSinceEpoch: time }] }, expected: { ext, recipes: ['passwordless'], timeJoined: time, verified: true, tenants: ['public'] } };
    case 5:
      return { user: { externalUserId: ext, loginMethods: [{ recipeId: 'passwordless', phoneNumber: phone, timeJoinedInMSSinceEpoch: time, tenantIds: ['shop'] }] }, expected: { ext, recipes: ['passwordless'], timeJoined: time, verified: false, tenants: ['shop'] } };
    case 6:
      return {
        user: { externalUserId: ext, userMetadata: { source: 'auth0' }, loginMethods: [{ recipeId: 'emailpassword', email, plainTextPassword: PLAIN, timeJoinedInMSSinceEpoch: time }] },
        expected: { ext, recipes: ['emailpassword'], timeJoined: time, verified: false, tenants: ['public'], password: { email, password: PLAIN }, metadata: { source: 'auth0' } },
      };
    default:
      return {
        user: { externalUserId: ext, loginMethods: [{ recipeId: 'passwordless', email, isPrimary: true, timeJoinedInMSSinceEpoch: time }, tp({ thirdPartyId: 'github' })] },
        expected: { ext, recipes: ['passwordless', 'thirdparty'], timeJoined: time, verified: false, tenants: ['public'] },
      };
  }
}

