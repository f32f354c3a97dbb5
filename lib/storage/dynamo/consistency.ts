import { ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { canonical } from '../../canonical-json';
import { keyId } from '../keys';
import * as keys from '../keys';
import { BULK_IMPORT_STATUSES, type AuthUser, type BulkImportStatus } from '../model';
import type { DynamoContext } from './transact';
import { TENANT_PROVIDER_TYPE, TENANT_TYPE } from './dynamo-tenant-store';
import { BULK_COUNTER_TYPE, BULK_ROW_TYPE, BULK_STAGED_TYPE, bulkRowFromItem, bulkRowItem } from './dynamo-bulk-import-store';
import { decodeSession, EXCHANGED_TOKEN_TYPE, exchangedTokenReadable, REFRESH_TOKEN_KEY_TYPE, SESSION_TYPE, SIGNING_KEY_TYPE } from './dynamo-session-store';
import { METADATA_TYPE } from './dynamo-metadata-store';
import { CODE_ID_TYPE } from './dynamo-passwordless-store';
import { PERMISSION_TYPE, ROLE_LANE_TYPE, ROLE_TYPE, USER_ROLE_TYPE, USER_ROLES_VERSION_TYPE } from './dynamo-role-store';
import { TOTP_ATTEMPTS_TYPE, TOTP_DEVICE_TYPE, totpItemReadable } from './dynamo-totp-store';
import { itemsOfUser } from './user-items';
import { credentialKeyItem, decodeCredential, decodeOptions, optionsItem, WEBAUTHN_KEY_TYPE, WEBAUTHN_OPTIONS_TYPE } from './dynamo-webauthn-store';
import { TOKEN_PAIR_TYPES, tokenPairProblem, type TokenPairProblemKind } from './token-pairs';
import { ITEM_TYPE, ownerOf, userFromItems, type DerivedItem } from './stored-user-items';

/** One inconsistency found in the table. */
export interface ConsistencyProblem {
  readonly kind:
    | 'guard-without-user'
    | 'guard-not-held'
    | 'user-missing-guard'
    | 'guard-stale-hash'
    | 'guard-stale-link'
    | 'user-missing-claim'
    | 'claim-not-held'
    | 'user-missing-link'
    | 'user-missing-entry'
    | 'entry-not-held'
    | 'link-not-held'
    | 'login-method-differs'
    | 'login-method-unreadable'
    | 'guard-stale-snapshot'
    | 'entry-stale-snapshot'
    | 'item-older-format'
    | 'user-not-one-user'
    | 'metadata-unreadable'
    | 'permission-without-role'
    | 'assignment-of-removed-role'
    | 'role-lane-of-removed-role'
    | 'code-without-device'
    | 'device-without-code'
    | 'code-without-id'
    | 'code-id-without-code'
    | 'bulk-row-unreadable'
    | 'bulk-mark-unreadable'
    | 'bulk-count-differs'
    | 'session-unreadable'
    | 'signing-key-unreadable'
    | 'exchanged-token-unreadable'
    | 'totp-item-unreadable'
    | 'provider-missing'
    | 'provider-not-listed'
    | 'provider-unreadable'
    | 'webauthn-item-unreadable'
    | 'webauthn-key-without-guard'
    | 'webauthn-guard-without-key'
    | 'unknown-item'
    | TokenPairProblemKind;
  readonly key: string;
  readonly detail: string;
}

/** A session item decodes, and sits under the keys its handle, tenant and user give. */
function sessionReadable(item: Record<string, unknown>): boolean {
  try {
    const s = decodeSession(item);
    return (
      item.pk === keys.session(s.handle).pk &&
      item.sk === keys.session(s.handle).sk &&
      item.gsi2pk === keys.sessionsOfUser(s.recipeUserId) &&
      item.gsi2sk === keys.sessionInUserList(s.tenantId, s.handle) &&
      typeof item.ttl === 'number'
    );
  } catch {
    return false;
  }
}

/** A WebAuthn options or passkey key item decodes, and is exactly what its writer writes from that. */
function webauthnItemReadable(item: Record<string, unknown>): boolean {
  try {
    const written = item.type === WEBAUTHN_OPTIONS_TYPE ? optionsItem(decodeOptions(item)) : credentialKeyItem(decodeCredential(item));
    return differingAttributes(written, item).length === 0;
  } catch {
    return false;
  }
}

/** A signing key holds a kid, a time and both PEM halves; the refresh-token key 32 bytes. */
function signingKeyReadable(item: Record<string, unknown>): boolean {
  if (item.type === REFRESH_TOKEN_KEY_TYPE)
    return item.sk === keys.refreshTokenKey.sk && typeof item.key === 'string' && Buffer.from(item.key, 'base64').length === 32;
  const pem = (v: unknown, kind: string) => typeof v === 'string' && v.startsWith(`-----BEGIN ${kind}-----`);
  const kidOk = item.sk === keys.staticSigningKey.sk ? /^s-/.test(String(item.kid)) : item.kid === `d-${String(item.createdAt)}`;
  return kidOk && typeof item.createdAt === 'number' && pem(item.privateKey, 'PRIVATE KEY') && pem(item.publicKey, 'PUBLIC KEY');
}

function isJsonObjectText(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}

/** Names (never values: they may be secrets) of the attributes in which two items differ. */
export function differingAttributes(expected: object, actual: object): string[] {
  const [e, a] = [expected as Record<string, unknown>, actual as Record<string, unknown>];
  const names = new Set([...Object.keys(e), ...Object.keys(a)]);
  return [...names].filter((n) => canonical(e[n]) !== canonical(a[n])).sort();
}

const MISSING: Record<Exclude<DerivedItem['role'], 'loginMethod'>, ConsistencyProblem['kind']> = {
  guard: 'user-missing-guard',
  claim: 'user-missing-claim',
  link: 'user-missing-link',
  entry: 'user-missing-entry',
};

/**
 * The pages of a Scan of the table, one after another: for the operator tools only (this checker
 * and the storage upgrades), which run with an operator's credentials; no function may Scan.
 */
export async function* scanPages(
  ctx: DynamoContext,
  input: Omit<ScanCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): AsyncGenerator<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await ctx.doc.send(new ScanCommand({ ...input, TableName: ctx.tableName, ExclusiveStartKey: startKey }));
    yield out.Items ?? [];
    startKey = out.LastEvaluatedKey;
  } while (startKey);
}

