import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { registerOptionsInput } from '../../lib/http/webauthn-input';
import { registerOptions } from '../../lib/recipes/webauthn/register-options';
import { DynamoUserLookups } from '../../lib/storage/dynamo/dynamo-user-lookups';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `POST [/<tenantId>]/recipe/webauthn/options/register` `{"email","relyingPartyId","relyingPartyName","origin",…}`. */
export const handle: ApiHandler<'webauthn' | 'userLookups'> = (req, deps) => registerOptions(deps, req.tenantId, registerOptionsInput(req.body));
export const handler = createHttpHandler('webauthn-options-register', { webauthn: DynamoWebauthnStore, userLookups: DynamoUserLookups }, handle);
