import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { consumePasswordResetToken } from '../../lib/recipes/emailpassword/consume-password-reset-token';
import { DynamoPasswordResetStore } from '../../lib/storage/dynamo/dynamo-password-reset-store';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /<tenant>/recipe/user/password/reset/token/consume` `{"token"}`. */
export const handle: ApiHandler<'users' | 'passwordReset'> = (req, deps) => consumePasswordResetToken(deps, requiredString(req.body, 'token'));
export const handler = createHttpHandler('emailpassword-consume-reset-token', { users: DynamoUserStore, passwordReset: DynamoPasswordResetStore }, handle);
