import type { BulkImportRow, BulkLoginMethod, BulkUser } from '../../storage/model';
import type { Deps } from '../deps';
import { InvalidInputDocumentError } from '../errors';
import { PUBLIC_TENANT } from '../multitenancy/tenants';
import { parseBulkUser, type BulkValidationContext } from './bulk-user';

/** The most users one staging request may hold (the core's bound). */
export const MAX_USERS_PER_REQUEST = 10_000;
/** Role names the index does not list yet (made a moment ago) are read one by one, at most this many. */
const MAX_ROLE_READS = 100;

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
    if (lm.recipeId === 'thirdparty') return { ...base, email: lm.email ?? null, thirdpartyId: lm.thirdPartyId ?? null, thirdpartyUserId: lm.thirdPartyUserId ?? null };
    return { ...base, email: lm.email ?? null, phoneNumber: lm.phoneNumber ?? null };
  };
  return { userId: user.externalUserId ?? user.id, loginMethods: user.loginMethods.map(lmView) };
}

/** The roles a request names that exist: the index's list, and a consistent read of the rest. */
async function existingRoles(deps: Pick<Deps, 'roles'>, users: readonly unknown[]): Promise<Set<string>> {
  const roles = new Set(await deps.roles.listRoles());
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
  const found = await Promise.all(unlisted.map((role) => deps.roles.getRole(role)));
  for (const record of found) if (record) roles.add(record.role);
  return roles;
}

/** What validating the users of a request needs: the app's tenants and roles, read once. */
export async function validationContext(
  deps: Pick<Deps, 'roles' | 'tenants' | 'clock' | 'random' | 'config'>,
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
  };
}

/**
 * `POST /bulk-import/users`: validates every user (the errors of each invalid one, by index;
 * nothing is staged if any is invalid), then stages them all as `NEW` rows. The import itself
 * happens later, row by row (SPEC §15).
 */
export async function stageUsers(
  deps: Pick<Deps, 'bulkImport' | 'roles' | 'tenants' | 'clock' | 'random' | 'config'>,
  users: readonly unknown[],
): Promise<{ status: 'OK'; users?: StagedUserView[] }> {
  if (users.length === 0) return { status: 'OK' };
  if (users.length > MAX_USERS_PER_REQUEST) {
    const error = `You can only add ${MAX_USERS_PER_REQUEST} users at a time.`;
    throw new InvalidInputDocumentError({ error }, error);
  }
  const ctx = await validationContext(deps, users);
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
  const rows: BulkImportRow[] = valid.map((user) => ({ user, status: 'NEW', createdAt: now, updatedAt: now }));
  await deps.bulkImport.stageRows(rows);
  return { status: 'OK', users: valid.map(stagedView) };
}
