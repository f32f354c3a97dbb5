import type { AuthUser, PasswordlessIdentity } from '../model';
import type { LoginSnapshot } from './users';

/**
 * Login methods found by their email or phone number in a tenant through the identity index
 * (gsi2): one Query where the guards take two reads (the guard, then the user's partition), but
 * **eventually consistent**. Apart from `UserStore`, so only the functions that look users up so
 * carry it.
 */
export interface UserLookups {
  /** Users with a login method in the tenant that has this email (any recipe), each once. */
  listUsersByEmail(tenantId: string, email: string): Promise<AuthUser[]>;
  /**
   * The passwordless login method with this email or phone number in the tenant (login method
   * items by email, else by phone, and entries with a snapshot where the item is not indexed so).
   * The answer may be stale, or miss a login method just made, so a caller writes only on
   * conditions that catch that (the login method's version, a new guard being free) and reads
   * through the guard (`UserStore.getLoginByEmail`, `getLoginByPhone`) when they fail.
   */
  findPasswordlessLoginByIndex(tenantId: string, identity: PasswordlessIdentity): Promise<LoginSnapshot | undefined>;
}
