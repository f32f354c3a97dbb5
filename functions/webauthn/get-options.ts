import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionsIdQuery } from '../../lib/http/webauthn-input';
import { getGeneratedOptions } from '../../lib/recipes/webauthn/get-generated-options';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `GET [/<tenantId>]/recipe/webauthn/options?webauthnGeneratedOptionsId=`. */
export const handle: ApiHandler<'webauthn'> = (req, deps) => getGeneratedOptions(deps, req.tenantId, optionsIdQuery(req.query));
export const handler = createHttpHandler('webauthn-options-get', { webauthn: DynamoWebauthnStore }, handle);
