import type { Deps } from '../deps';
import { checkCode } from './check-code';
import type { CodeCheckResult } from './judge-attempt';

export type VerifyCodeResult = CodeCheckResult | { status: 'UNKNOWN_USER_ID_ERROR' };

/**
 * `POST [/<t>]/recipe/totp/verify` (SPEC §20): a code of any of the user's **verified** devices
 * (a user with only unverified ones gets `INVALID_TOTP_ERROR`), under the rate limit and the
 * replay check of the user in the tenant. A user id with no device is `UNKNOWN_USER_ID_ERROR`.
 */
export function verifyCode(deps: Pick<Deps, 'totp' | 'clock' | 'config'>, tenantId: string, userId: string, totp: string): Promise<VerifyCodeResult> {
  return checkCode<{ status: 'UNKNOWN_USER_ID_ERROR' }>(deps, userId, tenantId, totp, (devices) =>
    devices.length === 0 ? { answer: { status: 'UNKNOWN_USER_ID_ERROR' } } : { devices: devices.filter((d) => d.verified) },
  );
}
