import type { AuthUser, RecipeId } from '../model';

/**
 * A walk over a tenant's users in join order that keeps the ones `accept` takes, up to `max` (the
 * dashboard's search, SPEC §18b).
 */
export interface UserScanQuery {
  /** `ASC`: oldest first; `DESC`: newest first. */
  readonly order: 'ASC' | 'DESC';
  /**
   * Only users with login methods of every one of these recipes in the tenant need be offered to
   * `accept` (a filter on the list entries, so the others are not sent at all); all when absent.
   */
  readonly withRecipes?: readonly RecipeId[];
  /**
   * What a login method on its own (not in a primary user) must hold to be offered to `accept`,
   * for each key given: `emailPrefixes`, an email starting with one of them or holding `@` and one
   * of them; `phonePrefixes`, a phone number starting with one of them (as stored: emails are
   * stored lower-case, SPEC §3). Checked by DynamoDB, so the others are not sent; a primary user is
   * always offered. Only narrows: `accept` decides.
   */
  readonly loginFilter?: { readonly emailPrefixes?: readonly string[]; readonly phonePrefixes?: readonly string[] };
  /** Whether a user (a primary user with all its login methods, of every tenant) is kept. */
  readonly accept: (user: AuthUser) => boolean;
  /** The walk stops once this many users are kept. */
  readonly max: number;
}

/** The dashboard's search (SPEC §18b): apart from `UserStore`, so only the searching function carries it. */
export interface UserSearch {
  /**
   * The tenant's users `accept` takes, in join order (a primary user once), at most `max`: reads
   * the list (and a primary user's partition) until `max` are found or the list ends.
   */
  scanUsers(tenantId: string, query: UserScanQuery): Promise<AuthUser[]>;
}