/**
 * A tenant's providers (SPEC §22) against its list: every id the tenant item lists has its
 * provider item (JSON text of a provider of that id), and every provider item is listed by its tenant.
 */
function tenantItemProblems(item: Record<string, unknown>, byKey: ReadonlyMap<string, Record<string, unknown>>): ConsistencyProblem[] {
  const pk = item.pk as string;
  if (item.type === TENANT_TYPE) {
    const ids = Array.isArray(item.providerIds) ? (item.providerIds as unknown[]) : [];
    return ids
      .filter((id) => typeof id !== 'string' || !byKey.has(keyId(keys.tenantProvider(item.tenantId as string, id))))
      .map(
        (id): ConsistencyProblem => ({
          kind: 'provider-missing',
          key: pk,
          detail: `tenant ${String(item.tenantId)} lists provider ${String(id)}, which is not stored`,
        }),
      );
  }
  const tenant = byKey.get(keyId(keys.tenant(item.tenantId as string)));
  const listed = Array.isArray(tenant?.providerIds) && (tenant.providerIds as unknown[]).includes(item.thirdPartyId);
  let readable = false;
  try {
    readable =
      item.sk === keys.tenantProvider(item.tenantId as string, item.thirdPartyId as string).sk &&
      JSON.parse(item.provider as string).thirdPartyId === item.thirdPartyId;
  } catch {
    readable = false;
  }
  if (!readable) return [{ kind: 'provider-unreadable', key: pk, detail: `${String(item.sk)} is not a provider as the service writes them` }];
  return listed ? [] : [{ kind: 'provider-not-listed', key: pk, detail: `provider ${String(item.sk)} is not in its tenant's list` }];
}

