import type { ListUsersInput } from '../recipes/users/list-users';
import { decodePaginationToken } from '../recipes/users/pagination-token';
import { SEARCH_TAGS, type UserSearch } from '../recipes/users/search-users';
import type { RecipeId } from '../storage/model';
import { BadRequestError } from './errors';
import { optionalIntQueryParam, optionalString, type Fields } from './input';

/** Page size when `limit` is absent (the SuperTokens core's default). */
export const DEFAULT_USERS_PAGE = 100;
/** Largest page: bounds the work (and the response size) of one request. */
export const MAX_USERS_PAGE = 500;

const RECIPES: readonly RecipeId[] = ['emailpassword', 'thirdparty', 'passwordless', 'webauthn'];

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

/**
 * The dashboard's search tags of `GET /users` (SPEC §18b), as the core reads them: each a
 * `;`-separated list, every item trimmed and lower-cased, empty ones left out. A tag whose list
 * is empty (`email=;;`) is no tag, and a query with none is no search: the plain list.
 */
export function parseUserSearch(query: Fields): UserSearch | undefined {
  const search: Partial<Record<(typeof SEARCH_TAGS)[number], string[]>> = {};
  for (const tag of SEARCH_TAGS) {
    const raw = optionalString(query, tag);
    if (raw === undefined) continue;
    const values = [...new Set(raw.split(';').map((v) => v.trim().toLowerCase()))].filter((v) => v !== '');
    if (values.length > 0) search[tag] = values;
  }
  return Object.keys(search).length > 0 ? search : undefined;
}

/**
 * Reads `limit`, `timeJoinedOrder`, `paginationToken`, `includeRecipeIds` and the search tags of
 * `GET /users`. With a search, `limit` has no upper bound (the core's rule; a search answers at
 * most `MAX_SEARCH_RESULTS` users whatever it is), and the other parameters are still checked.
 */
export function parseListUsersQuery(query: Fields): ListUsersInput {
  const search = parseUserSearch(query);
  // The core's texts (UsersAPI), typo included; a search has no upper bound.
  const limit = optionalIntQueryParam(query, 'limit') ?? DEFAULT_USERS_PAGE;
  if (limit > MAX_USERS_PAGE && search === undefined) throw new BadRequestError(`max limit allowed is ${MAX_USERS_PAGE}`);
  if (limit < 1) throw new BadRequestError('limit must a positive integer with min value 1');
  const rawOrder = optionalString(query, 'timeJoinedOrder')?.trim().toUpperCase() ?? 'ASC';
  if (rawOrder !== 'ASC' && rawOrder !== 'DESC') throw new BadRequestError("Field name 'timeJoinedOrder' must be ASC or DESC");
  const token = optionalString(query, 'paginationToken');
  const after = token === undefined ? undefined : decodePaginationToken(token);
  if (token !== undefined && after === undefined) throw new BadRequestError('invalid pagination token');
  const recipeIds = parseIncludeRecipeIds(query);
  return { limit, order: rawOrder, ...(after ? { after } : {}), ...(recipeIds ? { recipeIds } : {}), ...(search ? { search } : {}) };
}
