import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Config } from '../config/config';
import type { BulkImportStore } from '../storage/ports/bulk-import';
import type { BulkUserImportStore } from '../storage/ports/bulk-user-import';
import type { BulkWorkerStore } from '../storage/ports/bulk-worker';
import type { EmailVerificationStore } from '../storage/ports/email-verification';
import type { MetadataStore } from '../storage/ports/metadata';
import type { PasswordResetStore } from '../storage/ports/password-reset';
import type { PasswordlessStore } from '../storage/ports/passwordless';
import type { RoleReader, RoleStore } from '../storage/ports/roles';
import type { SessionStore } from '../storage/ports/sessions';
import type { TenantConfigStore } from '../storage/ports/tenant-configs';
import type { TenantStore } from '../storage/ports/tenants';
import type { TotpStore, TotpUsage } from '../storage/ports/totp';
import type { UserLists } from '../storage/ports/user-lists';
import type { UserLookups } from '../storage/ports/user-lookups';
import type { UserSearch } from '../storage/ports/user-search';
import type { UserAccounts, UserStore } from '../storage/ports/users';
import type { WebauthnStore } from '../storage/ports/webauthn';
import type { WebauthnRecoveryStore } from '../storage/ports/webauthn-recovery';

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
  /** Users looked up by email or phone on the identity index: the same table. */
  readonly userLookups: UserLookups;
  /** A tenant's users listed and counted: the same table. */
  readonly userLists: UserLists;
  readonly metadata: MetadataStore;
  readonly emailVerification: EmailVerificationStore;
  readonly passwordReset: PasswordResetStore;
  readonly roles: RoleStore;
  readonly roleReader: RoleReader;
  readonly passwordless: PasswordlessStore;
  readonly tenants: TenantStore;
  /** A tenant's configuration with its third-party providers (SPEC §22): the same partition. */
  readonly tenantConfigs: TenantConfigStore;
  readonly totp: TotpStore;
  /** What the id mapping checks need of TOTP (`TotpUsage`): the same items as `totp`. */
  readonly totpUsage: TotpUsage;
  readonly sessions: SessionStore;
  readonly userSearch: UserSearch;
  /** WebAuthn options and passkeys (SPEC §21): the same table. */
  readonly webauthn: WebauthnStore;
  /** WebAuthn account recovery tokens (SPEC §21): the same table. */
  readonly webauthnRecovery: WebauthnRecoveryStore;
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
export const retryPauseMs = (n: number): number => 5 * 2 ** (n - 1) * (0.5 + Math.random());

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
