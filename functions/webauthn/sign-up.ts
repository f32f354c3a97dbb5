import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { ceremonyInput } from '../../lib/http/webauthn-input';
import { signUp } from '../../lib/recipes/webauthn/sign-up';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `POST [/<tenantId>]/recipe/webauthn/signup` `{"webauthnGeneratedOptionsId","credential"}`. */
export const handle: ApiHandler<'webauthn'> = (req, deps) => {
  const { optionsId, credential } = ceremonyInput(req.body);
  return signUp(deps, req.tenantId, optionsId, credential);
};
export const handler = createHttpHandler('webauthn-signup', { webauthn: DynamoWebauthnStore }, handle);
