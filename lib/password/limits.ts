/**
 * Upper bounds on the cost parameters an imported hash may carry. Sign-in pays whatever
 * cost the imported hash names, inside a Lambda with bounded memory and time, so a hash
 * beyond these bounds is refused at import (400) rather than stalling sign-in later.
 */
export interface PasswordLimits {
  /** Lowest accepted bcrypt cost (log2 of the rounds). */
  bcryptMinCost: number;
  /** Highest accepted bcrypt cost (log2 of the rounds). */
  bcryptMaxCost: number;
  /** Highest accepted Argon2 memory, `m=` in KiB. */
  argon2MaxMemoryKiB: number;
  /** Highest accepted Argon2 iterations (passes over memory), `t=`. */
  argon2MaxIterations: number;
  /** Highest accepted Argon2 parallelism (lanes), `p=`. */
  argon2MaxParallelism: number;
  /** Highest accepted vendor scrypt `mem_cost` (log2 of scrypt's N), `m=`. */
  scryptMaxMemCost: number;
  /** Highest accepted vendor scrypt `rounds` (scrypt's block size r), `r=`. */
  scryptMaxRounds: number;
  /** SPEC §7b: highest accepted PBKDF2 (and ASP.NET Identity) iterations. */
  pbkdf2MaxIterations: number;
  /** SPEC §7b: highest accepted SHA-crypt rounds. */
  shaCryptMaxRounds: number;
  /** SPEC §7b: highest accepted phpass and Drupal log2 count. */
  phpassMaxLog2Count: number;
  /** SPEC §7b's scrypt family (not vendor scrypt): highest accepted N. */
  scryptMaxN: number;
  /** SPEC §7b's scrypt family: highest accepted block size r. */
  scryptMaxR: number;
  /** SPEC §7b's scrypt family: highest accepted parallelism p. */
  scryptMaxP: number;
  /** SPEC §7b's scrypt family: highest accepted memory, 128·N·r bytes. */
  scryptMaxMemoryBytes: number;
  /** SPEC §7b's scrypt family: highest accepted work, N·r·p. */
  scryptMaxWork: number;
}

/** bcrypt's own minimum (2^4 rounds): lower costs are not bcrypt and libraries reject them. */
export const BCRYPT_MIN_COST = 4;
/** Each step doubles the time: 16 is 64× cost 10 (~4.6 s in bcryptjs), the most a sign-in Lambda can spend. */
export const BCRYPT_MAX_COST = 16;
/** Argon2 holds m KiB in memory during a verification: 256 MiB leaves room in a 512 MiB+ Lambda. */
export const ARGON2_MAX_MEMORY_KIB = 262144;
/** Time grows linearly with passes over memory: 16 passes of 256 MiB stay within a sign-in's time budget. */
export const ARGON2_MAX_ITERATIONS = 16;
/** Lanes beyond a Lambda's few vCPUs add no speed, only threads and per-lane overhead. */
export const ARGON2_MAX_PARALLELISM = 16;
/** scrypt memory is 128·2^mem_cost·rounds bytes: 17 with 16 rounds is 256 MiB of Lambda memory. */
export const SCRYPT_MAX_MEM_COST = 17;
/** scrypt memory and time are linear in rounds: 16 with mem_cost 17 is 256 MiB (Firebase uses 8). */
export const SCRYPT_MAX_ROUNDS = 16;

/** Parameters of the service's own password hashing (Argon2id). */
export interface OwnHashParams {
  /** Memory in KiB (`m=`). */
  memoryKiB: number;
  /** Passes over memory (`t=`). */
  iterations: number;
  /** Lanes (`p=`). */
  parallelism: number;
}

/**
 * OWASP Password Storage Cheat Sheet's argon2id recommendation (m=19 MiB, t=2, p=1):
 * about 11 ms per verification with @node-rs/argon2, cheap enough for a Lambda sign-in.
 */
export const DEFAULT_OWN_HASH_PARAMS: OwnHashParams = Object.freeze({
  memoryKiB: 19456,
  iterations: 2,
  parallelism: 1,
});

/** Passwords are bounded in UTF-8 bytes: hashing cost grows with length. */
export const MAX_PASSWORD_BYTES = 1024;

/**
 * The longest password (UTF-8 bytes) checked against a hash that digests the password again at
 * every round: MD5-crypt and `$apr1$`, SHA-crypt, phpass, Drupal, and LDAP's `{CRYPT}` of them.
 * Their bounds count rounds, and a round costs more the longer the password: at the default bounds,
 * best of 5 here, sha512-crypt's 1,000,000 rounds took 1.5 s with 8 bytes, 2.6 s with 512 and 4.9 s
 * with 1,024, phpass's 2^20 0.9 s, 2.5 s and 5.0 s. At 512 every check stays within the 4.6 s of
 * bcrypt's cost 16, the most a sign-in spends; at the 1,024-byte input bound it would not. No tool
 * that writes most of these hashes takes a longer one: libxcrypt's crypt(3) (mkpasswd, Linux's
 * shadow) refuses 512 bytes or more, Drupal 7+ more than 512 (phpass, WordPress and passlib take up
 * to 4,096: such a user resets the password). Longer is a wrong password, the check never run.
 */