/**
 * Scans the whole table and reports every broken invariant of the storage design. A user's items
 * all follow from its login methods (see `itemsOfUser`), so the check derives them from the login
 * method items and compares: a guard, claim or link that no user implies, one a user implies that
 * is missing or holds something else (a stale hash copy), a login method whose list entry or
 * primary mark is wrong, a partition whose login methods do not make one user (a login method
 * that is neither primary nor linked outside its own partition, or primary and non-primary login
 * methods together). Also: a code whose device is gone, a device with no code, a code whose code
 * id item does not lead to it, a code id item of no code. Reads only; meant for tests, audits
 * after a migration, and `npm run check-consistency`. Never reports secrets (keys and attribute
 * names only).
 */
export async function checkConsistency(ctx: DynamoContext): Promise<ConsistencyProblem[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of scanPages(ctx, { ConsistentRead: true })) items.push(...page);

  const problems: ConsistencyProblem[] = [];
  const byKey = new Map(items.map((i) => [keyId(i), i]));
  /** The stored item of the role an item names. */
  const roleItemOf = (item: Record<string, unknown>) => byKey.get(keyId(keys.role(item.role as string)));
  const byPk = new Map<string, Record<string, unknown>[]>();
  for (const item of items) {
    const pk = item.pk as string;
    byPk.set(pk, [...(byPk.get(pk) ?? []), item]);
  }

  const users: AuthUser[] = [];
  for (const [pk, partition] of byPk) {
    let user: AuthUser | undefined;
    try {
      user = pk.startsWith(keys.userPartition('')) ? userFromItems(keys.userIdOfPartition(pk), partition) : undefined;
    } catch (err) {
      problems.push({ kind: 'login-method-unreadable', key: pk, detail: err instanceof Error ? err.message : String(err) });
    }
    if (!user) continue;
    const lmItems = partition.filter((i) => i.type === ITEM_TYPE.loginMethod);
    const marks = new Set(lmItems.map((i) => i.primaryUserId));
    if (marks.size > 1 || (!user.isPrimary && (user.loginMethods.length !== 1 || user.loginMethods[0].userId !== user.id))) {
      problems.push({ kind: 'user-not-one-user', key: pk, detail: `its ${lmItems.length} login methods do not make one primary or one non-primary user` });
    }
    users.push(user);
  }

  const expected = new Set<string>();
  const recipeUserIds = new Set(users.flatMap((u) => u.loginMethods.map((lm) => lm.userId)));
  const rowsByStatus = new Map<BulkImportStatus, number>();
  const counted = new Map<BulkImportStatus, number>();
  const sameKey = (a: Record<string, unknown>, b: Record<string, unknown>) => a.pk === b.pk && a.sk === b.sk && a.gsi1pk === b.gsi1pk && a.gsi1sk === b.gsi1sk;
  for (const user of users) {
    for (const d of itemsOfUser(user)) {
      const k = keyId(d.key);
      expected.add(k);
      const actual = byKey.get(k);
      if (d.role === 'loginMethod') {
        const differs = actual ? differingAttributes(d.item, actual) : [];
        if (differs.length > 0)
          problems.push({ kind: 'login-method-differs', key: d.key.pk, detail: `login method ${d.loginMethod.userId} differs in ${differs.join(', ')}` });
        continue;
      }
      if (d.role === 'guard' && d.attached && !byKey.has(keyId(d.attached))) {
        problems.push({ kind: 'webauthn-guard-without-key', key: d.key.pk, detail: `login method ${d.item.userId}'s passkey has no key beside its guard` });
      }
      if (!actual || canonical(actual.type) !== canonical(d.item.type)) {
        problems.push({ kind: MISSING[d.role], key: d.key.pk, detail: `user ${user.id} lacks ${d.role} ${d.key.pk}` });
        continue;
      }
      const differs = differingAttributes(d.item, actual);
      if (differs.length === 0) continue;
      const owner = ownerOf(d.item);
      if (actual.fmt !== d.item.fmt) {
        problems.push({
          kind: 'item-older-format',
          key: d.key.pk,
          detail: `user ${user.id}'s ${d.role} ${d.key.sk} is of storage format ${String(actual.fmt)}`,
        });
      } else if (actual[owner.attribute] !== owner.id) {
        problems.push({ kind: MISSING[d.role], key: d.key.pk, detail: `user ${user.id}'s ${d.role} is held by another user` });
      } else if (d.role === 'guard') {
        const kind = differs.includes('passwordHash') ? 'guard-stale-hash' : differs.includes('snapshot') ? 'guard-stale-snapshot' : 'guard-stale-link';
        problems.push({ kind, key: d.key.pk, detail: `the guard's ${differs.join(', ')} differs from login method ${owner.id}'s` });
      } else if (d.role === 'entry' && differs.every((name) => name === 'snapshot')) {
        problems.push({
          kind: 'entry-stale-snapshot',
          key: d.key.pk,
          detail: `the entry ${d.key.sk}'s snapshot of login method ${String(d.snapshotOf)} differs from it`,
        });
      } else {
        problems.push({ kind: MISSING[d.role], key: d.key.pk, detail: `user ${user.id}'s ${d.role} ${d.key.sk} differs in ${differs.join(', ')}` });
      }
    }
  }

  for (const item of items) {
    const pk = item.pk as string;
    const unexpected = !expected.has(keyId(item));
    switch (item.type) {
      case ITEM_TYPE.loginMethod:
        break;
      case TENANT_TYPE:
      case TENANT_PROVIDER_TYPE:
        problems.push(...tenantItemProblems(item, byKey));
        break;
      case METADATA_TYPE:
        if (!isJsonObjectText(item.metadata) || typeof item.version !== 'number') {
          problems.push({ kind: 'metadata-unreadable', key: pk, detail: 'metadata is not the JSON text of an object with a version' });
        }
        break;
      case ITEM_TYPE.guard:
        if (!unexpected) break;
        if (!recipeUserIds.has(item.userId as string)) {
          problems.push({ kind: 'guard-without-user', key: pk, detail: `guard points at missing login method ${String(item.userId)}` });
        } else {
          problems.push({ kind: 'guard-not-held', key: pk, detail: `login method ${String(item.userId)} does not hold this identity` });
        }
        break;
      case ITEM_TYPE.claim:
        if (unexpected)
          problems.push({ kind: 'claim-not-held', key: pk, detail: `user ${String(item.primaryUserId)} is not a primary user holding this account info` });
        break;
      case ITEM_TYPE.listEntry:
      case ITEM_TYPE.emailEntry:
      case ITEM_TYPE.phoneEntry:
      case ITEM_TYPE.passwordMigrationEntry:
        if (unexpected)
          problems.push({
            kind: 'entry-not-held',
            key: pk,
            detail: `user ${String(item.ownerUserId ?? item.recipeUserId)} implies no ${String(item.type)} ${String(item.sk)}`,
          });
        break;
      case ITEM_TYPE.link:
        if (unexpected)
          problems.push({ kind: 'link-not-held', key: pk, detail: `login method ${String(item.userId)} is not linked to user ${String(item.primaryUserId)}` });
        break;
      case ROLE_TYPE:
      case USER_ROLES_VERSION_TYPE:
        break;
      case PERMISSION_TYPE:
        if (!roleItemOf(item)) {
          problems.push({ kind: 'permission-without-role', key: pk, detail: `a permission of removed role ${String(item.role)}` });
        }
        break;
      case ROLE_LANE_TYPE:
        // A copy of an older incarnation is replaced before the worker uses it; one of no role is left by a removal that stopped.
        if (!roleItemOf(item)) {
          problems.push({ kind: 'role-lane-of-removed-role', key: pk, detail: `a bulk lane's copy of removed role ${String(item.role)}` });
        }
        break;
      case USER_ROLE_TYPE:
        if (roleItemOf(item)?.roleUid !== item.roleUid) {
          problems.push({ kind: 'assignment-of-removed-role', key: pk, detail: `an assignment of removed role ${String(item.role)}` });
        }
        break;
      case 'device':
        if (!(byPk.get(pk) ?? []).some((i) => i.type === 'code')) {
          problems.push({ kind: 'device-without-code', key: pk, detail: 'device has no code' });
        }
        break;
      case 'code':
        if (!(byPk.get(pk) ?? []).some((i) => i.sk === keys.device(item.preAuthSessionId as string).sk && i.type === 'device')) {
          problems.push({ kind: 'code-without-device', key: pk, detail: 'code whose device is gone' });
        }
        if (byKey.get(keyId(keys.codeById(item.codeId as string)))?.preAuthSessionId !== item.preAuthSessionId) {
          problems.push({ kind: 'code-without-id', key: pk, detail: 'code whose code id does not lead to its device' });
        }
        break;
      case CODE_ID_TYPE:
        if (!(byPk.get(keys.device(item.preAuthSessionId as string).pk) ?? []).some((i) => i.type === 'code' && i.codeId === item.codeId)) {
          problems.push({ kind: 'code-id-without-code', key: pk, detail: 'a code id whose code is gone' });
        }
        break;
      case BULK_ROW_TYPE:
        try {
          const row = bulkRowFromItem(item);
          if (!BULK_IMPORT_STATUSES.includes(row.status) || !sameKey(bulkRowItem(row), item)) throw new Error('misplaced');
          rowsByStatus.set(row.status, (rowsByStatus.get(row.status) ?? 0) + 1);
        } catch {
          problems.push({ kind: 'bulk-row-unreadable', key: pk, detail: 'a bulk row whose user, status or keys are not as staged rows are' });
        }
        break;
      case BULK_STAGED_TYPE:
        if (!Number.isInteger(item.rows) || (item.rows as number) < 1 || typeof item.ttl !== 'number' || pk !== keys.bulkStaged(item.id as string).pk) {
          problems.push({ kind: 'bulk-mark-unreadable', key: pk, detail: 'a staged chunk mark without its first row id, its number of rows or its expiry' });
        }
        break;
      case SESSION_TYPE:
        if (!sessionReadable(item)) {
          problems.push({ kind: 'session-unreadable', key: pk, detail: 'a session whose fields or keys are not as sessions are written' });
        }
        break;
      case SIGNING_KEY_TYPE:
      case REFRESH_TOKEN_KEY_TYPE:
        if (!signingKeyReadable(item)) {
          problems.push({ kind: 'signing-key-unreadable', key: pk, detail: `${String(item.sk)} is not a key as the service writes them` });
        }
        break;
      case EXCHANGED_TOKEN_TYPE:
        if (!exchangedTokenReadable(item)) {
          problems.push({ kind: 'exchanged-token-unreadable', key: pk, detail: 'an exchanged token without its expiry, or with part of a replay' });
        }
        break;
      case TOTP_DEVICE_TYPE:
      case TOTP_ATTEMPTS_TYPE:
        if (!totpItemReadable(item)) {
          problems.push({ kind: 'totp-item-unreadable', key: pk, detail: `${String(item.type)} is not as TOTP items are written, or not under its keys` });
        }
        break;
      case WEBAUTHN_OPTIONS_TYPE:
      case WEBAUTHN_KEY_TYPE:
        if (!webauthnItemReadable(item)) {
          problems.push({
            kind: 'webauthn-item-unreadable',
            key: pk,
            detail: `${String(item.type)} is not as WebAuthn items are written, or not under its keys`,
          });
        } else if (item.type === WEBAUTHN_KEY_TYPE && byKey.get(keyId(keys.webauthnCredential(item.credentialId as string)))?.userId !== item.recipeUserId) {
          problems.push({
            kind: 'webauthn-key-without-guard',
            key: pk,
            detail: `a passkey key of login method ${String(item.recipeUserId)} without its guard`,
          });
        }
        break;
      case BULK_COUNTER_TYPE:
        for (const status of BULK_IMPORT_STATUSES) counted.set(status, (counted.get(status) ?? 0) + ((item[status] as number | undefined) ?? 0));
        break;
      default: {
        const pair = TOKEN_PAIR_TYPES.has(item.type)
          ? tokenPairProblem(item, byKey)
          : { kind: 'unknown-item' as const, detail: `item of unknown type ${String(item.type)}` };
        if (pair) problems.push({ ...pair, key: pk });
      }
    }
  }
  for (const status of BULK_IMPORT_STATUSES) {
    const rows = rowsByStatus.get(status) ?? 0;
    const count = counted.get(status) ?? 0;
    if (rows !== count) problems.push({ kind: 'bulk-count-differs', key: status, detail: `${rows} bulk rows are ${status}, the counters say ${count}` });
  }
  return problems;
}
