import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { renameDeviceInput } from '../../lib/http/totp-input';
import { renameDevice } from '../../lib/recipes/totp/rename-device';
import { DynamoTotpStore } from '../../lib/storage/dynamo/dynamo-totp-store';

/** `PUT /recipe/totp/device` `{"userId","existingDeviceName","newDeviceName"}`. */
export const handle: ApiHandler<'totp'> = (req, deps) => {
  const { userId, existingDeviceName, newDeviceName } = renameDeviceInput(req.body);
  return renameDevice(deps, userId, existingDeviceName, newDeviceName);
};
export const handler = createHttpHandler('totp-device-rename', { totp: DynamoTotpStore }, handle);
