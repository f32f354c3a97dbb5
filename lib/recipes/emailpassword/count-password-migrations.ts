import type { PasswordMigrationConfig } from '../../config/config';
import type { Deps } from '../deps';

export interface PasswordMigrationCount {
  status: 'OK';
  /** Users of the tenant imported without a hash that have not signed in yet. */
  count: number;
  /**
   * The configured source (beyond SPEC §16's `{status, count}`): an operator, and the migration
   * command's `--no-hash migrate-on-signin`, see whether users can be imported without a hash.
   */
  source: PasswordMigrationConfig['source'];
}

/**
 * Users of a tenant still waiting for password migration at sign-in (SPEC §16): when it is near
 * zero, the previous provider can be switched off (README). Read off an index (16 small counts
 * in parallel), so a sign-in of a moment ago may not show yet.
 */
export async function countPasswordMigrations(deps: Pick<Deps, 'userLists' | 'config'>, tenantId: string): Promise<PasswordMigrationCount> {
  return { status: 'OK', count: await deps.userLists.countPasswordMigrations(tenantId), source: deps.config.passwordMigration.source };
}
