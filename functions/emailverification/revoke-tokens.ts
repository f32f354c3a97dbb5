import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, requiredString } from '../../lib/http/input';
import { revokeEmailVerificationTokens } from '../../lib/recipes/emailverification/revoke-email-verification-tokens';

/** `POST /<tenant>/recipe/user/email/verify/token/remove` `{"userId","email"}`. */
export const handle: ApiHandler = (req, deps) =>
  revokeEmailVerificationTokens(deps, req.tenantId, requiredString(req.body, 'userId'), normaliseEmail(requiredString(req.body, 'email')));
export const handler = createHttpHandler('emailverification-revoke-tokens', handle);
