import { createCipheriv, scryptSync } from 'node:crypto';
import { hashSync as argon2HashSync, type Algorithm, type Version } from '@node-rs/argon2';
import { genSaltSync, hashSync as bcryptHashSync } from 'bcryptjs';
import type { TestApi } from './api';
import { BCRYPT_VECTORS, VENDOR_SCRYPT_PROJECT, VENDOR_SCRYPT_VECTORS } from '../fixtures/password-vectors';

/**
 * A mixed bulk export for the worker's tests and the bulk benchmark: eight kinds of users in
 * turn, every recipe and every hash format of SPEC §7 (see `HASH_VARIANTS`), linked or not, in one
 * or two tenants, with external ids, metadata, roles (`member`, which must exist), verified flags
 * and old join times. Tenant `shop` must exist; the service's signer key must be
 * `VENDOR_SCRYPT_PROJECT.signerKey`.
 */
const OLD = 1_300_000_000_000;
const PLAIN = 'plain text password 9';

/** One of the hash formats of SPEC §7, as a bulk user carries it, with the password it hides. */
export interface HashVariant {
  /** What it stands for, e.g. `$2y$` or `argon2i v=16` or `firebase_scrypt base64url`. */
  readonly label: string;
  readonly hash: string;
  readonly hashingAlgorithm: 'bcrypt' | 'argon2' | 'firebase_scrypt';
  readonly password: string;
}

// @node-rs/argon2 declares its enums as ambient const enums, which isolatedModules cannot read
// (as in lib/password/own-hash.ts): their documented values.
const ARGON2_ALGORITHMS: readonly [string, Algorithm][] = [
  ['argon2d', 0 as Algorithm],
  ['argon2i', 1 as Algorithm],
  ['argon2id', 2 as Algorithm],
];
const ARGON2_VERSIONS: readonly [number, Version][] = [
  [16, 0 as Version],
  [19, 1 as Version],
];

/**
 * A Firebase scrypt hash of `password` under the vectors' project (the algorithm of
 * github.com/firebase/scrypt: scrypt of the password with salt ‖ separator keys AES-256-CTR with a
 * zero IV over the signer key), as node:crypto computes it.
 */
function firebaseScrypt(password: string, salt: Buffer): Buffer {
  const project = VENDOR_SCRYPT_PROJECT;
  const separator = Buffer.from(project.saltSeparator, 'base64');
  const N = 2 ** project.memCost;
  const key = scryptSync(Buffer.from(password, 'utf8'), Buffer.concat([salt, separator]), 32, { N, r: project.rounds, p: 1, maxmem: 256 * N * project.rounds });
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(Buffer.from(project.signerKey, 'base64')), cipher.final()]);
}

let variants: HashVariant[] | undefined;

/**
 * Every hash format SPEC §7 accepts, each with a password of its own: BCrypt `$2a$`, `$2b$`,
 * `$2y$` made by bcryptjs (cost 4, so that signing in 2,000 users stays fast) and `$2x$` from the
 * SuperTokens core's vector (no library at hand writes `$2x$`); Argon2 id, i and d at versions 16
 * and 19 made by @node-rs/argon2 (m = 64 KiB, t = 1); Firebase scrypt made with node:crypto, in
 * standard base64 as Firebase's CLI exports it and in base64url as its REST API and Admin SDK hand
 * it out. Made once per process: users share them, so a batch of thousands costs a dozen hashes.
 */
