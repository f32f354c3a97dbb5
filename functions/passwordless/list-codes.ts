import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseDevicesToList } from '../../lib/http/passwordless-input';
import { listCodes } from '../../lib/recipes/passwordless/list-codes';
import { DynamoUserLookups } from '../../lib/storage/dynamo/dynamo-user-lookups';
import { DynamoPasswordlessStore } from '../../lib/storage/dynamo/dynamo-passwordless-store';

/** `GET /<tenant>/recipe/signinup/codes?email=|phoneNumber=|deviceId=|preAuthSessionId=`: pending devices and their codes. */
export const handle: ApiHandler<'userLookups' | 'passwordless'> = (req, deps) => listCodes(deps, req.tenantId, parseDevicesToList(req.query));
export const handler = createHttpHandler('passwordless-list-codes', { userLookups: DynamoUserLookups, passwordless: DynamoPasswordlessStore }, handle);
