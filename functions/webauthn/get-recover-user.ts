import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredQueryParam } from '../../lib/http/input';
import { getUserFromRecoverAccountToken } from '../../lib/recipes/webauthn/recover-account';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnRecoveryStore } from '../../lib/storage/dynamo/dynamo-webauthn-recovery-store';

/** `GET [/<tenantId>]/recipe/webauthn/user/recover?token=`. */
export const handle: ApiHandler<'users' | 'webauthnRecovery'> = (req, deps) =>
  getUserFromRecoverAccountToken(deps, req.tenantId, requiredQueryParam(req.query, 'token'));
export const handler = createHttpHandler('webauthn-recover-user', { users: DynamoUserStore, webauthnRecovery: DynamoWebauthnRecoveryStore }, handle);
