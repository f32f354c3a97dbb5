import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { listDevicesInput } from '../../lib/http/totp-input';
import { listDevices } from '../../lib/recipes/totp/list-devices';
import { DynamoTotpStore } from '../../lib/storage/dynamo/dynamo-totp-store';

/** `GET /recipe/totp/device/list?userId=`. */
export const handle: ApiHandler<'totp'> = (req, deps) => listDevices(deps, listDevicesInput(req.query));
export const handler = createHttpHandler('totp-device-list', { totp: DynamoTotpStore }, handle);
