import type { JsonObject, SessionRecord, SigningKeyRecord, StoredSigningKeys } from '../model';

/** A session's change of payloads (`undefined`: unchanged). */
export interface SessionDataChange {
  readonly userDataInJWT?: JsonObject;
  readonly userDataInDatabase?: JsonObject;
}

/** The `OK` of an exchange kept for its `Idempotency-Key` (by its SHA-256) until `until` (ms). */
export interface ExchangeReplay {
  readonly keyHash: string;
  readonly until: number;
  readonly answer: string;
}

/** Sessions and their keys (SPEC §18). */
export interface SessionStore {
  /**
   * The ids a session of `userId` answers with: the primary user's and the login method's, each
   * the external id where one is mapped; `userId` itself for both when no user has it (the core
   * does not check that the user exists).
   */
  sessionUserOf(userId: string): Promise<{ userId: string; recipeUserId: string }>;
  createSession(session: SessionRecord): Promise<void>;
  getSession(handle: string): Promise<SessionRecord | undefined>;
  /**
   * Moves a session from the refresh token `from` (its hash²) to `to` and slides its expiry
   * (the core's promotion): idempotent for racing promoters of one token. `MOVED`: the session is
   * at neither (its current state is given); `MISSING`: no such session, or expired at `now`.
   */
  promote(
    handle: string,
    from: string,
    to: string,
    now: number,
    expiresAt: number,
    useStaticKey?: boolean,
  ): Promise<{ status: 'OK' | 'MOVED'; session: SessionRecord } | { status: 'MISSING' }>;
  setUseStaticKey(handle: string, useStaticKey: boolean): Promise<void>;
  /** Replaces payloads of a live session; `undefined` when it is gone or expired at `now`. */
  updateSession(handle: string, change: SessionDataChange, now: number): Promise<SessionRecord | undefined>;
  /** Deletes sessions; answers the handles that existed. */
  removeSessions(handles: readonly string[]): Promise<string[]>;
  /** The live sessions (at `now`) created with any of `userIds`, in `tenantId` or every tenant. */
  sessionsOfUsers(userIds: readonly string[], tenantId: string | undefined, now: number): Promise<SessionRecord[]>;
  readSigningKeys(): Promise<StoredSigningKeys>;
  /**
   * Marks an exchanged token (SPEC §19) used, by its hash, until `keepUntil` (ms): conditional, so of
   * racing calls exactly one gets `true`. `replay`: the answer kept for an `Idempotency-Key`. A
   * `false` to a call with a `replay` comes with the replay the first use kept, if any.
   */
  consumeExchangedToken(
    tokenHash: string,
    keepUntil: number,
    replay: ExchangeReplay | undefined,
  ): Promise<{ consumed: true } | { consumed: false; replay?: ExchangeReplay }>;
  /** The replay the use of an exchanged token kept for its `Idempotency-Key` (read after its write), if any. */
  exchangeReplay(tokenHash: string): Promise<ExchangeReplay | undefined>;
  /** Conditional: `false` when another function made this generation's key first. */
  addDynamicKey(generation: number, key: SigningKeyRecord, deleteAfter: number): Promise<boolean>;
  addStaticKey(key: SigningKeyRecord): Promise<boolean>;
  addRefreshTokenKey(key: string): Promise<boolean>;
}
