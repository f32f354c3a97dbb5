import type { Deps } from '../deps';
import { addDevice, type AddDeviceResult } from './add-device';

export interface ImportDeviceInput {
  readonly userId: string;
  readonly deviceName?: string;
  readonly skew: number;
  readonly period: number;
  /** Normalised canonical base32 (`normaliseSecret`), checked by the caller. */
  readonly secretKey: string;
}

/**
 * `POST /recipe/totp/device/import` (SPEC §20): a device from a secret the old provider held,
 * **verified** at once (the user already uses it), named as create names it.
 */
export function importDevice(deps: Pick<Deps, 'totp' | 'clock'>, input: ImportDeviceInput): Promise<AddDeviceResult> {
  const { userId, deviceName, skew, period, secretKey } = input;
  return addDevice(deps, userId, deviceName, { secret: secretKey, period, skew, verified: true, createdAt: deps.clock.now() });
}
