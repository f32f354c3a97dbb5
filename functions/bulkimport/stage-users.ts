import { usersOf } from '../../lib/http/bulkimport-input';
import { createHttpHandler, type ApiHandler } from '../../lib/http/handler';
import { stageUsers } from '../../lib/recipes/bulkimport/stage-users';

/** `POST /bulk-import/users` `{"users":[…]}` (SPEC §15). */
export const handle: ApiHandler = (req, deps) => stageUsers(deps, usersOf(req.body));
export const handler = createHttpHandler('bulkimport-stage', handle);
