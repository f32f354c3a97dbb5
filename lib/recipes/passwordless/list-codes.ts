import type { CodeRecord, DeviceRecord, PasswordlessIdentity } from '../../storage/model';
import type { Deps } from '../deps';
import { isPreAuthSessionIdForm } from './codes';
import { identityOf, supersededDevice } from './identity-login';
import { consumedDeviceOf, type ConsumedDevice } from './verify-code';

/** Whose devices to list: an email's or phone number's in the tenant, or one device. */
export type DevicesToList = PasswordlessIdentity | { readonly preAuthSessionId: string };

/** A code as listed: never its link code, user input code or hash. */
export interface ListedCode {
  codeId: string;
  timeCreated: number;
  codeLifetime: number;
}

export type ListedDevice = ConsumedDevice & { codes: ListedCode[] };

export type ListCodesResult = { status: 'OK'; devices: ListedDevice[] };

type DeviceWithCodes = { readonly device: DeviceRecord; readonly codes: readonly CodeRecord[] };

/**
 * The pending devices of an email or phone number in a tenant, or one device by its
 * preAuthSessionId, each with its codes, oldest first (the SDK reads them before a resend and a
 * consume). Only the tenant's devices, and only those that still have a code and that no consume
 * of their email or phone ended (the core deleted those). Expired codes are listed until consumed
 * or collected, as the core lists them.
 *
 * Which devices a consume ended is read from the identity's login method in gsi2 (one Query), as
 * consume's first try reads it: the index lags the table by a moment at most, so a device a
 * consume ended that moment ago may still be listed; any use of it answers `RESTART_FLOW_ERROR`.
 */
export async function listCodes(deps: Pick<Deps, 'passwordless' | 'userLookups' | 'config'>, tenantId: string, of: DevicesToList): Promise<ListCodesResult> {
  let read: (DeviceWithCodes | undefined)[];
  let login: Awaited<ReturnType<Deps['userLookups']['findPasswordlessLoginByIndex']>>;
  if ('preAuthSessionId' in of) {
    const one = isPreAuthSessionIdForm(of.preAuthSessionId) ? await deps.passwordless.getDeviceWithCodes(of.preAuthSessionId) : undefined;
    if (!one || one.device.tenantId !== tenantId || one.codes.length === 0) return { status: 'OK', devices: [] };
    read = [one];
    login = await deps.userLookups.findPasswordlessLoginByIndex(tenantId, identityOf(one.device));
  } else {
    // gsi2 holds the identity's devices under a key of the tenant: no other tenant's is found.
    const ids = await deps.passwordless.listDevicesOfIdentity(tenantId, of);
    if (ids.length === 0) return { status: 'OK', devices: [] };
    [read, login] = await Promise.all([
      Promise.all(ids.map((id) => deps.passwordless.getDeviceWithCodes(id))),
      deps.userLookups.findPasswordlessLoginByIndex(tenantId, of),
    ]);
  }
  const codeLifetime = deps.config.passwordless.codeLifetimeMs;
  const devices = read
    .filter((r): r is DeviceWithCodes => r !== undefined && r.device.tenantId === tenantId && r.codes.length > 0)
    .filter((r) => !supersededDevice(login, r.device, r.codes))
    .map(({ device, codes }) => ({
      createdAt: Math.min(...codes.map((c) => c.timeCreated)),
      listed: {
        ...consumedDeviceOf(device),
        codes: [...codes]
          .sort((a, b) => a.timeCreated - b.timeCreated || (a.codeId < b.codeId ? -1 : 1))
          .map((c) => ({ codeId: c.codeId, timeCreated: c.timeCreated, codeLifetime })),
      },
    }))
    .sort((a, b) => a.createdAt - b.createdAt || (a.listed.preAuthSessionId < b.listed.preAuthSessionId ? -1 : 1))
    .map((d) => d.listed);
  return { status: 'OK', devices };
}
