import { BadRequestError, invalidField, TENANT_NOT_FOUND } from './errors';
import type { DepsWith } from './runtime';
import { inExistingTenants } from './handler';
import { requiredJsonObject, type Fields } from './input';
import { parseTenantId } from './tenant-path';
import type { JsonObject } from '../storage/model';

/**
 * The most a session payload (`userDataInJWT`, `userDataInDatabase`) may hold, as JSON text: two
 * of them and the session's own fields stay well inside DynamoDB's 400 KB item, and an access
 * token carrying 100 KB of claims is already far past what a cookie or header takes.
 */
export const MAX_SESSION_PAYLOAD_BYTES = 100_000;

/** At most this many handles in one `POST /recipe/session/remove` (each is a DeleteItem). */
export const MAX_HANDLES_PER_REMOVE = 1000;

/** A required JSON object payload of a session, bounded in size. */
export function sessionPayload(fields: Fields, name: string): JsonObject {
  const value = requiredJsonObject(fields, name) as JsonObject;
  if (Buffer.byteLength(JSON.stringify(value), 'utf8') > MAX_SESSION_PAYLOAD_BYTES) {
    throw new BadRequestError(`Field name '${name}' is too large: at most ${MAX_SESSION_PAYLOAD_BYTES} bytes as JSON`);
  }
  return value;
}

/** `sessionHandles` of a removal: an array of strings, bounded. */
export function sessionHandles(fields: Fields): string[] {
  const value = fields.sessionHandles;
  if (!Array.isArray(value) || value.some((h) => typeof h !== 'string')) throw invalidField('sessionHandles');
  if (value.length > MAX_HANDLES_PER_REMOVE) {
    throw new BadRequestError(`Field name 'sessionHandles' holds more than ${MAX_HANDLES_PER_REMOVE} handles: remove them in several calls`);
  }
  return value as string[];
}

/**
 * The tenant a session handle names, read as the core reads it (`Session.getTenantIdFromSessionHandle`):
 * what follows its first `_` (a handle is `<uuid>_<tenantId>` outside `public`), `public` when
 * nothing does; `undefined` when that is no tenant id at all.
 */
export function tenantOfSessionHandle(handle: string): string | undefined {
  // Java's `split("_")`: trailing empty parts are dropped.
  const parts = handle.replace(/_+$/, '').split('_');
  return parts.length === 1 ? 'public' : parseTenantId(parts[1]);
}

/**
 * Runs `work` on sessions by handle, as the core does: in the tenants their handles name, each of
 * which must exist (else 400 `AppId or tenantId not found`, and nothing changed), checked beside
 * the work's reads. A handle of `public` costs no check.
 */
export async function inTenantsOfSessionHandles<T>(deps: Pick<DepsWith<never>, 'tenants'>, handles: readonly string[], work: () => Promise<T>): Promise<T> {
  const tenantIds = handles.map(tenantOfSessionHandle);
  if (tenantIds.includes(undefined)) throw new BadRequestError(TENANT_NOT_FOUND);
  return inExistingTenants(deps, tenantIds as string[], work);
}

/** A `true`/`false` query flag, `true` when absent; as the core, anything but `true` is false. */
export function queryFlag(query: Fields, name: string): boolean {
  const value = query[name];
  return value === undefined ? true : String(value).trim().toLowerCase() === 'true';
}

/** `validity` of `POST /recipe/jwt`: a number of seconds, greater than 0 (the core's text). */
export function jwtValidity(fields: Fields): number {
  const value = fields.validity;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidField('validity');
  if (value <= 0) throw new BadRequestError('validity must be greater than or equal to 0');
  return value;
}
