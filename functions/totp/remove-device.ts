import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { removeDeviceInput } from '../../lib/http/totp-input';
import { removeDevice } from '../../lib/recipes/totp/remove-device';
import { DynamoTotpStore } from '../../lib/storage/dynamo/dynamo-totp-store';

/** `POST /recipe/totp/device/remove` `{"userId","deviceName"}`. */
export const handle: ApiHandler<'totp'> = (req, deps) => {
  const { userId, deviceName } = removeDeviceInput(req.body);
  return removeDevice(deps, userId, deviceName);
};
export const handler = createHttpHandler('totp-device-remove', { totp: DynamoTotpStore }, handle);
