import type { AuthUser, WebauthnCredentialRecord, WebauthnOptionsRecord } from '../model';
import type { FoundLogin, UserWriteResult } from './users';

/** A passkey found by its credential id: its key and counter, and the login method its guard names. */
export interface FoundCredential {
  readonly credential: WebauthnCredentialRecord;
  /** The guard's snapshot of the webauthn login method (naming its primary user, if any). */
  readonly login: FoundLogin;
}

/** What a sign-in reads before it verifies. */
export interface SignInState {
  readonly options?: WebauthnOptionsRecord;
  readonly found?: FoundCredential;
}

/** The first assertion accepted on a set of options (SPEC §21): what sign-in writes. */
export interface SignInUse {
  readonly optionsId: string;
  /** SHA-256 (hex) of the assertion as sent: its one byte-identical repeat is let through. */
  readonly digest: string;
  readonly credentialId: string;
  readonly recipeUserId: string;
  /** The counter read; the write holds only while the credential still has it. */
  readonly counterRead: number;
  readonly counter: number;
  readonly at: number;
}

/**
 * WebAuthn options and passkeys (SPEC §21). A passkey is a guard of its credential id, derived from
 * its login method like every guard (so removal and linking carry it), and its key beside that
 * guard, which this store writes with the user change that adds the guard.
 */
export interface WebauthnStore {
  /** Stores new options; `false` when the id is taken (a UUID: never, in practice). */
  putOptions(options: WebauthnOptionsRecord): Promise<boolean>;
  /** Options by id, read consistently, expired or not (the caller judges). */
  getOptions(optionsId: string): Promise<WebauthnOptionsRecord | undefined>;
  /** Deletes options of this tenant; `false` when it has none of that id. */
  removeOptions(optionsId: string, tenantId: string): Promise<boolean>;
  /** A passkey and its login method: one consistent Query of its credential id's partition. */
  getCredential(credentialId: string): Promise<FoundCredential | undefined>;
  /**
   * What a sign-in reads, in one consistent BatchGetItem: the options, and the passkey (its guard
   * and key) when `credentialId` is given.
   */
  getSignInState(optionsId: string, credentialId: string | undefined): Promise<SignInState>;
  /** Passkeys by credential id (one consistent BatchGetItem), in the order asked; missing ones left out. */
  getCredentials(credentialIds: readonly string[]): Promise<WebauthnCredentialRecord[]>;
  /**
   * Replaces the `before` users with the `after` users (see `UserStore.writeUsers`; no user id may
   * leave) and stores the new passkey's key beside its guard, in one transaction:
   * `IDENTITY_TAKEN` `webauthnCredential` when its credential id is held, `email` when the email is.
   */
  writeUsersWithCredential(before: readonly AuthUser[], after: readonly AuthUser[], credential: WebauthnCredentialRecord): Promise<UserWriteResult>;
  /**
   * Spends the options (only if no assertion spent them) and stores the counter (only if it is
   * still the one read), in one transaction; `STALE` when either changed since the read.
   */
  recordSignIn(use: SignInUse): Promise<'OK' | 'STALE'>;
  /** The one repeat of the assertion that spent the options: `uses` 1 → 2, only from 1 and for that digest. */
  recordRepeat(optionsId: string, digest: string): Promise<'OK' | 'STALE'>;
}
