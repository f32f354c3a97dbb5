import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { lookupEmail, requiredPassword, requiredString } from '../../lib/http/input';
import { signIn } from '../../lib/recipes/emailpassword/sign-in';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /recipe/signin`. */
export const handle: ApiHandler<'users'> = (req, deps) =>
  signIn(deps, req.tenantId, lookupEmail(requiredString(req.body, 'email')), requiredPassword(req.body), req.log);
export const handler = createHttpHandler('emailpassword-signin', { users: DynamoUserStore }, handle);
