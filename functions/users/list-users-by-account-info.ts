import { parseAccountInfo } from '../../lib/http/account-input';
import { BadRequestError, invalidField } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionalString } from '../../lib/http/input';
import { listUsersByAccountInfo } from '../../lib/recipes/users/list-users-by-account-info';
import { DynamoUserLookups } from '../../lib/storage/dynamo/dynamo-user-lookups';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoWebauthnStore } from '../../lib/storage/dynamo/dynamo-webauthn-store';

/** `GET /<tenant>/users/by-accountinfo`. */
export const handle: ApiHandler<'users' | 'userLookups' | 'webauthn'> = (req, deps) => {
  const webauthnCredentialId = optionalString(req.query, 'webauthnCredentialId');
  const info = { ...parseAccountInfo(req.query), ...(webauthnCredentialId !== undefined ? { webauthnCredentialId } : {}) };
  if (Object.keys(info).length === 0) {
    throw new BadRequestError('Please provide at least one of email, phoneNumber, thirdPartyId+thirdPartyUserId or webauthnCredentialId');
  }
  const union = optionalString(req.query, 'doUnionOfAccountInfo')?.toLowerCase() ?? 'false';
  if (union !== 'true' && union !== 'false') throw invalidField('doUnionOfAccountInfo');
  return listUsersByAccountInfo(deps, req.tenantId, info, union === 'true');
};
export const handler = createHttpHandler(
  'users-by-account-info',
  { users: DynamoUserStore, userLookups: DynamoUserLookups, webauthn: DynamoWebauthnStore },
  handle,
);
