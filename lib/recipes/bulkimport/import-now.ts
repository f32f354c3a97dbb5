import type { Deps } from '../deps';
import { InvalidInputDocumentError } from '../errors';
import type { ApiUser } from '../users/api-user';
import { parseBulkUser } from './bulk-user';
import { importBulkUser } from './import-user';
import { validationContext } from './stage-users';

/**
 * `POST /bulk-import/import`: validates one bulk user and imports it at once, as the worker imports
 * a staged row (SPEC §15). A 400 `{"errors":[…]}` lists what is invalid, or why the import failed.
 */
export async function importUserNow(
  deps: Pick<Deps, 'users' | 'bulkImport' | 'metadata' | 'roles' | 'tenants' | 'clock' | 'random' | 'config'>,
  raw: unknown,
): Promise<{ status: 'OK'; user: ApiUser }> {
  const parsed = parseBulkUser(raw, await validationContext(deps, [raw]));
  const errors = parsed.ok ? undefined : parsed.errors;
  const outcome = parsed.ok ? await importBulkUser(deps, parsed.user) : undefined;
  const failed = errors ?? (outcome?.status === 'FAILED' ? outcome.errors : undefined);
  if (failed) throw new InvalidInputDocumentError({ errors: failed }, failed[0]);
  if (outcome?.status !== 'OK') throw new Error('An import without a row cannot lose its row');
  return { status: 'OK', user: outcome.user };
}
