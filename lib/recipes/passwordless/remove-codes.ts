import type { PasswordlessIdentity } from '../../storage/model';
import type { Deps } from '../deps';
import { deletePendingDevices } from './pending-devices';

/**
 * Removes every pending device (with its codes) of an email or phone number in the tenant, as the
 * SDK's `revokeAllCodes`. The devices are found in gsi2, which lags the table by a moment: a
 * device created that moment before the removal may escape it.
 */
export async function removeCodes(deps: Pick<Deps, 'passwordless'>, tenantId: string, identity: PasswordlessIdentity): Promise<{ status: 'OK' }> {
  await deletePendingDevices(deps, tenantId, identity);
  return { status: 'OK' };
}
