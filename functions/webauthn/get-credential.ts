import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { credentialQuery } from '../../lib/http/webauthn-input';
import { getCredential } from '../../lib/recipes/webauthn/get-credential';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `GET /recipe/webauthn/user/credential[/]?recipeUserId=&webauthnCredentialId=`. */
export const handle: ApiHandler<'webauthn'> = (req, deps) => {
  const { recipeUserId, credentialId } = credentialQuery(req.query);
  return getCredential(deps, recipeUserId, credentialId);
};
export const handler = createHttpHandler('webauthn-credential-get', { webauthn: DynamoWebauthnStore }, handle);
