import { retryOnRace, type Deps } from '../deps';
import { isCodeIdForm, isPreAuthSessionIdForm } from './codes';

/** What to remove: one code by its id, or a whole device by its preAuthSessionId. */
export type CodeToRemove = { readonly codeId: string } | { readonly preAuthSessionId: string };

/**
 * Removes one code (a device left with no code goes with it) or a whole device of the tenant, as
 * the SDK's `revokeCode`. Answers `OK` whether or not it existed, as the core. A removed code
 * then answers consume with `RESTART_FLOW_ERROR`: the removal changes the device's `codeCount`,
 * so a consume that read the code before fails its transaction and reads again.
 */
export async function removeCode(deps: Pick<Deps, 'passwordless'>, tenantId: string, which: CodeToRemove): Promise<{ status: 'OK' }> {
  const ok = { status: 'OK' } as const;
  if ('preAuthSessionId' in which) {
    const { preAuthSessionId } = which;
    if (!isPreAuthSessionIdForm(preAuthSessionId)) return ok;
    return retryOnRace('Removing a passwordless device', async () => {
      const read = await deps.passwordless.getDeviceWithCodes(preAuthSessionId);
      if (!read || read.device.tenantId !== tenantId) return ok;
      // A resend changed the device since it was read: read it again, its new code with it.
      return (await deps.passwordless.deleteReadDevice(read.device, read.codes)) === 'OK' ? ok : undefined;
    });
  }
  const { codeId } = which;
  const preAuthSessionId = isCodeIdForm(codeId) ? await deps.passwordless.getDeviceOfCode(codeId) : undefined;
  if (preAuthSessionId === undefined) return ok;
  return retryOnRace('Removing a passwordless code', async () => {
    const read = await deps.passwordless.getDeviceWithCodes(preAuthSessionId);
    const code = read?.codes.find((c) => c.codeId === codeId);
    if (!read || !code || read.device.tenantId !== tenantId) return ok;
    // The device's last code takes the device with it. A resend or another removal changed the
    // device since it was read: read it again (a device that got another code keeps it).
    const removed =
      read.codes.length === 1 ? await deps.passwordless.deleteReadDevice(read.device, read.codes) : await deps.passwordless.removeCode(read.device, code);
    return removed === 'OK' ? ok : undefined;
  });
}
