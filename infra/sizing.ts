import { DEFAULT_OWN_HASH_PARAMS, DEFAULT_PASSWORD_LIMITS } from '../lib/password/limits';

const MIB = 1024 * 1024;

/**
 * Lambda gives a function one full vCPU at 1,769 MB and proportionally less below. Hashing is
 * CPU-bound: bcrypt at the highest accepted cost (16) takes ~4.6 s of one core, Argon2 at
 * m=256 MiB, t=16 about 1.3–2.3 s, so password functions get at least one whole vCPU.
 */
export const HASHING_MIN_MEMORY_MB = 1769;

/** Node, the SDK and the bundle stay well under this; the hash's own buffer comes on top. */
export const RUNTIME_HEADROOM_MB = 256;

/** Memory of functions that never hash: JSON, one SSM call, a few DynamoDB requests. */
export const DEFAULT_MEMORY_MB = 256;

/** Hashing functions may spend this long: about 3× the slowest accepted hash on one vCPU. */
export const HASHING_TIMEOUT_SECONDS = 15;

/** Everything else answers within a few DynamoDB round trips; cold starts fit comfortably. */
export const DEFAULT_TIMEOUT_SECONDS = 5;

/**
 * Bulk functions parse and validate up to 6 MB of JSON (10,000 users) and write them in about a
 * hundred transactions: a whole vCPU, and nearly all the 30 s API Gateway waits for an answer.
 */
export const BULK_MEMORY_MB = 1769;
export const BULK_TIMEOUT_SECONDS = 29;

/**
 * Functions that may read a whole user list (`readsWholeList`: counts, filtered pages) read about
 * 0.075 read units per user listed (bench figure 12), 1 MB a call: at 10 million users that is about 6,000 calls,
 * 48 at once for a count (bench/SCALE.md). So they get all the 30 s API Gateway waits.
 */
export const LIST_READ_TIMEOUT_SECONDS = 29;

/** Lambda's ceiling. */
const MAX_MEMORY_MB = 10240;

function intOr(env: Readonly<Record<string, string>>, name: string, fallback: number): number {
  const raw = env[name];
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/**
 * The largest memory one hash operation may need, in MiB, under the configured limits (SPEC §8,
 * §7b): an imported Argon2 hash holds `m` KiB, vendor scrypt `128 · 2^mem_cost · rounds` bytes, a
 * §7b scrypt hash up to `SCRYPT_MAX_MEMORY_BYTES`, and the service's own Argon2id `ARGON2_MEMORY_KIB`.
 */
export function largestHashMemoryMiB(env: Readonly<Record<string, string>> = {}): number {
  const l = DEFAULT_PASSWORD_LIMITS;
  const argon2 = intOr(env, 'ARGON2_MAX_MEMORY_KIB', l.argon2MaxMemoryKiB) / 1024;
  const own = intOr(env, 'ARGON2_MEMORY_KIB', DEFAULT_OWN_HASH_PARAMS.memoryKiB) / 1024;
  const scrypt = (128 * 2 ** intOr(env, 'SCRYPT_MAX_MEM_COST', l.scryptMaxMemCost) * intOr(env, 'SCRYPT_MAX_ROUNDS', l.scryptMaxRounds)) / MIB;
  const scryptFamily = intOr(env, 'SCRYPT_MAX_MEMORY_BYTES', l.scryptMaxMemoryBytes) / MIB;
  return Math.ceil(Math.max(argon2, own, scrypt, scryptFamily));
}

/**
 * Memory for a function that verifies or computes password hashes: the largest allowed hash plus
 * runtime headroom, never below one full vCPU. With the default limits (256 MiB hashes) that is
 * 1,769 MB.
 */
export function hashingMemoryMb(env: Readonly<Record<string, string>> = {}): number {
  const needed = largestHashMemoryMiB(env) + RUNTIME_HEADROOM_MB;
  if (needed > MAX_MEMORY_MB) {
    throw new Error(`Hash limits need ${needed} MB of Lambda memory, above Lambda's ${MAX_MEMORY_MB} MB: lower them`);
  }
  return Math.max(HASHING_MIN_MEMORY_MB, needed);
}
