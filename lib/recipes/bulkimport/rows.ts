import type { BulkImportRow, BulkImportStatus, BulkLoginMethod, JsonObject } from '../../storage/model';
import { cursorOfRow, type BulkRowCursor } from '../../storage/ports/bulk-import';
import { answerBodyBytes, MAX_ANSWER_BODY_BYTES } from '../answer-size';
import type { Deps } from '../deps';

/**
 * A staged row as `GET /bulk-import/users` shows it: the core's fields, nulls left out, and
 * (unlike the core, SPEC §4, §20) never a password hash, a plain-text password or a TOTP secret.
 */
export interface BulkRowView {
  readonly id: string;
  readonly externalUserId?: string;
  readonly userMetadata?: JsonObject;
  readonly userRoles?: readonly { readonly role: string; readonly tenantIds: readonly string[] }[];
  /** Without `secretKey` (SPEC §20). */
  readonly totpDevices?: readonly { readonly deviceName: string; readonly period: number; readonly skew: number }[];
  readonly loginMethods: readonly Record<string, unknown>[];
  readonly status: BulkImportStatus;
  readonly primaryUserId?: string;
  readonly errorMessage?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}

function loginMethodView(lm: BulkLoginMethod): Record<string, unknown> {
  return {
    tenantIds: lm.tenantIds,
    isVerified: lm.isVerified,
    isPrimary: lm.isPrimary,
    timeJoinedInMSSinceEpoch: lm.timeJoined,
    recipeId: lm.recipeId,
    email: lm.email,
    hashingAlgorithm: lm.hashingAlgorithm,
    migratePasswordOnSignIn: lm.migratePasswordOnSignIn,
    thirdPartyId: lm.thirdPartyId,
    thirdPartyUserId: lm.thirdPartyUserId,
    phoneNumber: lm.phoneNumber,
    credentials: lm.webauthnCredentials,
    superTokensUserId: lm.superTokensUserId,
  };
}

export function rowView(row: BulkImportRow): BulkRowView {
  const { user } = row;
  return {
    id: user.id,
    ...(user.externalUserId !== undefined ? { externalUserId: user.externalUserId } : {}),
    ...(user.userMetadata !== undefined ? { userMetadata: user.userMetadata } : {}),
    ...(user.userRoles !== undefined ? { userRoles: user.userRoles } : {}),
    ...(user.totpDevices !== undefined ? { totpDevices: user.totpDevices.map(({ deviceName, period, skew }) => ({ deviceName, period, skew })) } : {}),
    loginMethods: user.loginMethods.map(loginMethodView),
    status: row.status,
    ...(row.primaryUserId !== undefined ? { primaryUserId: row.primaryUserId } : {}),
    ...(row.errorMessage !== undefined ? { errorMessage: row.errorMessage } : {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * `GET /bulk-import/users`: a page of rows, newest first; `next` when another page follows.
 * A row may hold up to 64 KiB of metadata, so 500 rows of users with a few KB each (an Auth0
 * export's `app_metadata`) are more than Lambda returns: a page ends before the row whose view
 * would take its rows past `MAX_ANSWER_BODY_BYTES` (each row's view counted as the answer
 * carries it), with a pagination token for the rest (it always holds one row): fewer rows
 * than `limit`, as the token says more follow.
 */
export async function listBulkRows(
  deps: Pick<Deps, 'bulkImport'>,
  query: { status?: BulkImportStatus; limit: number; after?: BulkRowCursor },
): Promise<{ rows: BulkRowView[]; next?: BulkRowCursor }> {
  const page = await deps.bulkImport.listRows(query);
  const views: BulkRowView[] = [];
  let bytes = 0;
  for (const row of page.rows) {
    const view = rowView(row);
    const size = answerBodyBytes(view);
    if (views.length > 0 && bytes + size > MAX_ANSWER_BODY_BYTES) return { rows: views, next: cursorOfRow(page.rows[views.length - 1]) };
    views.push(view);
    bytes += size;
  }
  return { rows: views, ...(page.next ? { next: page.next } : {}) };
}

/** `GET /bulk-import/users/count`: exact (see `BulkImportStore`). */
export async function countBulkRows(deps: Pick<Deps, 'bulkImport'>, status?: BulkImportStatus): Promise<{ status: 'OK'; count: number }> {
  return { status: 'OK', count: await deps.bulkImport.countRows(status) };
}

/** `POST /bulk-import/users/remove`: each id given, as removed or as naming no row (the core's shape). */
export async function removeBulkRows(deps: Pick<Deps, 'bulkImport'>, ids: readonly string[]): Promise<{ deletedIds: string[]; invalidIds: string[] }> {
  const { deleted } = await deps.bulkImport.removeRows(ids);
  const removed = new Set(deleted);
  return { deletedIds: ids.filter((id) => removed.has(id)), invalidIds: ids.filter((id) => !removed.has(id)) };
}
