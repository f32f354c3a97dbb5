import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, requiredPassword, requiredString } from '../../lib/http/input';
import { signUp } from '../../lib/recipes/emailpassword/sign-up';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /recipe/signup`. */
export const handle: ApiHandler<'users'> = (req, deps) =>
  signUp(deps, req.tenantId, normaliseEmail(requiredString(req.body, 'email')), requiredPassword(req.body));
export const handler = createHttpHandler('emailpassword-signup', { users: DynamoUserStore }, handle);
