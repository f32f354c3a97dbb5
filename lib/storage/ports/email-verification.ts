import type { VerificationTokenRecord } from '../model';
import type { UsersChange } from './users';

/** Email verification tokens (SPEC §13); the verified state itself lives on the login method. */
export interface EmailVerificationStore {
  /** Stores a token (and its entry among the tokens of its login method and email) in one transaction. */
  createToken(token: VerificationTokenRecord): Promise<void>;
  getToken(tokenHash: string): Promise<VerificationTokenRecord | undefined>;
  /**
   * Uses a token up: deletes it (only if it still exists, so a token works once: `TOKEN_GONE`
   * otherwise) in one transaction with a change of users (`STALE` if they changed since read).
   */
  useToken(token: VerificationTokenRecord, userWrite?: UsersChange): Promise<'OK' | 'TOKEN_GONE' | 'STALE'>;
  /** Deletes every token of one login method and email in a tenant. */
  revokeTokens(tenantId: string, recipeUserId: string, email: string): Promise<void>;
}
