import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseDevicesToList } from '../../lib/http/passwordless-input';
import { listCodes } from '../../lib/recipes/passwordless/list-codes';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoPasswordlessStore } from '../../lib/storage/dynamo/dynamo-passwordless-store';

/** `GET /<tenant>/recipe/signinup/codes?email=|phoneNumber=|deviceId=|preAuthSessionId=`: pending devices and their codes. */
export const handle: ApiHandler<'users' | 'passwordless'> = (req, deps) => listCodes(deps, req.tenantId, parseDevicesToList(req.query));
export const handler = createHttpHandler('passwordless-list-codes', { users: DynamoUserStore, passwordless: DynamoPasswordlessStore }, handle);
