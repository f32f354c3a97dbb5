import type { PasswordResetTokenRecord } from '../model';

/**
 * Password reset tokens (SPEC §18b): a token item found by its hash, and the tokens of a user,
 * so that using one ends all of them.
 */
export interface PasswordResetStore {
  /** Stores a token (and its entry among the tokens of its user) in one transaction. */
  createToken(token: PasswordResetTokenRecord): Promise<void>;
  /** A token by its hash, read consistently (expired ones too: expiry is the caller's check). */
  getToken(tokenHash: string): Promise<PasswordResetTokenRecord | undefined>;
  /**
   * Uses a token up: deletes it, only if it still exists (`TOKEN_GONE` otherwise: of concurrent
   * uses of one token, or of two tokens of one user, exactly one is `OK`), and every other token of
   * its user, in one transaction.
   */
  useToken(token: PasswordResetTokenRecord): Promise<'OK' | 'TOKEN_GONE'>;
  /** Deletes every token of a user (the SuperTokens id the tokens were made for). */
  revokeTokens(userId: string): Promise<void>;
}
