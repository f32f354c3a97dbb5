import type { PasswordlessIdentity } from '../../storage/model';
import type { Deps } from '../deps';

/**
 * Deletes every pending device of an email or phone in a tenant: after a sign-in or a change of
 * the identity, codes sent earlier must not work any more.
 */
export async function deletePendingDevices(deps: Pick<Deps, 'passwordless'>, tenantId: string, identity: PasswordlessIdentity): Promise<void> {
  const ids = await deps.passwordless.listDevicesOfIdentity(tenantId, identity);
  await Promise.all(ids.map((id) => deps.passwordless.deleteDevice(id)));
}
