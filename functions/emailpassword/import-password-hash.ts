import { routeById } from '../../infra/routes';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, optionalString, requiredString } from '../../lib/http/input';
import { importPasswordHash } from '../../lib/recipes/emailpassword/import-password-hash';

/** `POST /recipe/user/passwordhash/import` (seed 4.5). */
export const handle: ApiHandler = (req, deps) => {
  const email = normaliseEmail(requiredString(req.body, 'email'));
  const passwordHash = requiredString(req.body, 'passwordHash');
  const hashingAlgorithm = optionalString(req.body, 'hashingAlgorithm');
  return importPasswordHash(deps, req.tenantId, { email, passwordHash, ...(hashingAlgorithm !== undefined ? { hashingAlgorithm } : {}) });
};
export const handler = createHttpHandler(routeById('emailpassword-import'), handle);
