import { hash, verify } from '@node-rs/argon2';
import type { Algorithm, Version } from '@node-rs/argon2';
import { argon2Format } from './argon2';
import type { OwnHashParams } from './limits';

/**
 * `Algorithm.Argon2id` and `Version.V0x13`: @node-rs/argon2 declares them as ambient
 * `const enum`s whose runtime objects are empty, and `isolatedModules` cannot inline
 * them, so the numeric values are written here.
 */
const ARGON2ID = 2 as Algorithm;
const VERSION_19 = 1 as Version;
/** A fixed, non-secret password: only the cost of verifying against it matters. */
const DUMMY_PASSWORD = 'dummy-password-for-unknown-accounts';

function hashOptions(params: OwnHashParams): {
  algorithm: Algorithm;
  version: Version;
  memoryCost: number;
  timeCost: number;
  parallelism: number;
} {
  return {
    algorithm: ARGON2ID,
    version: VERSION_19,
    memoryCost: params.memoryKiB,
    timeCost: params.iterations,
    parallelism: params.parallelism,
  };
}

/**
 * Hashes a password with the service's own algorithm.
 *
 * @returns an Argon2id (v=19) PHC string with a fresh 16-byte random salt.
 */
export function hashPassword(password: string, params: OwnHashParams): Promise<string> {
  return hash(password, hashOptions(params));
}

/**
 * Whether a stored hash should be replaced after a successful sign-in.
 *
 * @returns false only for Argon2id, version 19, with exactly the given m, t and p.
 */
export function needsRehash(stored: string, params: OwnHashParams): boolean {
  if (!argon2Format.matches(stored)) {
    return true;
  }
  const parsed = argon2Format.parse(stored);
  if (!parsed.ok) {
    return true;
  }
  const current = parsed.params;
  return !(
    current.variant === 'argon2id' &&
    current.version === 19 &&
    current.memoryKiB === params.memoryKiB &&
    current.iterations === params.iterations &&
    current.parallelism === params.parallelism
  );
}

const dummyHashes = new Map<string, Promise<string>>();

function dummyHash(params: OwnHashParams): Promise<string> {
  const key = `${params.memoryKiB},${params.iterations},${params.parallelism}`;
  let pending = dummyHashes.get(key);
  if (!pending) {
    pending = hashPassword(DUMMY_PASSWORD, params);
    pending.catch(() => dummyHashes.delete(key));
    dummyHashes.set(key, pending);
  }
  return pending;
}

/**
 * Spends about one own-algorithm verification, for a sign-in whose email is unknown.
 *
 * Why: answering an unknown email faster than a wrong password would reveal which emails
 * have accounts. The hash verified against is computed once per parameter set, lazily,
 * and shared by concurrent callers; the result is discarded.
 */
export async function dummyVerify(password: string, params: OwnHashParams): Promise<void> {
  await verify(await dummyHash(params), password);
}
