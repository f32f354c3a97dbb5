import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, requiredPassword, requiredString } from '../../lib/http/input';
import { signUp } from '../../lib/recipes/emailpassword/sign-up';

/** `POST /recipe/signup`. */
export const handle: ApiHandler = (req, deps) =>
  signUp(deps, req.tenantId, normaliseEmail(requiredString(req.body, 'email')), requiredPassword(req.body));
export const handler = createHttpHandler('emailpassword-signup', handle);
