import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, requiredString } from '../../lib/http/input';
import { unverifyEmail } from '../../lib/recipes/emailverification/unverify-email';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /recipe/user/email/verify/remove` `{"userId","email"}`. */
export const handle: ApiHandler<'users'> = (req, deps) =>
  unverifyEmail(deps, requiredString(req.body, 'userId'), normaliseEmail(requiredString(req.body, 'email')));
export const handler = createHttpHandler('emailverification-unverify', { users: DynamoUserStore }, handle);
