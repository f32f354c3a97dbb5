import type { Deps } from '../deps';
import { isDeviceEnded } from './identity-login';
import { consumedDeviceOf, verifyCode, type CodeFailure, type CodeProof, type ConsumedDevice } from './verify-code';

export type CheckCodeResult = { status: 'OK'; consumedDevice: ConsumedDevice } | CodeFailure;

/**
 * Checks a code like `consumeCode` does (wrong guesses count, and a code a later consume of its
 * email or phone ended is refused) but consumes and creates nothing.
 */
export async function checkCode(deps: Pick<Deps, 'passwordless' | 'users' | 'clock' | 'config'>, tenantId: string, proof: CodeProof): Promise<CheckCodeResult> {
  const verified = await verifyCode(deps, tenantId, proof);
  if (verified.status !== 'OK') return verified;
  if (await isDeviceEnded(deps, verified.device, verified.codes)) return { status: 'RESTART_FLOW_ERROR' };
  return { status: 'OK', consumedDevice: consumedDeviceOf(verified.device) };
}
