import type { WebauthnRecoveryTokenRecord } from '../model';

/**
 * WebAuthn account recovery tokens (SPEC §21): a token item found by its tenant and hash, and the
 * tokens of an email in a tenant, so that consuming one ends all of them.
 */
export interface WebauthnRecoveryStore {
  /** Stores a token (and its entry among the tokens of its email) in one transaction. */
  createToken(token: WebauthnRecoveryTokenRecord): Promise<void>;
  /** A token of a tenant by its hash, read consistently (expired ones too: expiry is the caller's check). */
  getToken(tenantId: string, tokenHash: string): Promise<WebauthnRecoveryTokenRecord | undefined>;
  /**
   * Uses a token up: deletes it, only if it still exists (`TOKEN_GONE` otherwise: of concurrent
   * consumes of one token, or of two tokens of one email, exactly one is `OK`), and every other
   * token of its email in its tenant, in one transaction.
   */
  useToken(token: WebauthnRecoveryTokenRecord): Promise<'OK' | 'TOKEN_GONE'>;
}