export function hashVariants(): readonly HashVariant[] {
  if (variants) return variants;
  const made: HashVariant[] = [];
  for (const revision of ['a', 'b', 'y']) {
    const password = `bcrypt 2${revision} password`;
    made.push({
      label: `$2${revision}$`,
      hash: bcryptHashSync(password, genSaltSync(4).replace('$2b$', `$2${revision}$`)),
      hashingAlgorithm: 'bcrypt',
      password,
    });
  }
  const x = BCRYPT_VECTORS.find((v) => v.hash.startsWith('$2x$')) as (typeof BCRYPT_VECTORS)[number];
  made.push({ label: '$2x$', hash: x.hash, hashingAlgorithm: 'bcrypt', password: x.password });
  for (const [name, algorithm] of ARGON2_ALGORITHMS) {
    for (const [v, version] of ARGON2_VERSIONS) {
      const password = `${name} v${v} password`;
      made.push({
        label: `${name} v=${v}`,
        hash: argon2HashSync(password, { algorithm, version, memoryCost: 64, timeCost: 1, parallelism: 1 }),
        hashingAlgorithm: 'argon2',
        password,
      });
    }
  }
  // The salt of Firebase's README vector: its standard base64 has a '+', so the base64url form differs.
  const salt = Buffer.from(VENDOR_SCRYPT_VECTORS[0].hash.split('$')[3], 'base64');
  const { memCost, rounds, saltSeparator } = VENDOR_SCRYPT_PROJECT;
  for (const alphabet of ['base64', 'base64url'] as const) {
    const password = `firebase ${alphabet} password`;
    const hash = firebaseScrypt(password, salt);
    made.push({
      label: `firebase_scrypt ${alphabet}`,
      hash: `$f_scrypt$${hash.toString(alphabet)}$${salt.toString(alphabet)}$m=${memCost}$r=${rounds}$s=${saltSeparator}`,
      hashingAlgorithm: 'firebase_scrypt',
      password,
    });
  }
  variants = made;
  return made;
}

/** A login method as the user object of SPEC §4 shows it: recipe, identity and its own verified state. */
export interface ExpectedLoginMethod {
  readonly recipeId: 'emailpassword' | 'thirdparty' | 'passwordless';
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly thirdParty?: { readonly id: string; readonly userId: string };
  readonly verified: boolean;
}

/** What the user must look like once imported. */
export interface Expected {
  readonly ext: string;
  /** Oldest first, as the user object lists them. */
  readonly loginMethods: ExpectedLoginMethod[];
  readonly timeJoined: number;
  readonly tenants: string[];
  /** The old password and, by label, the hash format it was imported in (`plainTextPassword` for none). */
  readonly password?: { email: string; password: string };
  readonly hashVariant?: string;
  readonly metadata?: Record<string, unknown>;
  readonly roles?: string[];
}

