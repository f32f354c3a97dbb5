import { parseAccountInfo } from '../../lib/http/account-input';
import { BadRequestError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { optionalString } from '../../lib/http/input';
import { readRid } from '../../lib/http/rid';
import { getRecipeUser, type RecipeUserLookup } from '../../lib/recipes/users/get-recipe-user';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

const ALLOWED: Record<string, readonly RecipeUserLookup['by'][]> = {
  passwordless: ['userId', 'email', 'phoneNumber'],
  emailpassword: ['userId', 'email'],
  thirdparty: ['userId', 'thirdParty'],
};
const DESCRIBE: Record<RecipeUserLookup['by'], string> = {
  userId: 'userId',
  email: 'email',
  phoneNumber: 'phoneNumber',
  thirdParty: 'thirdPartyId+thirdPartyUserId',
};

/** `GET /recipe/user?...` routed by the `rid` header. */
export const handle: ApiHandler<'users'> = (req, deps) => {
  const rid = readRid(req.headers);
  if (rid === undefined) throw new BadRequestError('Header rid must be one of emailpassword, thirdparty or passwordless');
  const userId = optionalString(req.query, 'userId');
  const info = parseAccountInfo(req.query);
  const given: RecipeUserLookup[] = [
    ...(userId !== undefined ? [{ by: 'userId' as const, userId }] : []),
    ...(info.email !== undefined ? [{ by: 'email' as const, email: info.email }] : []),
    ...(info.phoneNumber !== undefined ? [{ by: 'phoneNumber' as const, phoneNumber: info.phoneNumber }] : []),
    ...(info.thirdParty !== undefined ? [{ by: 'thirdParty' as const, thirdPartyId: info.thirdParty.id, thirdPartyUserId: info.thirdParty.userId }] : []),
  ];
  const allowed = ALLOWED[rid];
  if (given.length !== 1 || !allowed.includes(given[0].by)) {
    throw new BadRequestError(`Please provide exactly one of ${allowed.map((b) => DESCRIBE[b]).join(', ')}`);
  }
  return getRecipeUser(deps, req.tenantId, rid, given[0]);
};
export const handler = createHttpHandler('user-get-by-recipe', { users: DynamoUserStore }, handle);
