import { BadRequestError } from '../../lib/http/errors';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { requiredTrimmed, userIdType } from '../../lib/http/useridmapping-input';
import { getUserIdMapping } from '../../lib/recipes/useridmapping/get-user-id-mapping';
import { DynamoUserStore } from '../../lib/storage/dynamo/dynamo-user-store';

const missingInGet = (name: string) => new BadRequestError(`Field name '${name}' is missing in GET request`);

/** `GET /recipe/userid/map?userId=&userIdType=`. */
export const handle: ApiHandler<'users'> = (req, deps) => getUserIdMapping(deps, requiredTrimmed(req.query, 'userId', missingInGet), userIdType(req.query));
export const handler = createHttpHandler('useridmapping-get', { users: DynamoUserStore }, handle);
