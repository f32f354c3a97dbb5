import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseCodeProof } from '../../lib/http/passwordless-input';
import { checkCode } from '../../lib/recipes/passwordless/check-code';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoPasswordlessStore } from '../../lib/storage/dynamo/dynamo-passwordless-store';

/** `POST /recipe/signinup/code/check`: checks a code without consuming it. */
export const handle: ApiHandler<'users' | 'passwordless'> = (req, deps) => checkCode(deps, req.tenantId, parseCodeProof(req.body));
export const handler = createHttpHandler('passwordless-check-code', { users: DynamoUserStore, passwordless: DynamoPasswordlessStore }, handle);
