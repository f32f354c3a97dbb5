import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { registerCredentialInput } from '../../lib/http/webauthn-input';
import { registerCredential } from '../../lib/recipes/webauthn/register-credential';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `POST /recipe/webauthn/user/credential/register` `{"recipeUserId","webauthnGeneratedOptionsId","credential"}`. */
export const handle: ApiHandler<'webauthn' | 'users'> = (req, deps) => {
  const { recipeUserId, optionsId, credential } = registerCredentialInput(req.body);
  return registerCredential(deps, recipeUserId, optionsId, credential);
};
export const handler = createHttpHandler('webauthn-credential-register', { webauthn: DynamoWebauthnStore, users: DynamoUserStore }, handle);
