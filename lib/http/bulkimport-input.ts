import type { BulkImportStatus } from '../storage/model';
import type { BulkRowCursor } from '../storage/ports/bulk-import';
import { BadRequestError, invalidField } from './errors';
import { checkWellFormed, optionalIntQueryParam, optionalString, type Fields } from './input';

/** Rows per page of `GET /bulk-import/users` (the core's bounds). */
export const BULK_LIST_DEFAULT_LIMIT = 100;
export const BULK_LIST_MAX_LIMIT = 500;
/** Row ids per `POST /bulk-import/users/remove`. */
export const MAX_REMOVE_IDS = 500;

/** `users` of a staging request: an array (each user is validated by the recipe). */
export function usersOf(body: Fields): unknown[] {
  const users = body.users;
  if (!Array.isArray(users)) throw invalidField('users');
  return users;
}

/** The header of a staging request's idempotency key (beyond the core; the migration command sends one). */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The idempotency key of a staging request: absent, or 1–255 visible ASCII characters. */
export function idempotencyKeyOf(headers: Readonly<Record<string, string>>): string | undefined {
  const key = headers[IDEMPOTENCY_KEY_HEADER];
  if (key === undefined) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) throw new BadRequestError(`The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to 255 visible ASCII characters.`);
  return key;
}

/** `status` of a bulk GET: one of the three, or absent for all. */
export function statusParam(query: Fields): BulkImportStatus | undefined {
  const status = optionalString(query, 'status');
  if (status === undefined) return undefined;
  if (status !== 'NEW' && status !== 'PROCESSING' && status !== 'FAILED') {
    throw new BadRequestError('Invalid value for status. Pass one of NEW, PROCESSING, or FAILED!');
  }
  return status;
}

/** `limit` of `GET /bulk-import/users`: 1–500, default 100 (the core's texts). */
export function bulkListLimit(query: Fields): number {
  const limit = optionalIntQueryParam(query, 'limit');
  if (limit === undefined) return BULK_LIST_DEFAULT_LIMIT;
  if (limit > BULK_LIST_MAX_LIMIT) throw new BadRequestError(`Max limit allowed is ${BULK_LIST_MAX_LIMIT}`);
  if (limit < 1) throw new BadRequestError('limit must a positive integer with min value 1');
  return limit;
}

const INVALID_TOKEN = 'invalid pagination token';

/** The core's token: standard base64 of `<rowId>;<createdAt>`. */
export function bulkPaginationToken(cursor: BulkRowCursor): string {
  return Buffer.from(`${cursor.id};${cursor.createdAt}`, 'utf8').toString('base64');
}

/** Reads `paginationToken` back into a place in the list. */
export function bulkCursorParam(query: Fields): BulkRowCursor | undefined {
  const token = optionalString(query, 'paginationToken');
  if (token === undefined) return undefined;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(token)) throw new BadRequestError(INVALID_TOKEN);
  const parts = Buffer.from(token, 'base64').toString('utf8').split(';');
  if (parts.length !== 2 || parts[0] === '' || !/^\d{1,15}$/.test(parts[1])) throw new BadRequestError(INVALID_TOKEN);
  return { id: parts[0], createdAt: Number(parts[1]) };
}

/** `ids` of a removal: at most 500 strings, none empty (the core's texts). */
export function removeIdsOf(body: Fields): string[] {
  const ids = body.ids;
  if (!Array.isArray(ids)) throw invalidField('ids');
  if (ids.length > MAX_REMOVE_IDS) throw new BadRequestError(`Field name 'ids' cannot contain more than ${MAX_REMOVE_IDS} elements`);
  for (const id of ids) {
    if (typeof id !== 'string') throw invalidField('ids');
    checkWellFormed('ids', id);
    if (id === '') throw new BadRequestError("Field name 'ids' cannot contain an empty string");
  }
  return ids as string[];
}
