import type { ListUsersInput } from '../recipes/users/list-users';
import { decodePaginationToken } from '../recipes/users/pagination-token';
import type { RecipeId } from '../storage/model';
import { BadRequestError } from './errors';
import { optionalString, type Fields } from './input';

/** Page size when `limit` is absent (the SuperTokens core's default). */
export const DEFAULT_USERS_PAGE = 100;
/** Largest page: bounds the work (and the response size) of one request. */
export const MAX_USERS_PAGE = 500;

const RECIPES: readonly RecipeId[] = ['emailpassword', 'thirdparty', 'passwordless'];
/** Search parameters of the core's dashboard listing; not offered here (see docs/SDK.md). */
const SEARCH_TAGS = ['email', 'phone', 'provider'];

/** `includeRecipeIds`: a comma-separated list of recipe ids; absent or empty means every recipe. */
export function parseIncludeRecipeIds(query: Fields): RecipeId[] | undefined {
  const raw = optionalString(query, 'includeRecipeIds');
  if (raw === undefined || raw.trim() === '') return undefined;
  const ids = new Set<RecipeId>();
  for (const part of raw.split(',')) {
    const id = part.trim();
    if (!(RECIPES as readonly string[]).includes(id)) throw new BadRequestError(`Unknown recipe ID: ${id.slice(0, 64)}`);
    ids.add(id as RecipeId);
  }
  return [...ids];
}

/** A `true`/`false` query parameter; `false` when absent. */
export function parseBooleanParam(query: Fields, name: string): boolean {
  const raw = optionalString(query, name)?.trim().toLowerCase();
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new BadRequestError(`Field name '${name}' must be true or false`);
}

/** Reads `limit`, `timeJoinedOrder`, `paginationToken` and `includeRecipeIds` of `GET /users`. */
export function parseListUsersQuery(query: Fields): ListUsersInput {
  const tag = SEARCH_TAGS.find((t) => query[t] !== undefined);
  if (tag !== undefined) {
    throw new BadRequestError(`Searching users by email, phone or provider is not supported (query parameter '${tag}')`);
  }
  const rawLimit = optionalString(query, 'limit')?.trim();
  let limit = DEFAULT_USERS_PAGE;
  if (rawLimit !== undefined) {
    limit = /^[0-9]{1,6}$/.test(rawLimit) ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= MAX_USERS_PAGE)) {
      throw new BadRequestError(`Field name 'limit' must be an integer from 1 to ${MAX_USERS_PAGE}`);
    }
  }
  const rawOrder = optionalString(query, 'timeJoinedOrder')?.trim().toUpperCase() ?? 'ASC';
  if (rawOrder !== 'ASC' && rawOrder !== 'DESC') throw new BadRequestError("Field name 'timeJoinedOrder' must be ASC or DESC");
  const token = optionalString(query, 'paginationToken');
  const after = token === undefined ? undefined : decodePaginationToken(token);
  if (token !== undefined && after === undefined) throw new BadRequestError('invalid pagination token');
  const recipeIds = parseIncludeRecipeIds(query);
  return { limit, order: rawOrder, ...(after ? { after } : {}), ...(recipeIds ? { recipeIds } : {}) };
}