export function mixedUser(run: string, i: number): { user: Record<string, unknown>; expected: Expected } {
  const ext = `${run}-${i}`;
  const email = `${run}-${i}@example.com`;
  const time = OLD + i;
  const phone = `+1415555${String(1000 + (i % 8000)).padStart(4, '0')}`;
  const kind = i % 8;
  const all = hashVariants();
  // Each of the three kinds with a hash goes through every variant in turn.
  const variantFor = (slot: number) => all[(Math.floor(i / 8) + slot) % all.length];
  const ep = (variant: HashVariant, over: Record<string, unknown> = {}) => ({
    recipeId: 'emailpassword',
    email,
    passwordHash: variant.hash,
    hashingAlgorithm: variant.hashingAlgorithm,
    timeJoinedInMSSinceEpoch: time,
    ...over,
  });
  const tp = (over: Record<string, unknown> = {}) => ({
    recipeId: 'thirdparty',
    email,
    thirdPartyId: 'google',
    thirdPartyUserId: `g-${ext}`,
    timeJoinedInMSSinceEpoch: time + 5,
    ...over,
  });
  const epLm = (verified: boolean): ExpectedLoginMethod => ({ recipeId: 'emailpassword', email, verified });
  const tpLm = (id: string, verified: boolean): ExpectedLoginMethod => ({ recipeId: 'thirdparty', email, thirdParty: { id, userId: `g-${ext}` }, verified });
  switch (kind) {
    case 0:
    case 2: {
      const variant = variantFor(kind);
      return {
        user: {
          externalUserId: ext,
          userMetadata: { i, plan: 'gold' },
          userRoles: [{ role: 'member', tenantIds: ['public'] }],
          loginMethods: [ep(variant, { isVerified: true })],
        },
        expected: {
          ext,
          loginMethods: [epLm(true)],
          timeJoined: time,
          tenants: ['public'],
          password: { email, password: variant.password },
          hashVariant: variant.label,
          metadata: { i, plan: 'gold' },
          roles: ['member'],
        },
      };
    }
    case 1: {
      const variant = variantFor(1);
      return {
        user: {
          externalUserId: ext,
          userRoles: [{ role: 'member', tenantIds: ['shop'] }],
          loginMethods: [ep(variant, { isPrimary: true, tenantIds: ['public', 'shop'] }), tp({ isVerified: true, timeJoinedInMSSinceEpoch: time - 1000 })],
        },
        expected: {
          ext,
          loginMethods: [tpLm('google', true), epLm(false)],
          timeJoined: time - 1000,
          tenants: ['public', 'shop'],
          password: { email, password: variant.password },
          hashVariant: variant.label,
        },
      };
    }
    case 3:
      return {
        user: { externalUserId: ext, loginMethods: [tp({ isVerified: true, timeJoinedInMSSinceEpoch: time })] },
        expected: { ext, loginMethods: [tpLm('google', true)], timeJoined: time, tenants: ['public'] },
      };
    case 4:
      return {
        user: { externalUserId: ext, loginMethods: [{ recipeId: 'passwordless', email, isVerified: true, timeJoinedInMSSinceEpoch: time }] },
        expected: { ext, loginMethods: [{ recipeId: 'passwordless', email, verified: true }], timeJoined: time, tenants: ['public'] },
      };
    case 5:
      return {
        user: { externalUserId: ext, loginMethods: [{ recipeId: 'passwordless', phoneNumber: phone, timeJoinedInMSSinceEpoch: time, tenantIds: ['shop'] }] },
        expected: { ext, loginMethods: [{ recipeId: 'passwordless', phoneNumber: phone, verified: false }], timeJoined: time, tenants: ['shop'] },
      };
    case 6:
      return {
        user: {
          externalUserId: ext,
          userMetadata: { source: 'auth0' },
          loginMethods: [{ recipeId: 'emailpassword', email, plainTextPassword: PLAIN, timeJoinedInMSSinceEpoch: time }],
        },
        expected: {
          ext,
          loginMethods: [epLm(false)],
          timeJoined: time,
          tenants: ['public'],
          password: { email, password: PLAIN },
          hashVariant: 'plainTextPassword',
          metadata: { source: 'auth0' },
        },
      };
    default:
      return {
        user: {
          externalUserId: ext,
          loginMethods: [
            { recipeId: 'passwordless', email, isPrimary: true, timeJoinedInMSSinceEpoch: time },
            tp({ thirdPartyId: 'github', isVerified: true }),
          ],
        },
        expected: { ext, loginMethods: [{ recipeId: 'passwordless', email, verified: false }, tpLm('github', true)], timeJoined: time, tenants: ['public'] },
      };
  }
}

/** The staged rows of the bulk import, by status (none: all). */
export const bulkRowCount = async (api: TestApi, status?: string) =>
  (await api.get(`/bulk-import/users/count${status ? `?status=${status}` : ''}`)).json.count as number;

/**
 * Waits until no row is NEW or PROCESSING. It gives up only once the rows left have not gone down
 * for `stallMs`: on a loaded machine the worker is slow, not stuck, and a deadline for the whole
 * drain failed runs that were still importing (the test's own timeout bounds the wait).
 */
export async function bulkRowsDrained(api: TestApi, stallMs = Number(process.env.DRAIN_MS ?? 120_000)): Promise<void> {
  let fewest = Infinity;
  let until = Date.now() + stallMs;
  while (Date.now() < until) {
    const left = (await bulkRowCount(api, 'NEW')) + (await bulkRowCount(api, 'PROCESSING'));
    if (left === 0) return;
    if (left < fewest) {
      fewest = left;
      until = Date.now() + stallMs;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(
    `rows left: NEW ${await bulkRowCount(api, 'NEW')}, PROCESSING ${await bulkRowCount(api, 'PROCESSING')}; server log tail:\n${api.logs
      .filter((l) => !l.includes('"request"'))
      .slice(-8)
      .join('\n')}`,
  );
}
