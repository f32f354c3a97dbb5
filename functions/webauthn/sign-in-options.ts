import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { signInOptionsInput } from '../../lib/http/webauthn-input';
import { signInOptions } from '../../lib/recipes/webauthn/sign-in-options';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `POST [/<tenantId>]/recipe/webauthn/options/signin` `{"relyingPartyId","relyingPartyName","origin",…}`. */
export const handle: ApiHandler<'webauthn'> = (req, deps) => signInOptions(deps, req.tenantId, signInOptionsInput(req.body));
export const handler = createHttpHandler('webauthn-options-signin', { webauthn: DynamoWebauthnStore }, handle);
