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
  deps: Pick<Deps, 'userAccounts' | 'bulkUserImport' | 'metadata' | 'roleReader' | 'tenants' | 'clock' | 'random' | 'config'>,
  raw: unknown,
): Promise<{ status: 'OK'; user: ApiUser }> {
  const refused = (errors: string[]) => new InvalidInputDocumentError({ errors }, errors[0]);
  const parsed = parseBulkUser(raw, await validationContext(deps, [raw]));
  if (!parsed.ok) throw refused(parsed.errors);
  const outcome = await importBulkUser(deps, parsed.user);
  if (outcome.status === 'FAILED') throw refused(outcome.errors);
  if (outcome.status !== 'OK') throw new Error('An import without a row cannot lose its row');
  return { status: 'OK', user: outcome.user };
}
