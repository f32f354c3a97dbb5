import type { AuthUser, JsonObject, RoleRecord } from '../model';
import type { BulkRowRef } from './bulk-import';
import type { TotpDevice } from './totp';
import type { UserWriteResult } from './users';

/**
 * Importing one bulk user (SPEC §15): `POST /bulk-import/import` and the worker. A port of its own
 * (not a method of `BulkImportStore`) so that a function bundles only the store code it runs:
 * esbuild keeps every method of a class it keeps, and the synchronous import runs none of the
 * rows' or the worker's.
 */
export interface BulkUserImportStore {
  /**
   * Writes one imported bulk user in one transaction: its new users with all their items (as
   * `UserStore.writeUsers` from nothing), its metadata, its role assignments and its TOTP devices
   * (an empty `users` writes only them). `ROLE_GONE` when
   * a role is no longer the incarnation read (for a row: on its lane's copy, see
   * `BulkWorkerStore.ensureRoleLane`); `STALE` when the metadata changed since read. With a row,
   * the same transaction deletes the row and counts it (`ROW_GONE` if it moved or went).
   */
  importUser(write: BulkUserWrite, row?: BulkRowRef): Promise<BulkUserWriteResult>;
}

/** What importing one bulk user writes (SPEC §15). */
export interface BulkUserWrite {
  readonly users: readonly AuthUser[];
  /** The user id's metadata after the import, and the version it was read at (none: `undefined`). */
  readonly metadata?: { readonly userId: string; readonly metadata: JsonObject; readonly readVersion: number | undefined };
  readonly roles: readonly { readonly tenantId: string; readonly userId: string; readonly role: RoleRecord }[];
  /** TOTP devices put under the user id, each replacing a device of its name (SPEC §20). */
  readonly totp?: { readonly userId: string; readonly devices: readonly TotpDevice[] };
}

export type BulkUserWriteResult = UserWriteResult | { readonly status: 'ROLE_GONE' } | { readonly status: 'ROW_GONE' };
