import { BadRequestError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { normaliseEmail, optionalBoolean, optionalString, requiredString } from '../../lib/http/input';
import { importPasswordHash } from '../../lib/recipes/emailpassword/import-password-hash';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `POST /recipe/user/passwordhash/import` (seed 4.5), or without a hash (`migratePasswordOnSignIn`, SPEC §16). */
export const handle: ApiHandler<'users'> = (req, deps) => {
  const email = normaliseEmail(requiredString(req.body, 'email'));
  if (optionalBoolean(req.body, 'migratePasswordOnSignIn', false)) {
    if (req.body.passwordHash !== undefined || req.body.hashingAlgorithm !== undefined) {
      throw new BadRequestError('migratePasswordOnSignIn cannot be combined with passwordHash or hashingAlgorithm');
    }
    return importPasswordHash(deps, req.tenantId, { email, migratePasswordOnSignIn: true });
  }
  const passwordHash = requiredString(req.body, 'passwordHash');
  const hashingAlgorithm = optionalString(req.body, 'hashingAlgorithm');
  return importPasswordHash(deps, req.tenantId, { email, passwordHash, ...(hashingAlgorithm !== undefined ? { hashingAlgorithm } : {}) });
};
export const handler = createHttpHandler('emailpassword-import', { users: DynamoUserStore }, handle);
