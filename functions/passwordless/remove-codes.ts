import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseIdentity } from '../../lib/http/passwordless-input';
import { removeCodes } from '../../lib/recipes/passwordless/remove-codes';
import { DynamoPasswordlessStore } from '../../lib/storage/dynamo/dynamo-passwordless-store';

/** `POST /<tenant>/recipe/signinup/codes/remove` `{"email"}` or `{"phoneNumber"}`: every pending device of it. */
export const handle: ApiHandler<'passwordless'> = (req, deps) => removeCodes(deps, req.tenantId, parseIdentity(req.body));
export const handler = createHttpHandler('passwordless-remove-codes', { passwordless: DynamoPasswordlessStore }, handle);
