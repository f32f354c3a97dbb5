import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { isEmailVerified } from '../../lib/recipes/emailverification/is-email-verified';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `GET /recipe/user/email/verify?userId=&email=` (the email as given, not normalised: as the core). */
export const handle: ApiHandler<'users'> = (req, deps) =>
  isEmailVerified(deps, requiredQueryParam(req.query, 'userId'), requiredQueryParam(req.query, 'email'));
export const handler = createHttpHandler('emailverification-is-verified', { users: DynamoUserStore }, handle);
