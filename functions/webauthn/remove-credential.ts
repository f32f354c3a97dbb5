import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { credentialQuery } from '../../lib/http/webauthn-input';
import { removeCredential } from '../../lib/recipes/webauthn/remove-credential';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `DELETE /recipe/webauthn/user/credential/remove?recipeUserId=&webauthnCredentialId=`. */
export const handle: ApiHandler<'webauthn' | 'users'> = (req, deps) => {
  const { recipeUserId, credentialId } = credentialQuery(req.query);
  return removeCredential(deps, recipeUserId, credentialId);
};
export const handler = createHttpHandler('webauthn-credential-remove', { webauthn: DynamoWebauthnStore, users: DynamoUserStore }, handle);
