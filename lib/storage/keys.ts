import { createHash } from 'node:crypto';
import type { AccountInfo, RecipeId } from './model';

/**
 * The only place key strings are built. One table, generic key attributes; `README.md` beside this
 * file lists every key shape built here, with its item and access patterns
 * (`test/unit/keys.test.ts` checks each builder against that list). A user's partition
 * (`USER#<userId>`) holds all its login methods, so a primary user is read with one Query; a login
 * method linked to another user leaves a `LINK` item in its own partition. Variable parts that may
 * contain `#` (emails, third-party ids) are URI-encoded so that two different identities can never
 * build the same key.
 */
export const ATTR = {
  pk: 'pk',
  sk: 'sk',
  gsi1pk: 'gsi1pk',
  gsi1sk: 'gsi1sk',
  gsi2pk: 'gsi2pk',
  gsi2sk: 'gsi2sk',
  /** Epoch seconds; DynamoDB TTL garbage-collects codes and devices (never relied on for expiry). */
  ttl: 'ttl',
} as const;

export const INDEX = {
  usersByTenant: 'gsi1',
  byIdentity: 'gsi2',
} as const;

export interface Key {
  readonly pk: string;
  readonly sk: string;
}

/** One string per item key (pk and sk joined by a character no key holds), to find items in a set or map. */
export const keyId = (key: { readonly pk?: unknown; readonly sk?: unknown }): string => `${String(key.pk)}\u0000${String(key.sk)}`;

const enc = (s: string): string => encodeURIComponent(s);
const RECIPE_TAG: Record<RecipeId, string> = { emailpassword: 'EP', passwordless: 'PL', thirdparty: 'TP', webauthn: 'WA' };

/** Sort key part for time order: fixed width so that string order is numeric order. */
export const timeSortKey = (ms: number): string => ms.toString().padStart(15, '0');

const USER_PREFIX = 'USER#';

/**
 * Shards of a tenant's user list (gsi1): a migration writes every user of a tenant into this list,
 * and one index partition key takes about 1,000 writes/s; spread over 16, the list is no cap.
 * Listing merges the shards; counting adds them up.
 */
export const USER_LIST_SHARDS = 16;

/** The shard (0 … `shards` − 1) of a value: stable, spread evenly. */
export function shardOf(value: string, shards: number): number {
  return createHash('sha256').update(value, 'utf8').digest().readUInt16BE(0) % shards;
}

/** The list shard of a user, by its id. */
export const userListShard = (userId: string): number => shardOf(userId, USER_LIST_SHARDS);

/**
 * Lanes of staged bulk-import rows (SPEC §15). A row lives in the partition of its lane, the
 * first byte of its row id (a UUID, random or name-based: either spreads evenly): rows spread
 * over 256 partition keys, and, because DynamoDB Streams keeps the order of one partition key, the import worker is never fed two rows
 * of one lane at once, so the lane's counter item is never written by two workers at once.
 */
export const BULK_LANES = 256;
/** Shards of the bulk rows' status index (gsi1) and of the staging and removal counters. */
export const BULK_SHARDS = 16;
/** Who writes a bulk counter: each family of writers has its own items (see `BulkImportStore`). */
export type BulkCounterFamily = 'STAGE' | 'REMOVE' | 'LANE';

const ROW_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The lane of a bulk row id, or `undefined` when the id is no row id (not a lower-case UUID). */
export function bulkLaneOf(rowId: string): number | undefined {
  return ROW_ID.test(rowId) ? parseInt(rowId.slice(0, 2), 16) : undefined;
}

/*
 * The key builders follow, each an export of its own, imported as a namespace
 * (`import * as keys from '../keys'`, then `keys.loginMethod(…)`): esbuild keeps only the builders
 * a bundle calls, where an object holding them all put every one into every bundle.
 */

/** The partition of a user: every login method it holds, or the `LINK` of a linked login method. */
export const userPartition = (userId: string): string => `${USER_PREFIX}${userId}`;
/** The user id a user partition key names. */
export const userIdOfPartition = (pk: string): string => pk.slice(USER_PREFIX.length);
export const loginMethod = (userId: string, recipeUserId: string): Key => ({ pk: `${USER_PREFIX}${userId}`, sk: `LM#${recipeUserId}` });
/**
 * A user's entry in the list of a tenant that no login method of its has as its first tenant
 * (a login method in several tenants, as bulk import makes them): the list entry of the others
 * rides on the login method item.
 */
