import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, requiredString } from '../../lib/http/input';
import { revokeEmailVerificationTokens } from '../../lib/recipes/emailverification/revoke-email-verification-tokens';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoEmailVerificationStore } from '../../lib/storage/dynamo/dynamo-email-verification-store';

/** `POST /<tenant>/recipe/user/email/verify/token/remove` `{"userId","email"}`. */
export const handle: ApiHandler<'users' | 'emailVerification'> = (req, deps) =>
  revokeEmailVerificationTokens(deps, req.tenantId, requiredString(req.body, 'userId'), normaliseEmail(requiredString(req.body, 'email')));
export const handler = createHttpHandler(
  'emailverification-revoke-tokens',
  { users: DynamoUserStore, emailVerification: DynamoEmailVerificationStore },
  handle,
);
