import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { bulkLaneOf } from '../keys';
import * as keys from '../keys';
import { TooManyItemsError } from '../errors';
import type { WebauthnCredentialRecord } from '../model';
import type { BulkRowRef } from '../ports/bulk-import';
import type { BulkUserImportStore, BulkUserWrite, BulkUserWriteResult } from '../ports/bulk-user-import';
import { metadataCondition, metadataItem } from './dynamo-metadata-store';
import { roleIsCurrent, userRoleItem } from './dynamo-role-store';
import { totpDeviceItem } from './dynamo-totp-store';
import { credentialKeyItem } from './dynamo-webauthn-store';
import { ifAbsent, MAX_TRANSACTION_ITEMS, writeAtomically, type DynamoContext, type TaggedWrite } from './transact';
import { userChangeWrites } from './user-diff';

/**
 * Importing one bulk user (see `BulkUserImportStore`) as `POST /bulk-import/import` does: without a
 * row. A class of its own, apart from the rows (`DynamoBulkImportStore`) and the worker's row writes
 * (`DynamoBulkWorkerStore`), so that the synchronous import bundles this method and none of theirs
 * (esbuild keeps every method of a class it keeps); the worker's import, which finishes the row in
 * the same transaction, is `DynamoBulkRowImportStore`.
 */
export class DynamoBulkUserImportStore implements BulkUserImportStore {
  constructor(protected readonly ctx: DynamoContext) {}

  /** The writes that finish a staged row with its user: `DynamoBulkRowImportStore`'s; the synchronous import has no row. */
  protected rowWrites(row: BulkRowRef): TaggedWrite<BulkUserWriteResult>[] {
    throw new Error(`Row ${row.id} can only be imported by the worker's store (DynamoBulkRowImportStore)`);
  }

  async importUser(write: BulkUserWrite, row?: BulkRowRef): Promise<BulkUserWriteResult> {
    const T = this.ctx.tableName;
    const writes: TaggedWrite<BulkUserWriteResult>[] = [...(row ? this.rowWrites(row) : []), ...userChangeWrites(this.ctx, [], write.users)];
    if (write.metadata) {
      const { userId, metadata, readVersion } = write.metadata;
      writes.push({
        item: { Put: { TableName: T, Item: metadataItem(userId, metadata, (readVersion ?? 0) + 1), ...metadataCondition(readVersion) } },
        onConditionFailed: { status: 'STALE' },
      });
    }
    const roles = new Map(write.roles.map((r) => [r.role.role, r.role]));
    // The worker checks each role on its lane's copy (one writer per lane), the synchronous import
    // on the role itself: no key is shared by every import of a role.
    const lane = row ? bulkLaneOf(row.id) : undefined;
    for (const role of roles.values()) {
      writes.push(roleIsCurrent(this.ctx, role, { status: 'ROLE_GONE' } as const, lane === undefined ? undefined : keys.roleLane(role.role, lane)));
    }
    for (const { tenantId, userId, role } of write.roles) {
      writes.push({ item: { Put: { TableName: T, Item: userRoleItem(tenantId, userId, role) } }, onConditionFailed: { status: 'STALE' } });
    }
    // Unconditional: a device of the same name (an earlier run's) is replaced.
    for (const device of write.totp?.devices ?? []) {
      writes.push({ item: { Put: { TableName: T, Item: totpDeviceItem(write.totp!.userId, device) } }, onConditionFailed: { status: 'STALE' } });
    }
    // A passkey's key beside its guard (the users' items): both conditional on being free.
    for (const passkey of write.passkeys ?? []) {
      writes.push({
        item: { Put: { TableName: T, Item: credentialKeyItem(passkey), ...ifAbsent } },
        onConditionFailed: { status: 'IDENTITY_TAKEN', identity: 'webauthnCredential' },
      });
    }
    if (writes.length > MAX_TRANSACTION_ITEMS) throw new TooManyItemsError(writes.length);
    const result = await writeAtomically(this.ctx, writes);
    return result.ok ? { status: 'OK' } : result.failed;
  }

  /**
   * GetItems sent together, not a BatchGetItem: a re-run reads them (20 at most per login method),
   * and the SDK's batch command would cost every bulk import bundle 1.5 KB.
   */
  async getPasskeys(credentialIds: readonly string[]): Promise<ReadonlyMap<string, Pick<WebauthnCredentialRecord, 'recipeUserId' | 'publicKey'>>> {
    const read = (id: string) =>
      this.ctx.doc.send(new GetCommand({ TableName: this.ctx.tableName, Key: keys.webauthnCredentialKey(id), ConsistentRead: true })).then((out) => out.Item);
    const items = await Promise.all(credentialIds.map(read));
    return new Map(
      items.flatMap((i) => (i ? [[i.credentialId as string, { recipeUserId: i.recipeUserId as string, publicKey: i.publicKey as string }] as const] : [])),
    );
  }
}