export const listEntry = (userId: string, tenantId: string): Key => ({ pk: `${USER_PREFIX}${userId}`, sk: `LIST#${tenantId}` });
/** A login method's entry among the users with its email in a tenant beyond its first one. */
export const emailEntry = (userId: string, tenantId: string, recipeUserId: string): Key => ({
  pk: `${USER_PREFIX}${userId}`,
  sk: `EMAIL#${tenantId}#${recipeUserId}`,
});
/**
 * A passwordless login method's entry among the login methods with its phone number in a
 * tenant, where its item does not carry it: every tenant of one that has an email too (its
 * item's gsi2 is the email's), the tenants beyond its first one otherwise.
 */
export const phoneEntry = (userId: string, tenantId: string, recipeUserId: string): Key => ({
  pk: `${USER_PREFIX}${userId}`,
  sk: `PHONE#${tenantId}#${recipeUserId}`,
});
/**
 * A login method waiting for password migration at sign-in (SPEC §16), one per tenant of it:
 * listed in gsi1 under `usersWaitingForPassword` while the mark lasts.
 */
export const passwordMigrationEntry = (userId: string, tenantId: string, recipeUserId: string): Key => ({
  pk: `${USER_PREFIX}${userId}`,
  sk: `PWMIG#${tenantId}#${recipeUserId}`,
});
/**
 * gsi1 partition: one shard (by recipe user id, as the user list) of the login methods of a
 * tenant waiting for password migration; a bulk import marks users at the rate it imports them.
 */
export const usersWaitingForPassword = (tenantId: string, shard: number): string => `T#${tenantId}#PWMIG#${shard}`;
/** Where a login method linked to another user finds that user. */
export const link = (recipeUserId: string): Key => ({ pk: `${USER_PREFIX}${recipeUserId}`, sk: 'LINK' });
/** A primary user's claim on one piece of account info in one tenant (SPEC §11). */
export const claim = (tenantId: string, info: AccountInfo): Key => ({
  pk:
    info.kind === 'email'
      ? `T#${tenantId}#PRIMARY#EMAIL#${enc(info.email)}`
      : info.kind === 'phone'
        ? `T#${tenantId}#PRIMARY#PHONE#${enc(info.phoneNumber)}`
        : `T#${tenantId}#PRIMARY#TP#${enc(info.thirdPartyId)}#${enc(info.thirdPartyUserId)}`,
  sk: 'PRIMARY',
});
export const emailGuard = (tenantId: string, recipe: RecipeId, email: string): Key => ({
  pk: `T#${tenantId}#${RECIPE_TAG[recipe]}#EMAIL#${enc(email)}`,
  sk: 'GUARD',
});
export const phoneGuard = (tenantId: string, phoneNumber: string): Key => ({
  pk: `T#${tenantId}#PL#PHONE#${enc(phoneNumber)}`,
  sk: 'GUARD',
});
export const thirdPartyGuard = (tenantId: string, thirdPartyId: string, thirdPartyUserId: string): Key => ({
  pk: `T#${tenantId}#TP#${enc(thirdPartyId)}#${enc(thirdPartyUserId)}`,
  sk: 'GUARD',
});
/** An external user id (SPEC §12), unique in the app: names the login method mapped to it. */
export const externalIdGuard = (externalUserId: string): Key => ({ pk: `EXTID#${enc(externalUserId)}`, sk: 'GUARD' });
/** A passkey's credential id (SPEC §21), unique in the app: names the webauthn login method holding it. */
export const webauthnCredential = (credentialId: string): Key => ({ pk: `WACRED#${enc(credentialId)}`, sk: 'GUARD' });
/** Beside a credential id's guard: the passkey's public key and counter (one Query of the partition reads both). */
export const webauthnCredentialKey = (credentialId: string): Key => ({ pk: `WACRED#${enc(credentialId)}`, sk: 'KEY' });
/** WebAuthn options, by `webauthnGeneratedOptionsId` (its tenant is an attribute: another tenant's are not found). */
export const webauthnOptions = (optionsId: string): Key => ({ pk: `WAOPTS#${enc(optionsId)}`, sk: 'OPTIONS' });
/** A WebAuthn account recovery token of a tenant, by the SHA-256 of the token (SPEC §21). */
export const webauthnRecoveryToken = (tenantId: string, tokenHash: string): Key => ({ pk: `WARECOVER#${tenantId}#${tokenHash}`, sk: 'TOKEN' });
/** The recovery tokens of one email in one tenant: one item per token, by its hash (consuming one ends them all). */
export const webauthnRecoveryTokensOf = (tenantId: string, email: string): string => `WARECOVERS#${tenantId}#${enc(email)}`;
export const device = (preAuthSessionId: string): Key => ({ pk: `PLDEV#${preAuthSessionId}`, sk: 'DEVICE' });
export const code = (preAuthSessionId: string, linkCodeHash: string): Key => ({
  pk: `PLDEV#${preAuthSessionId}`,
  sk: `CODE#${linkCodeHash}`,
});
export const codePrefix = 'CODE#';
/**
 * Where a code id (a random UUID) leads: the device of its code, whose sort key is the code's
 * link code hash, which the id cannot give (`POST /recipe/signinup/code/remove {"codeId"}`).
 */
