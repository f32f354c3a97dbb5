import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionsIdQuery } from '../../lib/http/webauthn-input';
import { removeGeneratedOptions } from '../../lib/recipes/webauthn/remove-generated-options';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `DELETE [/<tenantId>]/recipe/webauthn/options/remove?webauthnGeneratedOptionsId=`. */
export const handle: ApiHandler<'webauthn'> = (req, deps) => removeGeneratedOptions(deps, req.tenantId, optionsIdQuery(req.query));
export const handler = createHttpHandler('webauthn-options-remove', { webauthn: DynamoWebauthnStore }, handle);
