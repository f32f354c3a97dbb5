import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { updateEmailInput } from '../../lib/http/webauthn-input';
import { updateWebauthnEmail } from '../../lib/recipes/webauthn/update-email';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

/** `PUT [/<tenantId>]/recipe/webauthn/user/email` `{"recipeUserId","email"}`. */
export const handle: ApiHandler<'users'> = (req, deps) => {
  const { recipeUserId, email } = updateEmailInput(req.body);
  return updateWebauthnEmail(deps, recipeUserId, email);
};
export const handler = createHttpHandler('webauthn-user-email', { users: DynamoUserStore }, handle);
