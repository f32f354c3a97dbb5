import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { verifyCodeInput } from '../../lib/http/totp-input';
import { verifyCode } from '../../lib/recipes/totp/verify-code';
import { DynamoTotpStore } from '../../lib/storage/dynamo/dynamo-totp-store';

/** `POST [/<tenantId>]/recipe/totp/verify` `{"userId","totp"}`. */
export const handle: ApiHandler<'totp'> = (req, deps) => {
  const { userId, totp } = verifyCodeInput(req.body);
  return verifyCode(deps, req.tenantId, userId, totp);
};
export const handler = createHttpHandler('totp-verify', { totp: DynamoTotpStore }, handle);