export const CRYPT_MAX_PASSWORD_BYTES = 512;

/*
 * Bounds of SPEC §7b's families (its limits table). An imported hash past one is refused at import,
 * never accepted and then slow at sign-in; the check pays whatever the hash names. The highest cost
 * of each is a default that configuration may override (`DEFAULT_PASSWORD_LIMITS`); the lowest and
 * the key lengths are the formats' own and stay.
 */

/** PBKDF2 and ASP.NET Identity: Django 6 writes 1,200,000 and OWASP's SHA-1 figure is 1,300,000; 2M SHA-256 is about 1.2 s here. */
export const PBKDF2_MAX_ITERATIONS = 2_000_000;
/** A key shorter than 16 bytes is guessable by chance; each digest block of a longer key repeats all the iterations. */
export const PBKDF2_MIN_KEY_BYTES = 16;
/** 64 bytes: one SHA-512 block, two SHA-256 blocks; every real writer stays within. */
export const PBKDF2_MAX_KEY_BYTES = 64;
/** scrypt's N up to 2^20 (passlib 2^16, Werkzeug 2^15, Django 2^14 fit). */
export const SCRYPT_MAX_N = 2 ** 20;
/** scrypt's block size r: memory and time are linear in it (every writer uses 8, some 16). */
export const SCRYPT_MAX_R = 32;
/** scrypt's parallelism p: time is linear in it (Django 5). */
export const SCRYPT_MAX_P = 16;
/** scrypt holds 128·N·r bytes during a check: 256 MiB, as Argon2's m bound. */
export const SCRYPT_MAX_MEMORY_BYTES = 268_435_456;
/** scrypt's work is N·r·p block mixes: 2^22 is about Django's default (2^14·8·5) times six. */
export const SCRYPT_MAX_WORK = 4_194_304;
/** A derived key shorter than 16 bytes is guessable by chance; longer than 64 adds nothing any writer uses. */
export const SCRYPT_MIN_KEY_BYTES = 16;
export const SCRYPT_MAX_KEY_BYTES = 64;
/**
 * glibc's minimum: it raises a lower count to 1,000, so no tool writes one. Refused at import rather
 * than verified as 1,000 (SPEC §7b's limits).
 */
export const SHA_CRYPT_MIN_ROUNDS = 1000;
/** passlib's defaults (535,000 and 656,000) fit; 1,000,000 costs about what bcrypt cost 16 does. */
export const SHA_CRYPT_MAX_ROUNDS = 1_000_000;
/** phpass's own minimum (`crypt_private` refuses a lower count), and Drupal 7's. */
export const PHPASS_MIN_LOG2_COUNT = 7;
/**
 * 2^20 digests per sign-in; WordPress (13), phpBB (11), Drupal (15–16) and passlib (19) fit, where
 * phpass itself would run 2^30.
 */
export const PHPASS_MAX_LOG2_COUNT = 20;

/** The limits of SPEC sections 8 and 7b; configuration may override them (`lib/config/config.ts`). */
export const DEFAULT_PASSWORD_LIMITS: PasswordLimits = Object.freeze({
  bcryptMinCost: BCRYPT_MIN_COST,
  bcryptMaxCost: BCRYPT_MAX_COST,
  argon2MaxMemoryKiB: ARGON2_MAX_MEMORY_KIB,
  argon2MaxIterations: ARGON2_MAX_ITERATIONS,
  argon2MaxParallelism: ARGON2_MAX_PARALLELISM,
  scryptMaxMemCost: SCRYPT_MAX_MEM_COST,
  scryptMaxRounds: SCRYPT_MAX_ROUNDS,
  pbkdf2MaxIterations: PBKDF2_MAX_ITERATIONS,
  shaCryptMaxRounds: SHA_CRYPT_MAX_ROUNDS,
  phpassMaxLog2Count: PHPASS_MAX_LOG2_COUNT,
  scryptMaxN: SCRYPT_MAX_N,
  scryptMaxR: SCRYPT_MAX_R,
  scryptMaxP: SCRYPT_MAX_P,
  scryptMaxMemoryBytes: SCRYPT_MAX_MEMORY_BYTES,
  scryptMaxWork: SCRYPT_MAX_WORK,
});
