import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { listCredentials } from '../../lib/recipes/webauthn/list-credentials';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `GET /recipe/webauthn/user/credential/list?recipeUserId=`. */
export const handle: ApiHandler<'webauthn' | 'users'> = (req, deps) => listCredentials(deps, requiredQueryParam(req.query, 'recipeUserId'));
export const handler = createHttpHandler('webauthn-credential-list', { webauthn: DynamoWebauthnStore, users: DynamoUserStore }, handle);
