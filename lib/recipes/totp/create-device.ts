import type { Deps } from '../deps';
import { addDevice } from './add-device';
import { base32Encode } from './base32';

/** A secret's size: HMAC-SHA1's 160 bits, as the core's `KeyGenerator.init(160)`. */
const SECRET_BYTES = 20;

export interface CreateDeviceInput {
  readonly userId: string;
  readonly deviceName?: string;
  readonly skew: number;
  readonly period: number;
}

export type CreateDeviceResult = { status: 'OK'; deviceName: string; secret: string } | { status: 'DEVICE_ALREADY_EXISTS_ERROR' };

/**
 * `POST /recipe/totp/device` (SPEC §20): a new **unverified** device with a secret of 20 random
 * bytes (base32: 32 characters), which this answer alone ever shows.
 */
export async function createDevice(deps: Pick<Deps, 'totp' | 'clock' | 'random'>, input: CreateDeviceInput): Promise<CreateDeviceResult> {
  const secret = base32Encode(deps.random.bytes(SECRET_BYTES));
  const { userId, deviceName, skew, period } = input;
  const added = await addDevice(deps, userId, deviceName, { secret, period, skew, verified: false, createdAt: deps.clock.now() });
  return added.status === 'OK' ? { ...added, secret } : added;
}
