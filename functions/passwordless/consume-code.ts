import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseCodeProof } from '../../lib/http/passwordless-input';
import { consumeCode } from '../../lib/recipes/passwordless/consume-code';
import { DynamoUserLookups } from '../../lib/storage/dynamo/dynamo-user-lookups';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';
import { DynamoPasswordlessStore } from '../../lib/storage/dynamo/dynamo-passwordless-store';

/** `POST /recipe/signinup/code/consume` (seed 4.2): creates or signs in the passwordless user. */
export const handle: ApiHandler<'users' | 'userLookups' | 'passwordless'> = (req, deps) => consumeCode(deps, req.tenantId, parseCodeProof(req.body));
export const handler = createHttpHandler(
  'passwordless-consume-code',
  { users: DynamoUserStore, userLookups: DynamoUserLookups, passwordless: DynamoPasswordlessStore },
  handle,
);
