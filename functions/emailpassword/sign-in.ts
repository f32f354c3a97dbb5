import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, requiredPassword, requiredString } from '../../lib/http/input';
import { signIn } from '../../lib/recipes/emailpassword/sign-in';

/** `POST /recipe/signin`. */
export const handle: ApiHandler = (req, deps) =>
  signIn(deps, req.tenantId, normaliseEmail(requiredString(req.body, 'email')), requiredPassword(req.body), req.log);
export const handler = createHttpHandler('emailpassword-signin', handle);
