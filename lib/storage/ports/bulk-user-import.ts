import type { AuthUser, JsonObject, RoleRecord, WebauthnCredentialRecord } from '../model';
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
  /**
   * The passkeys of these credential ids that are here (a consistent GetItem of each key item, sent
   * together): who holds each and its key, for a re-run's comparison (SPEC §21).
   */
  getPasskeys(credentialIds: readonly string[]): Promise<ReadonlyMap<string, Pick<WebauthnCredentialRecord, 'recipeUserId' | 'publicKey'>>>;
}

/** What importing one bulk user writes (SPEC §15). */
export interface BulkUserWrite {
  readonly users: readonly AuthUser[];
  /** The user id's metadata after the import, and the version it was read at (none: `undefined`). */
  readonly metadata?: { readonly userId: string; readonly metadata: JsonObject; readonly readVersion: number | undefined };
  readonly roles: readonly { readonly tenantId: string; readonly userId: string; readonly role: RoleRecord }[];
  /** TOTP devices put under the user id, each replacing a device of its name (SPEC §20). */
  readonly totp?: { readonly userId: string; readonly devices: readonly TotpDevice[] };
  /**
   * The key items of the users' passkeys (SPEC §21), beside the guards of their credential ids that
   * the users' items hold; each put only if absent (`IDENTITY_TAKEN` `webauthnCredential`).
   */
  readonly passkeys?: readonly WebauthnCredentialRecord[];
}

export type BulkUserWriteResult = UserWriteResult | { readonly status: 'ROLE_GONE' } | { readonly status: 'ROW_GONE' };
