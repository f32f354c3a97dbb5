import type { Deps } from '../deps';

export interface ListedDevice {
  readonly name: string;
  readonly period: number;
  readonly skew: number;
  readonly verified: boolean;
}

/** `GET /recipe/totp/device/list?userId=` (SPEC §20): the devices oldest first, never their secrets; `[]` for an unknown user id. */
export async function listDevices(deps: Pick<Deps, 'totp'>, userId: string): Promise<{ status: 'OK'; devices: ListedDevice[] }> {
  const devices = await deps.totp.listDevices(userId);
  return { status: 'OK', devices: devices.map(({ name, period, skew, verified }) => ({ name, period, skew, verified })) };
}
