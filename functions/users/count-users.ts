import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseBooleanParam, parseIncludeRecipeIds } from '../../lib/http/users-input';
import { countUsers } from '../../lib/recipes/users/count-users';
import { DynamoUserLists } from '../../lib/storage/dynamo/dynamo-user-lists';

/** `GET /<tenant>/users/count?includeRecipeIds=&includeAllTenants=`. */
export const handle: ApiHandler<'userLists'> = (req, deps) => {
  const recipeIds = parseIncludeRecipeIds(req.query);
  return countUsers(deps, req.tenantId, { allTenants: parseBooleanParam(req.query, 'includeAllTenants'), ...(recipeIds ? { recipeIds } : {}) });
};
export const handler = createHttpHandler('users-count', { userLists: DynamoUserLists }, handle);
