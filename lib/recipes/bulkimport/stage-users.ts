import { createHash } from 'node:crypto';
import type { BulkImportRow, BulkLoginMethod, BulkUser } from '../../storage/model';
import { answerBodyBytes, MAX_ANSWER_BODY_BYTES } from '../answer-size';
import type { Deps } from '../deps';
import { InvalidInputDocumentError } from '../errors';
import { PUBLIC_TENANT } from '../multitenancy/tenants';
import { parseBulkUser, type BulkValidationContext } from './bulk-user';

/** The most users one staging request may hold (the core's bound). */
export const MAX_USERS_PER_REQUEST = 10_000;
/** Role names the index does not list yet (made a moment ago) are read one by one, at most this many. */
const MAX_ROLE_READS = 100;

/** A UUID v5 namespace of its own for the ids of staging requests with an idempotency key. */
const REQUEST_ID_NAMESPACE = Buffer.from('3b0f5e4e9d6a4c1f8e2b7a9d0c4f6e18', 'hex');

/** A name-based UUID (version 5, RFC 9562: SHA-1 of the namespace and the name). */
function uuidV5(namespace: Buffer, name: string): string {
  const b = createHash('sha1').update(namespace).update(name, 'utf8').digest().subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x50;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The ids of a staging request sent with an idempotency key, in the order validation asks for
 * them (each user's id, then its login methods'): the same for every try of the same request (the
 * key and the users as sent), so a try sent again finds the rows an earlier one staged. Another
 * key, or other users under the same key, gives other ids.
 */
export function requestIds(idempotencyKey: string, users: readonly unknown[]): () => string {
  const request = createHash('sha256').update(idempotencyKey, 'utf8').update('\n').update(JSON.stringify(users), 'utf8').digest('hex');
  let n = 0;
  return () => uuidV5(REQUEST_ID_NAMESPACE, `${request}#${n++}`);
}

/** How the core shows a staged user: its id to the outside, and each login method's new id. */
export interface StagedUserView {
  readonly userId: string;
  readonly loginMethods: readonly {
    readonly recipeId: string;
    readonly userId: string;
    readonly tenants: readonly string[];
    readonly email?: string | null;
    readonly thirdpartyId?: string | null;
    readonly thirdpartyUserId?: string | null;
    readonly phoneNumber?: string | null;
  }[];
}

function stagedView(user: BulkUser): StagedUserView {
  const lmView = (lm: BulkLoginMethod) => {
    const base = { recipeId: lm.recipeId, userId: lm.superTokensUserId, tenants: lm.tenantIds };
    if (lm.recipeId === 'emailpassword') return { ...base, email: lm.email ?? null };
    if (lm.recipeId === 'thirdparty')
      return { ...base, email: lm.email ?? null, thirdpartyId: lm.thirdPartyId ?? null, thirdpartyUserId: lm.thirdPartyUserId ?? null };
    if (lm.recipeId === 'webauthn') return { ...base, email: lm.email ?? null };
    return { ...base, email: lm.email ?? null, phoneNumber: lm.phoneNumber ?? null };
  };
  return { userId: user.externalUserId ?? user.id, loginMethods: user.loginMethods.map(lmView) };
}

/** The roles a request names that exist: the index's list, and a consistent read of the rest. */
async function existingRoles(deps: Pick<Deps, 'roleReader'>, users: readonly unknown[]): Promise<Set<string>> {
  const roles = new Set(await deps.roleReader.listRoles());
  const named = new Set<string>();
  for (const user of users) {
    const userRoles = (user as { userRoles?: unknown } | null)?.userRoles;
    if (!Array.isArray(userRoles)) continue;
    for (const entry of userRoles) {
      const role = (entry as { role?: unknown } | null)?.role;
      if (typeof role === 'string' && !roles.has(role.trim())) named.add(role.trim());
    }
  }
  const unlisted = [...named].slice(0, MAX_ROLE_READS);
  const found = await Promise.all(unlisted.map((role) => deps.roleReader.getRole(role)));
  for (const record of found) if (record) roles.add(record.role);
  return roles;
}

/** What validating the users of a request needs: the app's tenants and roles, read once. */
export async function validationContext(
  deps: Pick<Deps, 'roleReader' | 'tenants' | 'clock' | 'random' | 'config'>,
  users: readonly unknown[],
): Promise<BulkValidationContext> {
  const [tenants, roles] = await Promise.all([deps.tenants.listTenants(), existingRoles(deps, users)]);
  return {
    tenants: new Set([PUBLIC_TENANT, ...tenants.map((t) => t.tenantId)]),
    roles,
    now: deps.clock.now(),
    newId: () => deps.random.uuid(),
    externalUserIds: new Set(),
    hashOptions: { limits: deps.config.password.limits, signerKeyConfigured: deps.config.signerKey !== undefined },
    passwordMigrationConfigured: deps.config.passwordMigration.source !== 'off',
    rpIds: deps.config.webauthn.rpIds,
    credentialIds: new Set(),
  };
}

/**
 * `POST /bulk-import/users`: validates every user (the errors of each invalid one, by index;
 * nothing is staged if any is invalid), then stages them all as `NEW` rows. The import itself
 * happens later, row by row (SPEC §15). With an idempotency key (beyond the core), the ids are
 * the request's own (`requestIds`): the same request sent again, after a 503 or a lost answer,
 * stages only what the earlier tries did not, and answers the same ids.
 */
export async function stageUsers(
  deps: Pick<Deps, 'bulkImport' | 'roleReader' | 'tenants' | 'clock' | 'random' | 'config'>,
  users: readonly unknown[],
  idempotencyKey?: string,
): Promise<{ status: 'OK'; users?: StagedUserView[] }> {
  if (users.length === 0) return { status: 'OK' };
  if (users.length > MAX_USERS_PER_REQUEST) {
    const error = `You can only add ${MAX_USERS_PER_REQUEST} users at a time.`;
    throw new InvalidInputDocumentError({ error }, error);
  }
  const base = await validationContext(deps, users);
  const ctx = idempotencyKey === undefined ? base : { ...base, newId: requestIds(idempotencyKey, users) };
  const now = ctx.now;
  const valid: BulkUser[] = [];
  const invalid: { index: number; errors: string[] }[] = [];
  users.forEach((raw, index) => {
    const result = parseBulkUser(raw, ctx);
    if (result.ok) valid.push(result.user);
    else invalid.push({ index, errors: result.errors });
  });
  if (invalid.length > 0) {
    const error = 'Data has missing or invalid fields. Please check the users field for more details.';
    throw new InvalidInputDocumentError({ error, users: invalid }, error);
  }
  const answer = { status: 'OK' as const, users: valid.map(stagedView) };
  // The answer names every login method's new id, so 10,000 users of several login methods each,
  // with little else, answer more than they sent. Refused before anything is staged: an answer
  // Lambda cannot return would leave the users staged and the caller without their ids (API
  // Gateway answers 500), likely to send them again.
  const bytes = answerBodyBytes(answer);
  if (bytes > MAX_ANSWER_BODY_BYTES) {
    const error = `The answer to these ${valid.length} users would take ${(bytes / 1e6).toFixed(1)} MB, more than the ${MAX_ANSWER_BODY_BYTES / 1e6} MB one answer carries: send fewer users per request.`;
    throw new InvalidInputDocumentError({ error }, error);
  }
  const rows: BulkImportRow[] = valid.map((user) => ({ user, status: 'NEW', createdAt: now, updatedAt: now }));
  await deps.bulkImport.stageRows(rows, { idempotent: idempotencyKey !== undefined });
  return answer;
}
