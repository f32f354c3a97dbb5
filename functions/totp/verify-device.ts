import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { verifyDeviceInput } from '../../lib/http/totp-input';
import { verifyDevice } from '../../lib/recipes/totp/verify-device';
import { DynamoTotpStore } from '../../lib/storage/dynamo/dynamo-totp-store';

/** `POST [/<tenantId>]/recipe/totp/device/verify` `{"userId","deviceName","totp"}`. */
export const handle: ApiHandler<'totp'> = (req, deps) => {
  const { userId, deviceName, totp } = verifyDeviceInput(req.body);
  return verifyDevice(deps, req.tenantId, userId, deviceName, totp);
};
export const handler = createHttpHandler('totp-device-verify', { totp: DynamoTotpStore }, handle);
