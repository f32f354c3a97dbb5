import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredString } from '../../lib/http/input';
import { consumeRecoverAccountToken } from '../../lib/recipes/webauthn/recover-account';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnRecoveryStore } from '../../lib/storage/dynamo/dynamo-webauthn-recovery-store';

/** `POST [/<tenantId>]/recipe/webauthn/user/recover/token/consume` `{"token"}`. */
export const handle: ApiHandler<'users' | 'webauthnRecovery'> = (req, deps) =>
  consumeRecoverAccountToken(deps, req.tenantId, requiredString(req.body, 'token'));
export const handler = createHttpHandler('webauthn-recover-token-consume', { users: DynamoUserStore, webauthnRecovery: DynamoWebauthnRecoveryStore }, handle);
