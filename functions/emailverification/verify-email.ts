import { BadRequestError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { verifyEmailUsingToken } from '../../lib/recipes/emailverification/verify-email-using-token';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoEmailVerificationStore } from '../../lib/storage/dynamo/dynamo-email-verification-store';

/** `POST /<tenant>/recipe/user/email/verify` `{"method":"token","token"}`. */
export const handle: ApiHandler<'users' | 'emailVerification'> = (req, deps) => {
  const method = requiredString(req.body, 'method');
  const token = requiredString(req.body, 'token');
  if (method !== 'token') throw new BadRequestError('Unsupported method for email verification');
  return verifyEmailUsingToken(deps, req.tenantId, token);
};
export const handler = createHttpHandler('emailverification-verify', { users: DynamoUserStore, emailVerification: DynamoEmailVerificationStore }, handle);
