import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Config } from '../config/config';
import type {
  BulkImportStore,
  BulkUserImportStore,
  BulkWorkerStore,
  EmailVerificationStore,
  MetadataStore,
  PasswordlessStore,
  PasswordResetStore,
  RoleReader,
  RoleStore,
  SessionStore,
  TenantStore,
  UserAccounts,
  UserSearch,
  UserStore,
} from '../storage/ports';

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
  /** What bulk import needs of users (`UserAccounts`): the same table as `users`. */
  readonly userAccounts: UserAccounts;
  readonly metadata: MetadataStore;
  readonly emailVerification: EmailVerificationStore;
  readonly passwordReset: PasswordResetStore;
  readonly roles: RoleStore;
  readonly roleReader: RoleReader;
  readonly passwordless: PasswordlessStore;
  readonly tenants: TenantStore;
  readonly sessions: SessionStore;
  readonly userSearch: UserSearch;
  readonly bulkImport: BulkImportStore;
  readonly bulkUserImport: BulkUserImportStore;
  readonly bulkWorker: BulkWorkerStore;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly config: Config;
}

/**
 * A request that loses a race (a concurrent request created or changed the same user first, so
 * its conditional write failed) reads again and retries, this often at most before it fails with
 * an error. With n requests racing for one user, each round lets at least one through.
 */
export const WRITE_TRIES = 8;

/** The pause before retry `n` (1, 2, …): short, growing and random, so racing requests fall out of step. */
const retryPauseMs = (n: number): number => 5 * 2 ** (n - 1) * (0.5 + Math.random());

/**
 * Runs `attempt` until it gives an answer; `undefined` means it lost a race and must read again.
 * `what` names the operation in the error thrown when it loses `WRITE_TRIES` times.
 */
export async function retryOnRace<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let n = 0; n < WRITE_TRIES; n++) {
    if (n > 0) await new Promise((resolve) => setTimeout(resolve, retryPauseMs(n)));
    const answer = await attempt();
    if (answer !== undefined) return answer;
  }
  throw new Error(`${what} lost the race for its user too often`);
}

export const systemClock: Clock = { now: () => Date.now() };

/** `node:crypto`'s CSPRNG: device ids, salts and codes must be unguessable. */
export const cryptoRandom: RandomSource = {
  bytes: (n) => randomBytes(n),
  uuid: () => randomUUID(),
  digits: (n) => Array.from({ length: n }, () => randomInt(0, 10)).join(''),
};
