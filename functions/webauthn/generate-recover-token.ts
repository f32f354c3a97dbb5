import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { recoverTokenInput } from '../../lib/http/webauthn-input';
import { generateRecoverAccountToken } from '../../lib/recipes/webauthn/recover-account';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnRecoveryStore } from '../../lib/storage/dynamo/dynamo-webauthn-recovery-store';

/** `POST [/<tenantId>]/recipe/webauthn/user/recover/token` `{"userId","email"}`. */
export const handle: ApiHandler<'users' | 'webauthnRecovery'> = (req, deps) => {
  const { userId, email } = recoverTokenInput(req.body);
  return generateRecoverAccountToken(deps, req.tenantId, userId, email);
};
export const handler = createHttpHandler('webauthn-recover-token', { users: DynamoUserStore, webauthnRecovery: DynamoWebauthnRecoveryStore }, handle);
