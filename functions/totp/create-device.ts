import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { createDeviceInput } from '../../lib/http/totp-input';
import { createDevice } from '../../lib/recipes/totp/create-device';
import { DynamoTotpStore } from '../../lib/storage/dynamo/dynamo-totp-store';

/** `POST /recipe/totp/device` `{"userId","deviceName"?,"skew","period"}`. */
export const handle: ApiHandler<'totp'> = (req, deps) => createDevice(deps, createDeviceInput(req.body));
export const handler = createHttpHandler('totp-device-create', { totp: DynamoTotpStore }, handle);
