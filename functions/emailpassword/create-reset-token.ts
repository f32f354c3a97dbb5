import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, requiredString } from '../../lib/http/input';
import { createPasswordResetToken } from '../../lib/recipes/emailpassword/create-password-reset-token';
import { DynamoPasswordResetStore } from '../../lib/storage/dynamo/dynamo-password-reset-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /<tenant>/recipe/user/password/reset/token` `{"userId","email"}`. */
export const handle: ApiHandler<'users' | 'passwordReset'> = (req, deps) => {
  const userId = requiredString(req.body, 'userId');
  return createPasswordResetToken(deps, userId, normaliseEmail(requiredString(req.body, 'email')));
};
export const handler = createHttpHandler('emailpassword-create-reset-token', { users: DynamoUserStore, passwordReset: DynamoPasswordResetStore }, handle);
