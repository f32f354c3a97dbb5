import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Config } from '../config/config';
import type { PasswordlessStore, TenantStore, UserStore } from '../storage/ports';

/** Time source; tests pass their own to move time. */
export interface Clock {
  now(): number;
}

/** Randomness; always a CSPRNG in production. */
export interface RandomSource {
  bytes(n: number): Buffer;
  uuid(): string;
  /** `n` decimal digits, uniformly random. */
  digits(n: number): string;
}

/** Everything a recipe function may depend on; each takes only the part it needs (`Pick`). */
export interface Deps {
  readonly users: UserStore;
  readonly passwordless: PasswordlessStore;
  readonly tenants: TenantStore;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config: Config;
}

/**
 * A write that loses a race (a concurrent request created or changed the same user first) is
 * re-read and tried again this often before the request fails with an error.
 */
export const WRITE_TRIES = 4;

export const systemClock: Clock = { now: () => Date.now() };

/** `node:crypto`'s CSPRNG: device ids, salts and codes must be unguessable. */
export const cryptoRandom: RandomSource = {
  bytes: (n) => randomBytes(n),
  uuid: () => randomUUID(),
  digits: (n) => Array.from({ length: n }, () => randomInt(0, 10)).join(''),
};
