import type { Deps } from '../deps';
import { consumedDeviceOf, verifyCode, type CodeFailure, type CodeProof, type ConsumedDevice } from './verify-code';

export type CheckCodeResult = { status: 'OK'; consumedDevice: ConsumedDevice } | CodeFailure;

/** Checks a code like `consumeCode` does (wrong guesses count) but consumes and creates nothing. */
export async function checkCode(
  deps: Pick<Deps, 'passwordless' | 'clock' | 'config'>,
  tenantId: string,
  proof: CodeProof,
): Promise<CheckCodeResult> {
  const verified = await verifyCode(deps, tenantId, proof);
  if (verified.status !== 'OK') return verified;
  return { status: 'OK', consumedDevice: consumedDeviceOf(verified.device) };
}
