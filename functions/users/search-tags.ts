import { createHttpHandler } from '../../lib/http/handler';
import { searchTags } from '../../lib/recipes/users/search-users';

/** `GET /user/search/tags`: the tags `GET /users` searches by (the dashboard's search box). */
export const handler = createHttpHandler('user-search-tags', {}, async () => searchTags());
