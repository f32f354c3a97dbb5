import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseThirdPartySignInUp } from '../../lib/http/thirdparty-input';
import { signInUp } from '../../lib/recipes/thirdparty/sign-in-up';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /recipe/signinup` (seed 4.4): signs the third-party user in, or creates it. */
export const handle: ApiHandler<'users'> = (req, deps) => signInUp(deps, req.tenantId, parseThirdPartySignInUp(req.body));
export const handler = createHttpHandler('thirdparty-signinup', { users: DynamoUserStore }, handle);
