import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, requiredString } from '../../lib/http/input';
import { createEmailVerificationToken } from '../../lib/recipes/emailverification/create-email-verification-token';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoEmailVerificationStore } from '../../lib/storage/dynamo/dynamo-email-verification-store';

/** `POST /<tenant>/recipe/user/email/verify/token` `{"userId","email"}`. */
export const handle: ApiHandler<'users' | 'emailVerification'> = (req, deps) =>
  createEmailVerificationToken(deps, req.tenantId, requiredString(req.body, 'userId'), normaliseEmail(requiredString(req.body, 'email')));
export const handler = createHttpHandler('emailverification-create-token', { users: DynamoUserStore, emailVerification: DynamoEmailVerificationStore }, handle);
