import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { importDeviceInput } from '../../lib/http/totp-input';
import { importDevice } from '../../lib/recipes/totp/import-device';
import { DynamoTotpStore } from '../../lib/storage/dynamo/dynamo-totp-store';

/** `POST /recipe/totp/device/import` `{"userId","deviceName"?,"skew","period","secretKey"}`. */
export const handle: ApiHandler<'totp'> = (req, deps) => importDevice(deps, importDeviceInput(req.body));
export const handler = createHttpHandler('totp-device-import', { totp: DynamoTotpStore }, handle);