export const codeById = (codeId: string): Key => ({ pk: `PLCODE#${codeId}`, sk: 'CODE' });
export const tenant = (tenantId: string): Key => ({ pk: 'TENANTS', sk: `TENANT#${tenantId}` });
/**
 * A tenant's third-party provider (SPEC §22): right after its tenant's item in the tenants
 * partition, so one Query (`tenant` to `tenantItemsEnd`) reads the tenant with its providers.
 */
export const tenantProvider = (tenantId: string, thirdPartyId: string): Key => ({ pk: 'TENANTS', sk: `TENANT#${tenantId}#TP#${enc(thirdPartyId)}` });
/**
 * A sort key after every item of a tenant (`tenant`, `tenantProvider`) and before any other
 * tenant's: `$` sorts right after `#` and before every character a tenant id holds (`[a-z0-9-]`).
 */
export const tenantItemsEnd = (tenantId: string): string => `TENANT#${tenantId}$`;
/** An email verification token, by the SHA-256 of the token (SPEC §13). */
export const verificationToken = (tokenHash: string): Key => ({ pk: `EVTOKEN#${tokenHash}`, sk: 'EVTOKEN' });
/** The tokens of one login method and email in one tenant: one item per token, by its hash. */
export const verificationTokensOf = (tenantId: string, recipeUserId: string, email: string): string => `EVTOKENS#${tenantId}#${recipeUserId}#${enc(email)}`;
/** A session, by its handle (SPEC §18). */
export const session = (handle: string): Key => ({ pk: `SESSION#${enc(handle)}`, sk: 'SESSION' });
/** gsi2 partition: the sessions of a user id as the session was created with (recipe user id, external where mapped). */
export const sessionsOfUser = (userId: string): string => `SESSIONS#${enc(userId)}`;
/** gsi2 sort key of a session: its tenant first, so one tenant's sessions of a user are a prefix. */
export const sessionInUserList = (tenantId: string, handle: string): string => `${tenantId}#${enc(handle)}`;
/** The partition of the signing keys and the refresh-token key (SPEC §18): read whole, at once. */
export const signingKeysPartition = 'SIGNINGKEYS';
/**
 * A dynamic signing key, by its generation (one more than the newest): the slot two functions
 * making the next key at once both write, so exactly one wins.
 */
export const dynamicSigningKey = (generation: number): Key => ({ pk: 'SIGNINGKEYS', sk: `DYNAMIC#${generation.toString().padStart(10, '0')}` });
export const staticSigningKey = { pk: 'SIGNINGKEYS', sk: 'STATIC' } as Key;
export const refreshTokenKey = { pk: 'SIGNINGKEYS', sk: 'REFRESH' } as Key;
/** An exchanged old-provider token, by the SHA-256 of its payload segment (SPEC §19): its single use. */
export const exchangedToken = (tokenHash: string): Key => ({ pk: `XTOKEN#${tokenHash}`, sk: 'XTOKEN' });
/** A password reset token, by the SHA-256 of the token (SPEC §18b). */
export const resetToken = (tokenHash: string): Key => ({ pk: `PWRESET#${tokenHash}`, sk: 'PWRESET' });
/** The password reset tokens of one user (the SuperTokens id they were made for): one item per token, by its hash. */
export const resetTokensOf = (userId: string): string => `PWRESETS#${enc(userId)}`;
/** A role and (sort keys `PERM#…`) its permissions (SPEC §14). */
export const role = (role: string): Key => ({ pk: `ROLE#${enc(role)}`, sk: 'ROLE' });
export const rolePermission = (role: string, permission: string): Key => ({ pk: `ROLE#${enc(role)}`, sk: `PERM#${enc(permission)}` });
export const rolePermissionPrefix = 'PERM#';
/** gsi1 partition: every role of the app. */
export const allRoles = 'ROLES';
/** gsi2 partition: the roles holding a permission. */
export const rolesWithPermission = (permission: string): string => `PERM#${enc(permission)}`;
/** The roles of a user id (as the app gives it), by tenant (SPEC §14). */
export const userRole = (userId: string, tenantId: string, role: string): Key => ({ pk: `USERROLES#${enc(userId)}`, sk: `T#${tenantId}#ROLE#${enc(role)}` });
export const userRolesPartition = (userId: string): string => `USERROLES#${enc(userId)}`;
/**
 * The assignment counter of a user id: every assignment adds one to its `version`, and removing
 * the user conditions on the version it read, so no assignment slips in between (SPEC §14).
 */
