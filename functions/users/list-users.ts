import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { parseListUsersQuery } from '../../lib/http/users-input';
import { listUsers } from '../../lib/recipes/users/list-users';
import { DynamoUserSearch } from '../../lib/storage/dynamo/dynamo-user-search';
import { DynamoUserLists } from '../../lib/storage/dynamo/dynamo-user-lists';

/** `GET /<tenant>/users?limit=&paginationToken=&timeJoinedOrder=&includeRecipeIds=`, or a search (`email=&phone=&provider=`). */
export const handle: ApiHandler<'userLists' | 'userSearch'> = (req, deps) => listUsers(deps, req.tenantId, parseListUsersQuery(req.query));
export const handler = createHttpHandler('users-list', { userLists: DynamoUserLists, userSearch: DynamoUserSearch }, handle);
