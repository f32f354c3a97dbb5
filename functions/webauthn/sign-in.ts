import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { ceremonyInput } from '../../lib/http/webauthn-input';
import { signIn } from '../../lib/recipes/webauthn/sign-in';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `POST [/<tenantId>]/recipe/webauthn/signin` `{"webauthnGeneratedOptionsId","credential"}`. */
export const handle: ApiHandler<'webauthn' | 'users'> = (req, deps) => {
  const { optionsId, credential } = ceremonyInput(req.body);
  return signIn(deps, req.tenantId, optionsId, credential);
};
export const handler = createHttpHandler('webauthn-signin', { webauthn: DynamoWebauthnStore, users: DynamoUserStore }, handle);