export const userRolesVersion = (userId: string): Key => ({ pk: `USERROLES#${enc(userId)}`, sk: 'VERSION' });
export const userRolesOfTenantPrefix = (tenantId: string): string => `T#${tenantId}#ROLE#`;
/**
 * A role's copy for one lane of the bulk-import worker (`BULK_LANES`): the worker's import
 * transactions check the role there, not on the role's own item, so a role given to millions of
 * users in a migration is read and checked on 256 keys, each by one writer at a time.
 */
export const roleLane = (role: string, lane: number): Key => ({ pk: `ROLELANE#${enc(role)}#${lane}`, sk: 'ROLE' });
/**
 * gsi2 partition: the users of a role, in one of `ROLE_USER_SHARDS` shards (by the user id), so
 * assigning one role to millions of users in a migration spreads over that many partition keys.
 */
export const usersWithRole = (role: string, shard: number): string => `ROLEUSERS#${enc(role)}#${shard}`;
/** A user's metadata, keyed by the user id exactly as the app gives it (SPEC §14). */
export const metadata = (userId: string): Key => ({ pk: `META#${enc(userId)}`, sk: 'METADATA' });
/**
 * The partition of the TOTP data of a user id, exactly as the app passes it (SPEC §20: the
 * external id when mapped): its devices, and its attempts in each tenant. Read whole by a code
 * check (one Query), deleted whole with the user.
 */
export const totpPartition = (userId: string): string => `TOTP#${enc(userId)}`;
export const totpDevice = (userId: string, name: string): Key => ({ pk: `TOTP#${enc(userId)}`, sk: `DEVICE#${enc(name)}` });
export const totpDevicePrefix = 'DEVICE#';
/** The recent code checks of a user id in one tenant, in one item (the rate limit and the replay check). */
export const totpAttempts = (userId: string, tenantId: string): Key => ({ pk: `TOTP#${enc(userId)}`, sk: `ATTEMPTS#${tenantId}` });
export const tenantsPartition = 'TENANTS';
/** gsi1 partition: one shard (see `userListShard`) of the users of a tenant, in join order. */
export const usersOfTenant = (tenantId: string, shard: number): string => `T#${tenantId}#USERS#${shard}`;
/**
 * gsi1 sort key: a user's place in its tenant's join order. The user id breaks ties between
 * users who joined in the same millisecond, so every position is unique and a page can start
 * strictly after one.
 */
export const userListPosition = (timeJoined: number, userId: string): string => `${timeSortKey(timeJoined)}#${userId}`;
/** The place a `userListPosition` names. */
export const parseUserListPosition = (position: string): { timeJoined: number; userId: string } => {
  const hash = position.indexOf('#');
  return { timeJoined: Number(position.slice(0, hash)), userId: position.slice(hash + 1) };
};
/** A staged bulk-import row, in its lane's partition (see `BULK_LANES`). */
export const bulkRow = (lane: number, rowId: string): Key => ({ pk: `BULK#${lane}`, sk: `ROW#${rowId}` });
/** The mark of a chunk of rows an idempotent staging request staged, by its first row's id. */
export const bulkStaged = (firstRowId: string): Key => ({ pk: `BULKSTAGED#${firstRowId}`, sk: 'CHUNK' });
/** One counter item of bulk rows by status (signed counts: their sum over every item is the count). */
export const bulkCounter = (family: BulkCounterFamily, n: number): Key => ({ pk: `BULKCOUNT#${family}#${n}`, sk: 'COUNT' });
/** gsi1 partition: one shard of the bulk rows in a status, newest first by `bulkRowPosition`. */
export const bulkRowsWithStatus = (status: string, shard: number): string => `BULKROWS#${status}#${shard}`;
/** gsi1 sort key: a bulk row's place (staging time, then row id). */
export const bulkRowPosition = (createdAt: number, rowId: string): string => `${timeSortKey(createdAt)}#${rowId}`;
/** gsi2 partition: users of a tenant with an email, across recipes. */
export const usersWithEmail = (tenantId: string, email: string): string => `T#${tenantId}#EMAIL#${enc(email)}`;
/** gsi2 partition: the passwordless login methods of a tenant with a phone number. */
export const usersWithPhone = (tenantId: string, phoneNumber: string): string => `T#${tenantId}#PHONE#${enc(phoneNumber)}`;
/** gsi2 partition: pending devices of one email or phone. */
export const devicesOfIdentity = (tenantId: string, identity: { email?: string; phoneNumber?: string }): string =>
  identity.email !== undefined ? `T#${tenantId}#PLDEV#EMAIL#${enc(identity.email)}` : `T#${tenantId}#PLDEV#PHONE#${enc(identity.phoneNumber ?? '')}`;
