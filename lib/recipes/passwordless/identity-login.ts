import { isDeviceSuperseded } from '../../storage/auth-user';
import type { CodeRecord, DeviceRecord, PasswordlessIdentity, UserRecord } from '../../storage/model';
import type { LoginRef } from '../../storage/ports/users';
import type { Deps } from '../deps';
import { findLogin, type UserLogin } from '../users/find-login';

/** The email or phone number a device's codes were sent to. */
export function identityOf(device: DeviceRecord): PasswordlessIdentity {
  return device.email !== undefined ? { email: device.email } : { phoneNumber: device.phoneNumber ?? '' };
}

/** Where the passwordless login method of an email or phone in a tenant lives, read from its guard. */
export function identityRef(deps: Pick<Deps, 'users'>, tenantId: string, identity: PasswordlessIdentity): Promise<LoginRef | undefined> {
  return 'email' in identity
    ? deps.users.getLoginByEmail(tenantId, 'passwordless', identity.email)
    : deps.users.getLoginByPhone(tenantId, identity.phoneNumber);
}

/** The passwordless login method of an email or phone in a tenant, with its user (read consistently). */
export async function findIdentityLogin(deps: Pick<Deps, 'users'>, tenantId: string, identity: PasswordlessIdentity): Promise<UserLogin | undefined> {
  return findLogin(deps, await identityRef(deps, tenantId, identity));
}

/**
 * Whether a consume of the device's email or phone since the device was created ended its codes.
 * A device is as old as its first code (codes are only added to it, and all deleted with it).
 */
export function supersededDevice(login: { readonly loginMethod: UserRecord } | undefined, device: DeviceRecord, codes: readonly CodeRecord[]): boolean {
  const createdAt = Math.min(...codes.map((c) => c.timeCreated));
  return isDeviceSuperseded(login?.loginMethod, device.tenantId, identityOf(device), createdAt);
}

/**
 * Whether a consume ended the device, its login method read through the guard (consistently): for
 * resend, check and a wrong guess, which write nothing that would catch a stale read.
 */
export async function isDeviceEnded(deps: Pick<Deps, 'users'>, device: DeviceRecord, codes: readonly CodeRecord[]): Promise<boolean> {
  return supersededDevice(await findIdentityLogin(deps, device.tenantId, identityOf(device)), device, codes);
}
